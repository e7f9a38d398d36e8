"""Globs matched against a walk of the root, never expanded by the OS.

A model-supplied glob is never handed to ``glob``/``Path.glob`` (which happily climb through
``..``). It is translated into a regular expression over '/'-separated relative paths and matched
against entries found while walking folders inside the root, so it can only ever match entries
that are already inside.

The translation backtracks: ``*a*a*a*a*a*a*a*b`` against a 200-character name takes hours in
``re`` (which also holds the GIL, freezing the whole assistant). Globs therefore run on the
``regex`` engine with a timeout taken from the call's deadline, and a walk whose glob runs out of
time stops as truncated, like a walk that runs out of entries.
"""

from __future__ import annotations

import itertools
import os
import re
import time
from collections.abc import Iterator
from dataclasses import dataclass, field

import regex as regex_engine

from ovos_agentic_loop_toolboxes._core.paths import Sandbox, check_text

MAX_GLOB_CHARS = 200


@dataclass(frozen=True)
class Glob:
    """A compiled glob: ``anywhere`` globs (no '/') match an entry's name at any depth."""

    text: str
    regex: regex_engine.Pattern[str]
    anywhere: bool

    def matches(self, rel_path: str, deadline: float) -> bool:
        """Whether a path relative to the search folder matches.

        Raises ``TimeoutError`` when ``deadline`` (a ``time.monotonic()`` value) passes first.
        """
        target = rel_path.rsplit("/", 1)[-1] if self.anywhere else rel_path
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise TimeoutError("the glob ran out of time")
        return self.regex.fullmatch(target, timeout=remaining) is not None


def compile_glob(pattern: str, root: str, what: str = "glob") -> Glob:
    """Validate and compile a glob; refuse anything that could name a place outside the search folder."""
    text = check_text(pattern, what).strip()
    if len(text) > MAX_GLOB_CHARS:
        raise ValueError(
            f"{what} is longer than {MAX_GLOB_CHARS} characters; use a shorter one such as '*.txt'"
        )
    if text.startswith(root + "/"):
        text = text[len(root) + 1 :]
    if text.startswith(("/", "~")):
        raise PermissionError(
            f"{what} {pattern!r} is absolute; write it relative to the folder, "
            "such as '*.txt' or 'docs/**/*.md'"
        )
    segments = [s for s in text.split("/") if s not in ("", ".")]
    if ".." in segments:
        raise PermissionError(
            f"{what} {pattern!r} contains '..', which would leave the folder; "
            "choose the folder with the path argument and keep the glob inside it, such as '**/*.md'"
        )
    if not segments:
        segments = ["*"]
    # 'a/**/**/b' means 'a/**/b'; each extra '**' would only multiply the ways to backtrack.
    segments = [s for i, s in enumerate(segments) if not (s == "**" and i > 0 and segments[i - 1] == "**")]
    source = "".join(_segment_regex(seg, last=i == len(segments) - 1) for i, seg in enumerate(segments))
    try:
        compiled = regex_engine.compile(source, regex_engine.DOTALL)
    except regex_engine.error as exc:
        raise ValueError(
            f"{what} {pattern!r} is not a valid glob ({exc}); use '*', '?' and '**' only"
        ) from None
    return Glob(text="/".join(segments), regex=compiled, anywhere=len(segments) == 1)


def _segment_regex(segment: str, last: bool) -> str:
    if segment == "**":
        return ".*" if last else "(?:[^/]+/)*"
    return _chars_regex(segment) + ("" if last else "/")


def _chars_regex(text: str) -> str:
    """Translate one path segment: ``*``, ``?``, ``[abc]``, ``[!abc]`` and ``{a,b}``."""
    out: list[str] = []
    i = 0
    while i < len(text):
        char = text[i]
        if char == "*":
            # A run of stars inside a segment means the same as one star.
            while i + 1 < len(text) and text[i + 1] == "*":
                i += 1
            out.append("[^/]*")
        elif char == "?":
            out.append("[^/]")
        elif char == "[" and (end := text.find("]", i + 2)) != -1:
            body = text[i + 1 : end]
            negate = body[:1] in ("!", "^")
            body = body[1:] if negate else body
            out.append("[" + ("^/" if negate else "") + body.replace("\\", "\\\\") + "]")
            i = end
        elif char == "{" and (end := text.find("}", i)) != -1:
            options = text[i + 1 : end].split(",")
            out.append("(?:" + "|".join(_chars_regex(opt) for opt in options) + ")")
            i = end
        else:
            out.append(re.escape(char))
        i += 1
    return "".join(out)


@dataclass
class Walk:
    """A bounded walk below one folder of the root, depth first in name order.

    ``truncated`` tells whether the entry or time bound stopped it early.
    """

    sandbox: Sandbox
    max_entries: int
    deadline: float
    truncated: bool = False
    _seen_dirs: set[tuple[int, int]] = field(default_factory=set)

    def entries(self, start_real: str) -> Iterator[tuple[str, os.DirEntry[str]]]:
        """Yield ``(path relative to start, entry)`` for every entry inside the root."""
        visited = 0
        stack: list[tuple[str, str]] = [(start_real, "")]
        while stack:
            folder, prefix = stack.pop()
            if not self._first_visit(folder):
                continue
            try:
                with os.scandir(folder) as scan:
                    # Never read more of a folder than the entry bound allows: a folder with
                    # millions of entries would otherwise be loaded whole before the bound is checked.
                    found = sorted(
                        itertools.islice(scan, self.max_entries - visited + 1), key=lambda e: e.name
                    )
            except OSError:
                continue
            subdirs: list[tuple[str, str]] = []
            for entry in found:
                visited += 1
                if visited > self.max_entries or time.monotonic() > self.deadline:
                    self.truncated = True
                    return
                if entry.is_symlink() and not self.sandbox.contains_real(entry.path):
                    continue  # A link out of the root is invisible, never listed or followed.
                rel = prefix + entry.name
                yield rel, entry
                if _is_dir(entry):
                    subdirs.append((entry.path, rel + "/"))
            stack.extend(reversed(subdirs))

    def _first_visit(self, folder: str) -> bool:
        # A link to a parent folder inside the root would otherwise loop forever.
        try:
            info = os.stat(folder)
        except OSError:
            return False
        key = (info.st_dev, info.st_ino)
        if key in self._seen_dirs:
            return False
        self._seen_dirs.add(key)
        return True


def _is_dir(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_dir()
    except OSError:
        return False
