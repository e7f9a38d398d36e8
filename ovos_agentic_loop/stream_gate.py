"""Decides, while a reply is still streaming, whether it is the final answer to speak.

A reply that starts like a tool call (``{``, a code fence, ``<tool_call>``,
``Action:``, ``Thought:``) is held back; prose is passed on as it arrives; with
``Final Answer:`` only the text after the marker is passed on. Nothing of the
protocol reaches a listener, and a voice assistant can speak the first sentence of
an answer while the model is still writing the rest.
"""

from __future__ import annotations

import re

__all__ = ["FinalAnswerGate"]

_HOLD_PREFIXES = ("{", "[", "```", "<", "action", "thought", "observation")
_FINAL_PREFIXES = ("final answer", "final_answer", "finalanswer")
_FINAL_MARKER = re.compile(r"final[ _]*answer[ \t*_]*[:：][ \t]*", re.IGNORECASE)
_PREFIX_CHARS = max(len(p) for p in _HOLD_PREFIXES + _FINAL_PREFIXES) + 2


class FinalAnswerGate:
    """Feed deltas of one reply; get back the text that may be spoken now."""

    def __init__(self) -> None:
        self._buffer = ""
        self._state = "undecided"  # -> "prose" | "hold" | "final"
        self.passed = ""  # everything let through so far

    def feed(self, delta: str) -> str:
        self._buffer += delta
        if self._state == "undecided":
            self._decide()
        if self._state == "hold":
            # A held reply may still turn into a final answer ("Thought: ... Final Answer: ...").
            marker = _FINAL_MARKER.search(self._buffer)
            if marker and not re.search(r"action[ \t*_]*:", self._buffer[: marker.start()], re.IGNORECASE):
                self._state = "final"
                self._buffer = self._buffer[marker.end() :]
        if self._state in ("prose", "final"):
            out, self._buffer = self._buffer, ""
            self.passed += out
            return out
        return ""

    def _decide(self) -> None:
        head = self._buffer.lstrip().lower()
        if not head:
            return
        marker = _FINAL_MARKER.match(self._buffer.lstrip())
        if marker:
            self._state = "final"
            self._buffer = self._buffer.lstrip()[marker.end() :]
            return
        if any(head.startswith(p) for p in _HOLD_PREFIXES):
            self._state = "hold"
            return
        ambiguous = any(p.startswith(head) for p in _FINAL_PREFIXES + _HOLD_PREFIXES)
        if ambiguous and len(head) < _PREFIX_CHARS:
            return  # still ambiguous ("Fin", "Act"): wait for a few more characters
        self._state = "prose"
