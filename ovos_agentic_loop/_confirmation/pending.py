"""The pending call: proposed and signed by the engine, carried in the question's own text.

The hosts keep text only: ovos-persona remembers each exchange as the joined sentences it spoke,
persona-server's OpenAI clients send back the assistant's ``content``. So the pending call travels
inside the question as an invisible **mark** (zero-width characters, which screens and TTS engines
do not render) holding the call, where it was asked and when, and an HMAC over all of it. Any engine
with the same key (``confirm_key``) can verify it and carry out the yes; no one without the key can
write a mark that verifies, and a verified mark is accepted only:

- in the assistant message right before the user's reply (never in user text or a tool result:
  marks found anywhere else are removed unread);
- for the session it was made for, and the user message it answered (a mark moved to another place
  of the conversation does not verify);
- within ``confirm_expiry`` seconds of being proposed, and once per process (a used id is refused).
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import re
import secrets
import threading
import time
import zlib
from dataclasses import dataclass, field
from typing import Any

__all__ = [
    "MAX_MARK_BYTES",
    "PendingCall",
    "Signer",
    "UsedIds",
    "mark_of",
    "without_marks",
]

# Two invisible delimiters, then the payload in four zero-width "digits" (two bits each). None of
# them is whitespace to Python or to the sentence splitter, so a host's strip() keeps them.
_OPEN, _CLOSE = "\u2063\u2062", "\u2062\u2063"  # invisible separator / invisible times
_DIGITS = "\u200b\u200c\u200d\u2060"  # zero-width space, non-joiner, joiner, word joiner
_MARK = re.compile(f"{_OPEN}([{_DIGITS}]*){_CLOSE}")
_VALUE = {ch: i for i, ch in enumerate(_DIGITS)}
_DOMAIN = b"ovos-agentic-loop/confirm/v1\n"
_TAG_BYTES = 16

#: Largest signed payload (compressed) a mark may hold; a call with larger arguments is not offered
#: for confirmation (the model is told why) rather than made a history of megabytes.
MAX_MARK_BYTES = 4096


def _digest(text: str) -> str:
    return hashlib.sha256(" ".join(text.split()).encode()).hexdigest()[:32]


@dataclass(frozen=True)
class PendingCall:
    """One call the engine proposed and asked about, with where and when it asked.

    ``asked_for`` is a digest of the user message the question answered: the mark carries no
    conversation text."""

    tool: str
    arguments: dict[str, Any]
    session: str
    asked_for: str
    issued: float = field(default_factory=time.time)
    id: str = field(default_factory=lambda: secrets.token_hex(8))

    @classmethod
    def proposed(cls, tool: str, arguments: dict[str, Any], *, session: str, user_text: str) -> PendingCall:
        return cls(tool, dict(arguments), session, _digest(user_text))

    def answers(self, *, user_text: str, session: str) -> bool:
        """True when this call was asked in ``session``, right after the user said ``user_text``."""
        return self.session == session and hmac.compare_digest(self.asked_for, _digest(user_text))

    def _payload(self) -> dict[str, Any]:
        return {
            "t": self.tool,
            "a": self.arguments,
            "s": self.session,
            "u": self.asked_for,
            "i": self.issued,
            "n": self.id,
        }


class Signer:
    """Seals pending calls into marks and opens them again; one key per engine (or replica set)."""

    def __init__(self, key: bytes) -> None:
        if len(key) < 16:
            raise ValueError("the confirmation key must be at least 16 bytes")
        self._key = key

    def _tag(self, body: bytes) -> bytes:
        return hmac.new(self._key, _DOMAIN + body, hashlib.sha256).digest()[:_TAG_BYTES]

    def seal(self, call: PendingCall) -> str | None:
        """The invisible mark of ``call``; None when its arguments are too large for one."""
        body = zlib.compress(json.dumps(call._payload(), sort_keys=True, default=str).encode(), 9)
        if len(body) > MAX_MARK_BYTES:
            return None
        data = self._tag(body) + body
        digits = "".join(_DIGITS[(byte >> shift) & 3] for byte in data for shift in (6, 4, 2, 0))
        return f"{_OPEN}{digits}{_CLOSE}"

    def open(self, text: str) -> PendingCall | None:
        """The pending call of the (last) mark in ``text`` when its signature verifies, else None."""
        found = mark_of(text)
        if found is None or len(found) % 4 or len(found) > 4 * (MAX_MARK_BYTES + _TAG_BYTES):
            return None
        data = bytes(
            sum(_VALUE[found[i + k]] << (6 - 2 * k) for k in range(4)) for i in range(0, len(found), 4)
        )
        tag, body = data[:_TAG_BYTES], data[_TAG_BYTES:]
        if not hmac.compare_digest(tag, self._tag(body)):
            return None
        try:  # signed with our key, so written by us; checked anyway (a mark of an older version)
            raw = json.loads(zlib.decompressobj().decompress(body, MAX_MARK_BYTES * 64))
            return PendingCall(
                tool=str(raw["t"]),
                arguments=dict(raw["a"]),
                session=str(raw["s"]),
                asked_for=str(raw["u"]),
                issued=float(raw["i"]),
                id=str(raw["n"]),
            )
        except (ValueError, KeyError, TypeError, zlib.error):
            return None

    def token(self, call: PendingCall) -> str | None:
        """The mark of ``call`` as plain ASCII (for the bus, where invisible text is awkward)."""
        mark = self.seal(call)
        return None if mark is None else base64.urlsafe_b64encode(mark.encode()).decode()

    def open_token(self, token: str) -> PendingCall | None:
        try:
            return self.open(base64.urlsafe_b64decode(token.encode()).decode())
        except (ValueError, UnicodeDecodeError):
            return None


def mark_of(text: str) -> str | None:
    """The digits of the last mark in ``text``, or None."""
    found = _MARK.findall(text or "")
    return found[-1] if found else None


def without_marks(text: str) -> str:
    """``text`` with every mark removed: what a model, a log or a classifier sees."""
    if not text:
        return text
    return _MARK.sub("", text)


class UsedIds:
    """Ids of pending calls already decided in this process, kept while a mark could still verify."""

    def __init__(self) -> None:
        self._seen: dict[str, float] = {}
        self._lock = threading.Lock()

    def claim(self, call_id: str, expiry: float) -> bool:
        """True the first time ``call_id`` is claimed (within ``expiry`` seconds); False after."""
        now = time.time()
        with self._lock:
            for old in [k for k, at in self._seen.items() if now - at > expiry]:
                del self._seen[old]
            if call_id in self._seen:
                return False
            self._seen[call_id] = now
            return True
