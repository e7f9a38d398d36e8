"""A template slot where a value belongs ("Your user name is <user-name>.", "The host is called
[hostname].", "It is {time} now."): the forced answer holding one is an honest "could not find
out" rather than a slot read aloud.

A rule of its own on every answer never fired on the held-out halves of the rules' ablation
(bench/results/ablation-104ac18.md, bench/results/ablation-0eaf9e2.md) and was removed. Once
"whats the name of this computer" was answered "The name of this computer is [insert computer
name]." with no call made (spoken half, shipped template), the unstated-result rule reads a slot
in an answer made without any call as it reads the question said back (``_rules.unstated``).
"""

from __future__ import annotations

import re

__all__ = ["placeholder_in"]

# <user-name>, <your_username>, [hostname], [insert name], {time}, YOUR_USERNAME, [YourUsername]:
# lowercase words joined by -, _ or spaces (at most four), a SHOUTED_NAME with an underscore, or a
# bracketed YourCamelCase. Markup and code
# (<b>, [1], {"a": 1}, a protocol tag such as <tool_call>) are not slots: a slot of one word needs
# a - or _ in it, or is one of the words a slot is made of.
_SLOT_WORDS = r"(?:your|user|name|username|hostname|host|value|insert|result|time|date|number|answer)"
_WORDS = r"(?:[a-z]+[-_ ]){1,3}[a-z]+"
_PROTOCOL_TAG = r"(?!/?(?:tool|function)[-_ ]?(?:calls?|response|result)\b)"
_SLOT = re.compile(
    rf"<{_PROTOCOL_TAG}{_WORDS}>|\[{_WORDS}\]|\{{{_WORDS}\}}"
    rf"|<{_SLOT_WORDS}>|\[{_SLOT_WORDS}\]|\{{{_SLOT_WORDS}\}}|\bYOUR_[A-Z_]+\b"
    r"|[<\[{]Your[A-Z][A-Za-z]*[>\]}]"
)


def placeholder_in(answer: str) -> str | None:
    """The first template slot ``answer`` holds, or None."""
    match = _SLOT.search(answer)
    return match.group() if match else None
