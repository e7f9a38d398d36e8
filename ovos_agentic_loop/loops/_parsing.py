"""Tolerant readers for what small models write when asked for a list, a verdict or scores."""

from __future__ import annotations

import re

from ovos_agentic_loop._text.protocol import clean_answer

__all__ = ["parse_items", "parse_scores", "parse_verdict"]

# "1. x", "1) x", "Step 1: x", "- x", "* x", "• x", "**1.** x"
_ITEM = re.compile(
    r"^\s*(?:[*_]{0,2})(?:(?:step\s*)?\d{1,2}\s*[.):\-]|[-*•])(?:[*_]{0,2})\s+(?P<text>\S.*)$",
    re.IGNORECASE,
)
_HEADER = re.compile(r"^\s*(?:here(?:'s| is)|plan|steps?|the plan)\b.*:\s*$", re.IGNORECASE)
_PROTOCOL_START = re.compile(r"^\s*(?:action|action input|observation|final answer)\s*:", re.IGNORECASE)


def parse_items(text: str, *, limit: int) -> list[str]:
    """The items of a numbered or bulleted list (at most ``limit``), in order.

    Accepts ``1.``/``1)``/``Step 1:``/bullets, markdown bold around numbers, a header
    line, a code fence, and items that run over several lines (continuation lines are
    joined). A reply with no list marker at all but a few short lines counts each line
    as an item; one long paragraph is no list (the caller decides what that means).
    """
    text = re.sub(r"```[a-z]*", "", text or "")
    items: list[str] = []
    unmarked: list[str] = []
    for raw in text.splitlines():
        line = raw.strip()
        if not line or _HEADER.match(line) or _PROTOCOL_START.match(line):
            continue
        match = _ITEM.match(line)
        if match:
            items.append(_tidy(match.group("text")))
        elif items and raw[:1].isspace():  # an indented continuation of the last item
            items[-1] = f"{items[-1]} {_tidy(line)}"
        elif not items:
            unmarked.append(_tidy(line))
    if not items and 2 <= len(unmarked) <= limit and all(len(u) <= 200 for u in unmarked):
        items = unmarked
    return [i for i in items if i][:limit]


def _tidy(text: str) -> str:
    return text.strip().strip("*_").strip()


_VERDICT_OK = re.compile(
    r"\b(?:satisfactory|correct|verified|complete|ok|okay|yes|good|accurate)\b", re.IGNORECASE
)
# "No problems found" is an approval, though it starts with "no".
_NO_PROBLEMS = re.compile(r"\bno\s+(?:problems?|issues?|errors?|mistakes?)\b", re.IGNORECASE)
_VERDICT_BAD = re.compile(
    r"\b(?:unsatisfactory|incorrect|wrong|incomplete|inaccurate|missing|not (?:correct|complete|ok|"
    r"satisfactory|accurate)|no\b|error|mistake|fails?)\b",
    re.IGNORECASE,
)


def parse_verdict(text: str) -> bool | None:
    """Whether a judge's reply accepts (True), rejects (False) or is unreadable (None).

    The first line decides when it says one thing; ``UNSATISFACTORY`` is never read as
    ``SATISFACTORY``; a reply that says both on its first line is a rejection (a small
    model hedging is not an approval).
    """
    for line in (clean_answer(text) or text or "").splitlines():
        line = line.strip().strip("*_#>").strip()
        if not line:
            continue
        head = re.sub(r"^(?:verdict|answer|evaluation|result)\s*[:\-]\s*", "", line, flags=re.IGNORECASE)
        head = _NO_PROBLEMS.sub("ok", head)
        bad, ok = _VERDICT_BAD.search(head), _VERDICT_OK.search(head)
        if bad:
            return False
        if ok:
            return True
        return None
    return None


_SCORE_LINE = re.compile(
    r"^\s*(?:candidate\s*)?#?(\d{1,2})\s*[.):\-=]\s*(\d{1,2}(?:\.\d+)?)\b", re.IGNORECASE
)
_NUMBER = re.compile(r"\b(\d{1,2}(?:\.\d+)?)\s*(?:/\s*10)?\b")


def parse_scores(text: str, count: int) -> list[float] | None:
    """Scores 0-10 for ``count`` candidates: ``1: 7`` lines, or the first ``count`` numbers.

    None when the reply holds too few numbers to say anything (the caller keeps its order).
    """
    by_index: dict[int, float] = {}
    for line in (text or "").splitlines():
        match = _SCORE_LINE.match(line)
        if match and 1 <= int(match.group(1)) <= count:
            by_index.setdefault(int(match.group(1)) - 1, float(match.group(2)))
    if len(by_index) == count:
        return [min(10.0, by_index[i]) for i in range(count)]
    numbers = [float(n) for n in _NUMBER.findall(text or "")]
    numbers = [n for n in numbers if 0 <= n <= 10]
    if len(numbers) >= count:
        return numbers[:count]
    return None
