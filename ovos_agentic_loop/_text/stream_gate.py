"""Decides, while a reply is still streaming, which of its text may be spoken.

A voice must never speak a tool call. The gate reads a reply's deltas once, left to
right, with the parser's own patterns (:mod:`ovos_agentic_loop._text.protocol`), and holds
back whatever could still turn into protocol until it is known not to be:

- a line that may start with ``Thought:``, ``Action:``, ``Action Input:`` or
  ``Observation:`` (held until its first characters decide it; ``Thought:`` and
  ``Action Input:`` lines are dropped, as the parser drops them; ``Action:`` and
  ``Observation:`` end what this reply may say);
- a ``{`` or ``[``: held until its bracket closes, then let through only if the parser
  would find no tool call in it; a reply that opens with ``{`` is held whole;
- a code fence, which ends what this reply may say (the parser reads calls in fences);
- a ``<tool_response>`` tag (a tool result the model invents), which ends it too;
- a call written as markup (``<tools>``, ``<function name=...>``: ``markup.py``), which ends
  it too;
- a ``<tool_call>`` tag, which ends it too: what the tags hold is a call (JSON or
  ``name('arg')``) or, for the parser, an unreadable one; never an answer. This holds
  wherever the tag stands, also before a protocol keyword or inside a dropped line;
- anything that may become ``Final Answer:`` (dropped; the text after the first one is
  the answer) or a stray ``</tool_call>`` (dropped), and ``<think>`` blocks (dropped).

What is let through is exactly a prefix of the answer the parser finds in the whole
reply, so ``stream_tokens`` joins to what ``continue_chat`` returns. :meth:`finish` adds
the rest of the turn's final answer once it is known.

**Talk, then call.** Text a model writes *before* a tool call or a ``Final Answer:``
marker ("Let me use the calculator.") is let through as it arrives: whether a call
follows is unknown until it does (and a native tool call arrives only with the
finished message). Such talk is spoken once, as a progress phrase, and the answer
follows it; ``continue_chat`` returns the answer alone. The call itself, the marker
and everything after a call are never spoken.

The work is linear in the reply's length: every pattern is bounded, held text is
re-examined only at its own first characters, and a bracket is followed by one
incremental scan.
"""

from __future__ import annotations

from collections.abc import Callable

import regex

from ovos_agentic_loop._text.protocol import (
    FINAL_MARKER,
    LINE_KEYWORD,
    MARKUP_CALL_OPEN,
    MAX_CALL_SCAN_CHARS,
    THINK_CLOSE,
    THINK_OPEN,
    TOOL_CALL_OPEN,
    TOOL_CALL_TAG,
    TOOL_RESPONSE_TAG,
    collapse_breaks,
    holds_call,
)

__all__ = ["MAX_STREAMED_CHARS", "FinalAnswerGate", "Speech"]

#: The gate reads this many characters of a reply; the rest of a longer one is said at its end (by
#: ``finish``, from the parse). It bounds the gate's work whatever a model writes.
MAX_STREAMED_CHARS = MAX_CALL_SCAN_CHARS

# Exactly the characters str.strip() removes (regex's \s differs on a few control characters).
_WHITESPACE = "".join(c for c in map(chr, range(0x3001)) if c.isspace())
_WS_CLASS = regex.escape(_WHITESPACE, special_only=False)
# Characters where something the parser treats specially may begin (everything else is prose).
_SPECIAL = regex.compile(rf"[{_WS_CLASS}{{\[`<*_fF]")
_BLANKS = regex.compile("[" + regex.escape(_WHITESPACE.replace("\n", ""), special_only=False) + "]+")
_STRUCTURE = regex.compile(r'[{}\[\]"\\]')
#: After these, the next model call's text follows after a space; otherwise on a new line (so a
#: talk without end punctuation is still its own sentence for a speech engine).
_JOINS_WITH_SPACE = frozenset(".!?…:;,\"')]”’")
# Tags from which nothing more of a reply is spoken: an invented tool result, or a call (in
# <tool_call> tags, or written as markup of the model's own: <tools>, <function name=...>).
_HOLDING_TAG = regex.compile(
    rf"{TOOL_RESPONSE_TAG.pattern}|{TOOL_CALL_OPEN.pattern}|{MARKUP_CALL_OPEN.pattern}", regex.IGNORECASE
)

