"""The session key: one stable, opaque name for a conversation, sent with every model request.

A router in front of several model servers (LiteLLM's proxy with ``session_affinity``) sends
all requests that carry the same key to the same server, whose prompt cache then still holds
the conversation's prefix (system prompt, tool list, earlier turns). The loop keeps no state
between turns, so the key must come from what every turn brings along, on whichever
persona-server process it lands:

- the caller's session id (ovos-persona-server passes the OpenAI ``user`` field), when it
  names one;
- otherwise the conversation itself: its first user message, which the caller sends again
  with every turn (the history lives with the caller).

The key is a hash, so a user's name or the text of their question never reaches a model
server or a router's logs; it is stable across processes and machines (no salt, no
``hash()``), and the same for the loop's step events and the brain's requests.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from typing import Any

__all__ = ["ANONYMOUS_SESSIONS", "session_key"]

#: Session ids that name no caller: ovos-persona-server's default for a request without ``user``,
#: OPM's default argument, and an empty string.
ANONYMOUS_SESSIONS = frozenset({"", "default"})

_KEY_CHARS = 24  # hex digits: 96 bits, far from any collision among a household's sessions


def session_key(session_id: str | None, messages: Iterable[Any]) -> str:
    """``s-<hash>`` of a caller's session id, else ``c-<hash>`` of the first user message.

    ``messages`` are ``AgentMessage`` objects or OpenAI message dicts. A conversation without
    any user message (a warm-up) gets ``c-`` of the empty text: one key for all of them.
    """
    if session_id not in ANONYMOUS_SESSIONS and session_id is not None:
        return "s-" + _digest(session_id)
    return "c-" + _digest(_first_user_text(messages))


def _first_user_text(messages: Iterable[Any]) -> str:
    for message in messages:
        role = message.get("role") if isinstance(message, dict) else getattr(message, "role", None)
        if str(getattr(role, "value", role)) != "user":
            continue
        content = message.get("content") if isinstance(message, dict) else getattr(message, "content", "")
        return content if isinstance(content, str) else repr(content)
    return ""


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:_KEY_CHARS]
