"""A file as an operand: a calculator call that names a file the turn has read, instead of its
numbers.

Asked "whats the average score in scores dot csv", the bundled model called the calculator
with ``mean(scores.csv)``, was told to read the file first and write its numbers, read it, and
then sent ``mean(scores.csv)`` twice more; the forced answer then guessed 79.8 (spoken suite,
tune half). The loop has the file's content: the call is not run, and the model is given the
numbers of that file, once per turn (the table's budget).
"""

from __future__ import annotations

import re

from ovos_plugin_manager.templates.agents import ToolCall

from ovos_agentic_loop._reactions.text import field_numbers
from ovos_agentic_loop._reactions.view import TurnView

__all__ = ["MAX_LISTED_NUMBERS", "FileOperand"]

#: Most numbers of a file listed back; a longer file is pointed to without them.
MAX_LISTED_NUMBERS = 60

# A file name inside an expression: a word, a dot, an extension that starts with a letter
# (``scores.csv``, ``data/q1.txt``; never ``2.5``).
_FILE_NAME = re.compile(r"(?<![\w.])[\w\-/]*\w\.[A-Za-z][A-Za-z0-9]{0,4}\b")


class FileOperand:
    """Judges a reply's calls before they run (the answer reactions judge finished answers)."""

    name = "a file name where its numbers belong"

    def check(self, view: TurnView, calls: list[ToolCall]) -> str | None:
        calculator, reader = view.calculator, view.reader
        if calculator is None or reader is None:
            return None
        for call in calls:
            expression = call.arguments.get("expression") if isinstance(call.arguments, dict) else None
            if call.name != calculator or not isinstance(expression, str):
                continue
            for name in _FILE_NAME.findall(expression):
                content = _read_content(view, reader, name)
                if content is None:
                    continue
                found = field_numbers(content)
                if not found or len(found) > MAX_LISTED_NUMBERS:
                    return None
                return (
                    f"Not run: {name} is a file name; {calculator} calculates only with numbers "
                    f"written out. The numbers in {name} are: {', '.join(found)}. Call {calculator} "
                    "again with the numbers the question needs written into the expression."
                )
        return None


def _read_content(view: TurnView, reader: str, name: str) -> str | None:
    """The content this turn read from the file called ``name`` (its path, or its last part)."""
    for outcome in view.outcomes.values():
        output = outcome.output
        if not outcome.ok or outcome.call.name != reader or not isinstance(output, dict):
            continue
        arguments = outcome.call.arguments if isinstance(outcome.call.arguments, dict) else {}
        path = str(output.get("path") or arguments.get("path") or "")
        if path == name or path.rsplit("/", 1)[-1] == name.rsplit("/", 1)[-1]:
            content = output.get("content")
            return content if isinstance(content, str) else None
    return None
