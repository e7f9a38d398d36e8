"""A copied example: a call whose argument is an example quoted in the tool's own description.

With its results in hand, the bundled model went on calling tools with their descriptions'
examples: ``solve_equation("x^2 - 5x + 6 = 0")`` and ``("2x + 3 = 7")`` after answering "twenty
five percent of three hundred and twenty" (spoken suite, tune half); the forced answer then got
the example's solution said beside the right one. An example is an argument value of at least
five characters with a digit in it ('15% of 80', '2x + 3 = 7'), quoted in the tool's description or
a parameter's; the call is not run when the user's question does not hold that text itself.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from ovos_agentic_loop._rules.base import Nudge, Response, Rule, Stage
from ovos_agentic_loop._rules.view import TurnView
from ovos_agentic_loop._tools.spec import ToolSpec

__all__ = ["COPIED_EXAMPLE", "quoted_examples"]

_QUOTED = re.compile(r"'([^'\n]{5,80})'|\"([^\"\n]{5,80})\"")


def _plain(text: str) -> str:
    return " ".join(text.lower().split())


@lru_cache(maxsize=256)
def _examples_of(description: str, parameter_texts: tuple[str, ...]) -> frozenset[str]:
    found = set()
    for text in (description, *parameter_texts):
        for single, double in _QUOTED.findall(text):
            example = _plain(single or double)
            if any(ch.isdigit() for ch in example):
                found.add(example)
    return frozenset(found)


def quoted_examples(tool: ToolSpec) -> frozenset[str]:
    """The examples with a digit in them that ``tool``'s description and parameters quote."""
    texts = tuple(str(p.get("description", "")) for p in tool.properties.values() if isinstance(p, dict))
    return _examples_of(tool.description, texts)


@dataclass(frozen=True)
class Copied:
    """A call's argument ``value``: the example in ``tool``'s description, not the user's."""

    value: str
    tool: str


def _detect(view: TurnView) -> Copied | None:
    question = _plain(view.question)
    for call in view.calls:
        tool = view.tools.get(call.name)
        if tool is None or not isinstance(call.arguments, dict):
            continue
        examples = quoted_examples(tool)
        for value in call.arguments.values():
            if isinstance(value, str) and _plain(value) in examples and _plain(value) not in question:
                return Copied(value, call.name)
    return None


def _respond(found: Copied) -> Response:
    return Nudge(
        COPIED_EXAMPLE.description,
        f"Not run: {found.value!r} is the example in {found.tool}'s description, not something "
        "the user asked. Answer the user's question with the results you have, or call "
        "a tool with the user's own values.",
    )


COPIED_EXAMPLE: Rule[Copied] = Rule(
    "copied_example", Stage.BEFORE_CALL, _detect, _respond, description="a tool description's example"
)
