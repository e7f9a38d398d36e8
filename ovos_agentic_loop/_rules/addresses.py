"""Unsaid addresses: a call that sends a web address nobody gave.

Offered only a web request tool for "can you provide the address for latitude 37.42 and longitude
-122.08", "the top ten stocks of the Toronto stock exchange" or "write a python script that renames
files", the bundled model called it with addresses it made up (``api.openweathermap.org``,
``date.nager.at``) and keys such as ``your_api_key`` (BFCL's live irrelevance entries). An address
is grounded when its host is in the conversation: the user's words, a tool result, a call that ran.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from ovos_plugin_manager.templates.agents import MessageRole

from ovos_agentic_loop._rules.view import TurnView

__all__ = ["UnsaidAddress", "unsaid_address"]

# A web address's host: "https://api.example.com/v1?x=1" -> "api.example.com".
_HOST = re.compile(r"\b[a-z][a-z0-9+.-]*://(?:[^@/\s]+@)?(?P<host>[^/\s?#:\"']+)", re.IGNORECASE)


@dataclass(frozen=True)
class UnsaidAddress:
    """A call's web address (``host``, in ``parameter``) nobody gave."""

    host: str
    tool: str
    parameter: str

    @property
    def message(self) -> str:
        return (
            f"Not run: {self.host} ({self.parameter}) is no address the user gave or a tool returned. "
            f"Call {self.tool} only with an address from the user's words or a tool's result; if "
            "there is none, answer without it."
        )


def unsaid_address(view: TurnView) -> UnsaidAddress | None:
    """The first host of a web address in the reply's calls that the conversation never held."""
    known: str | None = None
    for call in view.calls:
        if not isinstance(call.arguments, dict):
            continue
        for parameter, value in call.arguments.items():
            for host in _hosts(value):
                known = known if known is not None else _conversation(view)
                bare = host.lower().removeprefix("www.")
                if bare not in known:
                    return UnsaidAddress(host, call.name, parameter)
    return None


def _hosts(value: Any) -> list[str]:
    text = value if isinstance(value, str) else json.dumps(value, default=str)
    return [m.group("host") for m in _HOST.finditer(text)] if "://" in text else []


def _conversation(view: TurnView) -> str:
    """Everything the conversation holds as text, lower-cased: its messages and the arguments of
    the calls that reached their tool; never the loop's words on a call it refused."""
    refused = view.unran
    parts: list[str] = []
    for message in view.transcript:
        if message.role == MessageRole.TOOL and message.tool_call_id in refused:
            continue
        parts.append(message.content or "")
        parts += [
            json.dumps(c.arguments, default=str) for c in message.tool_calls or [] if c.id not in refused
        ]
    return "\n".join(parts).lower()