_NO, _MAYBE, _MATCH = "no", "maybe", "match"


class Speech:
    """What one turn has said so far, across its model calls: joins their text properly."""

    def __init__(self) -> None:
        self.last = ""  # the last character said ("" before the first)
        self.chars = 0

    def separator(self) -> str:
        """What goes between the text said so far and a new part ("" before the first)."""
        if not self.last:
            return ""
        return " " if self.last in _JOINS_WITH_SPACE else "\n"

    def say(self, text: str) -> str:
        if text:
            self.last, self.chars = text[-1], self.chars + len(text)
        return text


class _ThinkFilter:
    """Drops ``<think>...</think>`` from a stream, as :func:`protocol.strip_think` does from a text."""

    def __init__(self) -> None:
        self._tail = ""
        self._inside = False

    def feed(self, delta: str) -> str:
        text, out = self._tail + delta, []
        while True:
            tag = (THINK_CLOSE if self._inside else THINK_OPEN).search(text)
            if tag is None:
                keep = _partial_tail(text, "</think>" if self._inside else "<think>")
                if not self._inside:
                    out.append(text[: len(text) - keep])
                self._tail = text[len(text) - keep :]
                return "".join(out)
            if not self._inside:
                out.append(text[: tag.start()])
            text, self._inside = text[tag.end() :], not self._inside

    def close(self) -> str:
        """What was held as a possible start of a tag: text after all (an unclosed block is dropped)."""
        tail, self._tail = self._tail, ""
        return "" if self._inside else tail


def _partial_tail(text: str, tag: str) -> int:
    """Length of the longest end of ``text`` that could be the start of ``tag`` (any case)."""
    lowered = text[-len(tag) :].lower()
    for size in range(min(len(tag) - 1, len(lowered)), 0, -1):
        if tag.startswith(lowered[-size:]):
            return size
    return 0


