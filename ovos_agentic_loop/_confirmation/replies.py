"""The user's reply to a question: yes, no, or something else (a new question).

Classified by the ecosystem's yes/no engine, ``ovos-yes-no-plugin`` (an ``opm.agents.yesno``
plugin; ovos-persona installs it): word lists for 20+ languages, regular expressions over the
reply, offline. Bounded here: a reply longer than :data:`MAX_REPLY_CHARS` is a new question
without being classified. Its English list lacks the commonest ways to grant or refuse an
*action* ("go ahead", "do it", "cancel", "stop"); those few are asked after the engine found
neither, never instead of it.
"""

from __future__ import annotations

import re
from enum import Enum
from typing import Protocol

from ovos_agentic_loop.errors import ConfigError

__all__ = ["MAX_REPLY_CHARS", "YES_NO_PLUGIN", "Classifier", "Verdict", "load_classifier"]

YES_NO_PLUGIN = "ovos-yes-no-plugin"
#: A reply longer than this is never taken for a yes or a no.
MAX_REPLY_CHARS = 200

# What the yes/no engine's English list does not have, for answers to "should I do X?".
_ACTION_YES = re.compile(r"\b(go ahead|do it|ok|okay|proceed)\b", re.IGNORECASE)
_ACTION_NO = re.compile(r"\b(cancel|stop|abort|never mind)\b", re.IGNORECASE)


class Verdict(Enum):
    YES = "yes"
    NO = "no"
    OTHER = "other"


class _YesNo(Protocol):
    def yes_or_no(self, question: str, response: str, lang: str | None = None) -> bool | None: ...


class Classifier:
    """yes / no / other for a reply to ``question``, in ``lang``."""

    def __init__(self, engine: _YesNo) -> None:
        self._engine = engine

    def verdict(self, question: str, reply: str, lang: str | None) -> Verdict:
        text = " ".join(reply.split())
        if not text or len(text) > MAX_REPLY_CHARS:
            return Verdict.OTHER
        found = self._engine.yes_or_no(question, text, lang or "en-US")
        if found is None and (lang or "en").lower().startswith("en"):
            # the action words, last one said wins ("ok, no, cancel")
            yes = [m.start() for m in _ACTION_YES.finditer(text)]
            no = [m.start() for m in _ACTION_NO.finditer(text)]
            if yes or no:
                found = max(yes, default=-1) > max(no, default=-1)
        if found is None:
            return Verdict.OTHER
        return Verdict.YES if found else Verdict.NO


def load_classifier(engine_name: str) -> Classifier:
    """The yes/no engine, loaded through OPM; a :class:`ConfigError` saying what to install."""
    from ovos_plugin_manager.agents import load_yesno_plugin

    cls = load_yesno_plugin(YES_NO_PLUGIN)
    if cls is None:
        raise ConfigError(
            f"{engine_name}: confirmation is configured (confirm_tools, confirm_side_effects or a "
            f"toolbox's 'confirm') but the yes/no engine {YES_NO_PLUGIN!r} is not installed: "
            f"pip install {YES_NO_PLUGIN} (it pins ovos-plugin-manager<3: reinstall "
            "'ovos-plugin-manager>=3.1.0a1' afterwards, as scripts/bootstrap does)"
        )
    return Classifier(cls(config={}))
