"""A file as an operand: a calculator call that names a file the turn has read (or a column of
it: ``sum(expenses.amount)``), instead of its numbers.

Asked "whats the average score in scores dot csv", the bundled model called the calculator
with ``mean(scores.csv)``, was told to read the file first and write its numbers, read it, and
then sent ``mean(scores.csv)`` twice more; the forced answer then guessed 79.8 (spoken suite,
tune half). The loop has the file's content: the call is not run, and the model is given the
numbers of that file, once per turn (the table's budget).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ovos_agentic_loop._rules.base import Need, Nudge, Response, Rule, Stage
from ovos_agentic_loop._rules.view import TurnView
from ovos_agentic_loop._text.numbers import field_numbers

__all__ = ["FILE_OPERAND", "MAX_LISTED_NUMBERS"]

#: Most numbers of a file listed back; a longer file is pointed to without them.
MAX_LISTED_NUMBERS = 60

# A file name inside an expression: a word, a dot, a word that starts with a letter
# (``scores.csv``, ``data/q1.txt``, ``expenses.amount``; never ``2.5``). Only a name that is a
# file this turn read counts (``math.sqrt`` is none).
_FILE_NAME = re.compile(r"(?<![\w.])[\w\-/]*\w\.[A-Za-z]\w*")


@dataclass(frozen=True)
class FileInExpression:
    """A calculator call whose expression names a file this turn read, and the file's numbers."""

    name: str
    path: str
    calculator: str
    numbers: tuple[str, ...]


def _detect(view: TurnView) -> FileInExpression | None:
    calculator, reader = view.calculator, view.reader
    calculating, reading = view.role("calculator"), view.role("reader")
    if calculator is None or reader is None or calculating is None or reading is None:
        return None
    for call in view.calls:
        arguments = call.arguments if isinstance(call.arguments, dict) else {}
        expression = arguments.get(calculating.argument)
        if call.name != calculator or not isinstance(expression, str):
            continue
        for name in _FILE_NAME.findall(expression):
            read = _read_file(view, reader, reading.argument, name)
            if read is None:
                continue
            path, content = read
            found = field_numbers(content)
            if not found or len(found) > MAX_LISTED_NUMBERS:
                continue  # nothing, or too much, to list: the calculator's own error stands
            return FileInExpression(name, path, calculator, tuple(found))
    return None


def _respond(found: FileInExpression) -> Response:
    path, calculator = found.path, found.calculator
    return Nudge(
        FILE_OPERAND.description,
        f"Not run: {found.name} names the file {path}; {calculator} calculates only with "
        f"numbers written out. The numbers in {path} are: {', '.join(found.numbers)}. Call "
        f"{calculator} again with the numbers the question needs written into the expression.",
    )


FILE_OPERAND: Rule[FileInExpression] = Rule(
    "file_operand",
    Stage.BEFORE_CALL,
    _detect,
    _respond,
    description="a file name where its numbers belong",
    needs=frozenset({Need.CALCULATOR, Need.READER}),
)


def _read_file(view: TurnView, reader: str, argument: str, name: str) -> tuple[str, str] | None:
    """The path and content of the file this turn read that ``name`` names: its path, its last
    part (``scores.csv``), or its stem with a column after it (``expenses.amount``: written
    like a table library's column, for expenses.csv)."""
    wanted = name.rsplit("/", 1)[-1]
    for outcome in view.outcomes.values():
        output = outcome.output
        if not outcome.ok or outcome.call.name != reader or not isinstance(output, dict):
            continue
        arguments = outcome.call.arguments if isinstance(outcome.call.arguments, dict) else {}
        path = str(output.get("path") or arguments.get(argument) or "")
        last = path.rsplit("/", 1)[-1]
        content = output.get("content")
        if isinstance(content, str) and (wanted == last or wanted.split(".")[0] == last.split(".")[0]):
            return path, content
    return None