class FinalAnswerGate:
    """Feed the deltas of one reply; get back the text that may be spoken now.

    ``speech`` is the turn's :class:`Speech` (shared by the gates of its model calls).
    """

    def __init__(self, speech: Speech | None = None) -> None:
        self._speech = speech if speech is not None else Speech()
        self._think = _ThinkFilter()
        self._text = ""  # the undecided rest of the reply (and a little before it), <think> blocks removed
        self._offset = 0  # where self._text starts in the reply
        self._read = 0  # characters fed, <think> blocks included
        self._pos = 0  # self._text[:_pos] is decided
        self._holding = False  # from here on nothing of this reply is spoken; finish() settles it
        self._closed = False  # the reply is over: what waited for more text is decided as it stands
        self._final = False  # a Final Answer marker was seen: the current part is the answer
        self._line_start = False
        self._started = False  # leading whitespace skipped
        self._dropping_line = False  # inside a Thought/Action Input line
        self._prose_until = 0  # brackets before this index were found not to hold a call
        self._region: _RegionScan | None = None
        self._pending = ""  # whitespace decided but not yet spoken (never at a part's ends)
        self._part: list[str] = []  # the current part: the reply's text so far, or the text after its marker
        #: How many characters this gate let through, separators included.
        self.passed_chars = 0
        #: A reply the turn held back whole while rules could still send it back (``model_call``):
        #: read by ``finish`` once it stands, so its talk and answer are said as if never held.
        self.held = ""

    @property
    def part(self) -> str:
        """The text let through of the current part (the answer so far, when the reply is one)."""
        if len(self._part) > 1:
            self._part[:] = ["".join(self._part)]
        return self._part[0] if self._part else ""

    # -- the public side --------------------------------------------------------------
    def feed(self, delta: str) -> str:
        if self._holding:
            return ""  # finish() settles a held reply from its parse: nothing more to read here
        self._read += len(delta)
        if self._read > MAX_STREAMED_CHARS:
            self._holding = True
            return ""
        self._text += self._think.feed(delta)
        said: list[str] = []
        self._advance(said)
        if self._pos > 4096:
            self._trim()
        return "".join(said)

    def _trim(self) -> None:
        # Decided text is never read again: drop it, so appending a delta costs the undecided rest.
        cut = self._pos
        self._text, self._offset, self._pos = self._text[cut:], self._offset + cut, 0
        self._prose_until = max(0, self._prose_until - cut)
        if self._region is not None:
            self._region.shift(cut)

    def close(self) -> str:
        """The reply is over: say what only waited for more text (the end of a talk such as "of")."""
        said: list[str] = []
        if not self._holding and not self._closed:
            self._closed = True
            self._text += self._think.close()
            self._advance(said)
        return "".join(said)

    def finish(self, answer: str) -> str:
        """The rest of ``answer`` (the turn's final answer) once the reply is over.

        When what was let through is the start of ``answer``, its remainder; otherwise what was
        let through was talk (see the module docstring) and ``answer`` follows it whole.
        """
        said = ""
        if self.held:
            held, self.held = self.held, ""
            said = self.feed(held) + self.close()
        if not answer:
            return said
        part = self.part
        rest = answer[len(part) :] if part and answer.startswith(part) else self._speech.separator() + answer
        self._part, self.passed_chars = [answer], self.passed_chars + len(rest)
        return said + self._speech.say(rest)

    # -- the scan ---------------------------------------------------------------------
    def _advance(self, said: list[str]) -> None:
        text = self._text
        if not self._started:  # the parser strips the reply's leading whitespace
            self._pos = len(text) - len(text[self._pos :].lstrip())
            if self._pos == len(text):
                return
            self._started = self._line_start = True
        while not self._holding and self._pos < len(text):
            if self._dropping_line:
                if not self._drop_line():
                    return
            elif self._line_start:
                if not self._at_line_start():
                    return
            elif not self._prose(said):
                return

    def _at_line_start(self) -> bool:
        verdict, match = _probe(LINE_KEYWORD, self._text, self._pos, self._closed)
        if verdict == _MAYBE:
            return False
        self._line_start = False
        if verdict == _MATCH and match is not None:
            keyword = match.group(1).lower()
            if (keyword.startswith("action") and "input" not in keyword) or keyword == "observation":
                self._holding = True  # a call, or the model inventing a tool result
            elif TOOL_CALL_OPEN.search(match.group()):
                self._holding = True  # "<tool_call>Thought: ...": the parser reads the tags as a call
            else:
                self._dropping_line = True  # Thought / Action Input: not part of the answer
        return True

    def _drop_line(self) -> bool:
        end = self._text.find("\n", self._pos)
        if end < 0:
            if not self._closed:
                return False  # the line is not over: it may still hold a Final Answer marker
            end = len(self._text)
        marker = None if self._final else FINAL_MARKER.search(self._text, self._pos, end)
        self._dropping_line = False
        if TOOL_CALL_OPEN.search(self._text, self._pos, end):
            self._holding = True  # a call in a Thought line is still a call (or an unreadable one)
        elif marker is not None:
            self._start_answer(marker.end())
        else:
            self._pos = end  # the line break itself stays, as the parser keeps it
        return True

    def _prose(self, said: list[str]) -> bool:
        text = self._text
        special = _SPECIAL.search(text, self._pos)
        at = special.start() if special else len(text)
        if at > self._pos:
            self._say(text[self._pos : at], said)
            self._pos = at
        if special is None:
            return True
        char = special.group()
        if char == "\n":
            self._pending += char
            self._pos += 1
            self._line_start = True
        elif char in _WHITESPACE:
            blanks = _BLANKS.match(text, at)
            end = blanks.end() if blanks else at + 1
            self._pending += text[at:end]
            self._pos = end
        elif char in "{[":
            return self._bracket(said)
        elif char == "`":
            if len(text) - at < 3 and not self._closed:
                return False
            if text.startswith("```", at):
                self._holding = True
            else:
                self._say(char, said)
                self._pos += 1
        elif char == "<":
            verdict, _ = _probe(_HOLDING_TAG, text, at, self._closed)
            if verdict == _MAYBE:
                return False
            if verdict == _MATCH:
                # An invented tool result (the parser cuts the reply there), or a call in tags.
                self._holding = True
                return True
            return self._maybe_drop(TOOL_CALL_TAG, said, then=self._drop)
        else:
            return self._maybe_drop(FINAL_MARKER, said, then=self._marker)
        return True

    def _maybe_drop(
        self, pattern: regex.Pattern[str], said: list[str], *, then: Callable[[int], None]
    ) -> bool:
        verdict, match = _probe(pattern, self._text, self._pos, self._closed)
        if verdict == _MAYBE:
            return False
        if verdict == _MATCH and match is not None:
            then(match.end())
        else:
            self._say(self._text[self._pos], said)
            self._pos += 1
        return True

    def _drop(self, end: int) -> None:
        self._pos = end

    def _marker(self, end: int) -> None:
        if self._final:
            self._pos = end  # a repeated marker is dropped; the answer goes on
        else:
            self._start_answer(end)

    def _start_answer(self, at: int) -> None:
        # The answer is what follows the first marker; what was said before it was talk.
        self._final, self._part, self._pending = True, [], ""
        self._pos, self._line_start = at, True

    def _bracket(self, said: list[str]) -> bool:
        at = self._pos
        if at < self._prose_until or self._offset + at >= MAX_CALL_SCAN_CHARS:
            self._say(self._text[at], said)
            self._pos += 1
            return True
        if not self.passed_chars and self._text[at] == "{":
            self._holding = True  # a reply that opens with "{" is a call, or a broken one
            return True
        if self._region is None or self._region.start != at:
            self._region = _RegionScan(at)
        end = self._region.scan(self._text, MAX_CALL_SCAN_CHARS - self._offset)
        if end is None:
            if self._closed or self._offset + self._region.scanned >= MAX_CALL_SCAN_CHARS:
                self._holding = True  # the parser sees this bracket unclosed: let it decide
            return False
        self._region = None
        if holds_call(self._text[at:end]):
            self._holding = True
        else:
            self._prose_until = end
        return True

    def _say(self, text: str, said: list[str]) -> None:
        if self._part:
            out = (collapse_breaks(self._pending) if self._pending else "") + text
            self._part.append(out)
        else:  # a part starts: its leading whitespace is dropped, a separator joins it to what was said
            out = self._speech.separator() + text
            self._part.append(text)
        self._pending = ""
        self.passed_chars += len(out)
        said.append(self._speech.say(out))


