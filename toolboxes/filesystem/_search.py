"""Regular-expression search over files with bounds on time, file size and output.

Patterns run on the ``regex`` engine with its ``timeout=`` argument: a pattern that backtracks
catastrophically (``(a+)+$``) is stopped when the call's time budget runs out instead of hanging
the process, and the model gets what was found so far plus a note telling it to simplify.

That timeout does not cover COMPILING: ``regex`` unrolls counted repeats, so ``a{1000000000}``
(or ``((a{100}){100}){100}``) allocates hundreds of gigabytes before any search starts. The
pattern is therefore measured first (:func:`repeat_weight`) and refused when unrolling it would be
large; verbose mode and version flags, which change how that measurement must read the pattern,
are refused too.
"""

from __future__ import annotations

import os
import re
import time
from collections import Counter
from dataclasses import dataclass, field

import regex

from ovos_agentic_loop_toolboxes._core.paths import Sandbox, check_text, open_regular_file
from ovos_agentic_loop_toolboxes.filesystem._io import SNIFF_BYTES

MAX_PATTERN_CHARS = 500
CONTEXT_CHARS = 120
# About 26 MB and 20 ms of compiling; 'a{1000000}' alone would take 270 MB.
MAX_PATTERN_WEIGHT = 100_000
_COUNTED_REPEAT = re.compile(r"\{(\d*)(?:,(\d*))?\}")
# Inline flags that make whitespace and '#' meaningful (x) or switch the syntax version (V0/V1).
_PARSING_FLAGS = re.compile(r"\(\?[a-zA-Z0-9-]*[xV]")


@dataclass(frozen=True)
class Hit:
    """One matching line; ``file`` is relative to the root."""

    file: str
    line_number: int
    line: str


@dataclass
class SearchState:
    """What a search found so far and why it may have stopped early."""

    max_matches: int
    max_line_chars: int
    max_file_bytes: int
    deadline: float
    hits: list[Hit] = field(default_factory=list)
    total: int = 0
    files_searched: int = 0
    skipped_large: int = 0
    skipped_binary: int = 0
    timed_out: bool = False
    #: The files the glob left out, by kind (".txt", or the name where it has no suffix): what a
    #: search that found nothing says is there.
    left_out: Counter[str] = field(default_factory=Counter)

    @property
    def stopped(self) -> bool:
        """Whether no more files should be searched."""
        return self.timed_out or self.total >= self.max_matches


def compile_pattern(pattern: str) -> regex.Pattern[str]:
    """Compile a model-supplied pattern, turning the engine's error into advice."""
    check_text(pattern, "pattern")
    if not pattern:
        raise ValueError("pattern is empty; give the text or regular expression to look for, such as 'TODO'")
    if len(pattern) > MAX_PATTERN_CHARS:
        raise ValueError(f"pattern is longer than {MAX_PATTERN_CHARS} characters; search for a shorter piece")
    if _PARSING_FLAGS.search(pattern):
        raise ValueError(
            "inline flags x (verbose) and V0/V1 are not supported; use i, m or s, such as '(?i)error'"
        )
    if repeat_weight(pattern) > MAX_PATTERN_WEIGHT:
        raise ValueError(
            f"pattern {pattern[:60]!r} repeats too much ({{n}} counts multiply when nested); "
            "use '+' or '*' instead of large counts such as {1000}"
        )
    try:
        return regex.compile(pattern)
    except regex.error as exc:
        raise ValueError(
            f"pattern {pattern!r} is not a valid regular expression ({exc}); "
            "to find literal text put a backslash before special characters such as \\( \\. \\*"
        ) from None


def repeat_weight(pattern: str) -> int:
    """An upper bound on the atoms ``regex`` creates when it unrolls the counted repeats of ``pattern``.

    Every atom weighs 1, a group weighs what it holds, and ``{m}``/``{m,n}``/``{m,}`` multiplies the
    atom or group before it by the larger count. Reading is deliberately simple and errs high: a
    '{' that is not a repeat, or a class the engine would end later, only makes the estimate larger.
    """
    stack = [[0, 0]]  # Per open group: [weight so far, weight of the last atom].
    i, size = 0, len(pattern)
    while i < size:
        char = pattern[i]
        top = stack[-1]
        atom = 1
        if char == "\\":
            i += 2
            if i - 1 < size and pattern[i - 1] in "pPNx" and i < size and pattern[i] == "{":
                i = pattern.find("}", i) + 1 or size  # \p{L}, \N{name}, \x{41}: an argument, not a repeat
        elif char == "[":
            i += 1
            if i < size and pattern[i] == "^":
                i += 1
            if i < size and pattern[i] == "]":
                i += 1  # A ']' first in a class is a literal.
            while i < size and pattern[i] != "]":
                i += 2 if pattern[i] == "\\" else 1
            i += 1
        elif char == "(":
            stack.append([0, 0])
            i += 1
            continue
        elif char == ")" and len(stack) > 1:
            group = stack.pop()
            top = stack[-1]
            atom = group[0] + 1
            i += 1
        elif char == "{" and (repeat := _COUNTED_REPEAT.match(pattern, i)):
            count = max(int(repeat.group(1) or 0), int(repeat.group(2) or 0))
            top[0] += top[1] * max(count - 1, 0)
            top[1] *= max(count, 1)
            i = repeat.end()
            continue
        elif char == "|":
            top[1] = 0
            i += 1
            continue
        elif char in "*+?":
            i += 1  # Open-ended repeats are loops, not copies.
            continue
        else:
            i += 1
        top[0] += atom
        top[1] = atom
    while len(stack) > 1:  # Unbalanced: the engine will refuse it; count it anyway.
        group = stack.pop()
        stack[-1][0] += group[0]
    return stack[0][0]


def search_file(sandbox: Sandbox, real_path: str, compiled: regex.Pattern[str], state: SearchState) -> None:
    """Search one file found by the walk; binary and over-large files are counted, not read."""
    target = sandbox.resolve(real_path)
    try:
        with sandbox.open_dir(target.parts[:-1]) as dir_fd:
            fd = open_regular_file(dir_fd, target.parts[-1])
    except OSError:
        return  # Vanished or not a regular file: nothing to search.
    with os.fdopen(fd, "rb") as handle:
        if os.fstat(handle.fileno()).st_size > state.max_file_bytes:
            state.skipped_large += 1
            return
        data = handle.read(state.max_file_bytes + 1)
    if b"\x00" in data[:SNIFF_BYTES]:
        state.skipped_binary += 1
        return
    state.files_searched += 1
    for number, line in enumerate(data.decode("utf-8", errors="replace").splitlines(), start=1):
        remaining = state.deadline - time.monotonic()
        if remaining <= 0:
            state.timed_out = True
            return
        try:
            match = compiled.search(line, timeout=remaining)
        except TimeoutError:
            state.timed_out = True
            return
        if match is None:
            continue
        state.total += 1
        state.hits.append(Hit(target.rel, number, _excerpt(line, match.start(), state.max_line_chars)))
        if state.stopped:
            return


def _excerpt(line: str, start: int, limit: int) -> str:
    """The line, or a window of it around the match when the line is long."""
    line = line.rstrip()
    if len(line) <= limit:
        return line
    # Show some text before the match, but never so much that the match falls out of the window.
    begin = max(0, min(start - min(CONTEXT_CHARS, limit // 3), len(line) - limit))
    text = line[begin : begin + limit]
    return ("…" if begin else "") + text + ("…" if begin + limit < len(line) else "")
