"""What of a streamed reply a loop lets through: only the part after its final-answer marker.

The ReAct loop's stream gate (spoken through the turn's ``Speaker``) passes prose
as it arrives. A chain of thought or a self-ask decision starts with prose that must
never be spoken (the reasoning, a sub-question), so these loops use a stricter gate:
nothing passes until the marker, then everything after it.
"""

from __future__ import annotations

import re

__all__ = ["MarkerGate", "after_marker"]


class MarkerGate:
    """Feed deltas of one reply; get back only the text after the first ``marker`` match."""

    def __init__(self, marker: re.Pattern[str], *, blocker: re.Pattern[str] | None = None) -> None:
        self._marker = marker
        self._blocker = blocker  # seen before the marker: the reply is not an answer, nothing passes
        self._buffer = ""
        self._open = False
        self._closed = False
        self._spoke = False

    @property
    def spoken(self) -> bool:
        """Whether any text was let through."""
        return self._spoke

    def feed(self, delta: str) -> str:
        if self._open:
            out = delta if self._spoke else delta.lstrip()
            self._spoke = self._spoke or bool(out)
            return out
        if self._closed:
            return ""
        self._buffer += delta
        # The markers end in a colon, so a match is a complete marker, never one still being written.
        found = self._marker.search(self._buffer)
        if not found:
            return ""
        blocked = self._blocker.search(self._buffer, 0, found.start()) if self._blocker else None
        if blocked:
            self._closed = True
            return ""
        self._open = True
        rest, self._buffer = self._buffer[found.end() :].lstrip(), ""
        self._spoke = bool(rest)
        return rest


def after_marker(text: str, marker: re.Pattern[str]) -> str | None:
    """The text after the first ``marker`` in ``text`` (stripped; what :class:`MarkerGate` passes),
    or None without one."""
    found = marker.search(text or "")
    return text[found.end() :].strip() if found else None