class _RegionScan:
    """Finds where the bracket opened at ``start`` closes, over text that keeps growing.

    The same rules as the parser's bracket pairing: quotes open strings only inside brackets,
    a backslash in a string escapes the next character.
    """

    def __init__(self, start: int) -> None:
        self.start = start
        self.scanned = start
        self._depth = 0
        self._in_string = False
        self._skip_to = -1

    def shift(self, by: int) -> None:
        self.start, self.scanned, self._skip_to = self.start - by, self.scanned - by, self._skip_to - by

    def scan(self, text: str, limit: int) -> int | None:
        """The end (exclusive) of the region once it has closed (looking before ``limit``), else None."""
        limit = min(len(text), limit)
        for match in _STRUCTURE.finditer(text, self.scanned, limit):
            at, char = match.start(), match.group()
            if at < self._skip_to:
                continue
            if char == "\\" and self._in_string and at + 1 >= len(text):
                self.scanned = at  # the escaped character has not arrived yet
                return None
            if self._in_string:
                if char == "\\":
                    self._skip_to = at + 2
                elif char == '"':
                    self._in_string = False
            elif char == '"':
                self._in_string = True
            elif char in "{[":
                self._depth += 1
            elif char in "}]":
                self._depth -= 1
                if self._depth == 0:
                    return at + 1
        self.scanned = limit
        return None


def _probe(
    pattern: regex.Pattern[str], text: str, pos: int, closed: bool
) -> tuple[str, regex.Match[str] | None]:
    """Whether ``pattern`` matches at ``pos``: no, maybe (more text may decide), or a settled match."""
    if closed:  # no more text will come
        match = pattern.match(text, pos)
        return (_MATCH, match) if match is not None else (_NO, None)
    match = pattern.match(text, pos, partial=True)
    if match is None:
        return _NO, None
    if match.partial or match.end() == len(text):  # a match at the very end may still grow
        return _MAYBE, match
    return _MATCH, match
