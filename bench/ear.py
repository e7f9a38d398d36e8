"""Judging an answer by ear: what a voice could not say well, though the right value is in it.

An answer passes its check as text when the right number or words are in it; by ear it must also
hold no formula or worked solution ("250 Euro + (250 Euro * 19 / 100) = 297.5"), no LaTeX or
markdown ("\\(5 - 32\\)", "**42**", "# Result", a code span), no number in scientific notation
("9.0e-06") or exponent mark, and none of the loop's own scaffolding as the answer ("The result
was: 352.5."). A TTS reads each of those symbol by symbol. Judged on the text the system gave:
through ``stream_sentences`` (``--stream``) that is what ovos-persona speaks; else the text
``continue_chat`` returned, which a host may still send to a voice.

Not judged: a second value for the same quantity ("41 °F (or 23)"), which the checks' ``reject``
lists catch where a task names the wrong value.
"""

from __future__ import annotations

import re

__all__ = ["unsayable"]

_CHECKS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("latex", re.compile(r"\\[a-zA-Z]{2,}|\\[(\[]|\$[^$\n]+\$")),
    ("markdown", re.compile(r"\*\*|__\w|`|^\s{0,3}#{1,6}\s|^\s*[-*]\s+\S|^\s*\|.*\|\s*$", re.MULTILINE)),
    # digits, an operator, digits, then "=" and a number: a calculation written out
    (
        "formula",
        re.compile(r"\d(?:[\w ]|\.\d){0,12}?(?:[+*/×÷^]| - )\s*\(?\s*\d(?:[^=\n.;]|\.\d){0,60}=\s*-?\(?\d"),
    ),
    ("exponent", re.compile(r"(?<![\w.])\d+(?:\.\d+)?[eE][+-]?\d+\b|\d\s*\^\s*\d|\d\*\*\d")),
    (
        "scaffolding",
        re.compile(r"\bThe result was:|^\s*(?:Observation|Action|Thought|Final Answer)\s*:", re.I | re.M),
    ),
)


def unsayable(answer: str) -> str | None:
    """Why a voice could not say ``answer`` well (the first check it fails), or None."""
    for why, pattern in _CHECKS:
        if pattern.search(answer):
            return why
    return None
