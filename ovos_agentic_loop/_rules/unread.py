"""An unread file: the question names a file and the answer comes without any call of this
turn touching it, while a file-reading tool is loaded.

The loop reads the file itself and the model answers again (the made-up answer is dropped).
Told to read it, the bundled model answered "I have not read notes.txt" or "I don't have the
ability to read files". Any call whose arguments name the file counts (read, search, a command).
"""

from __future__ import annotations

import re

from ovos_agentic_loop._rules.base import MakeCall, Need, Response, Rule, Stage
from ovos_agentic_loop._rules.view import TurnView

__all__ = ["UNREAD_FILE", "named_files", "unread_file"]

_EXTENSIONS = r"(?:txt|csv|json|log|md|ya?ml|xml|ini|cfg|conf|toml|tsv|html?)"
# A file named in a question: notes.txt, data/numbers.csv, logs/app.log.
_FILE_NAME = re.compile(rf"(?<![\w/.-])((?:[\w-]+/)*[\w-]+\.{_EXTENSIONS})\b", re.IGNORECASE)
# The same name as speech-to-text writes it: "expenses dot csv" is expenses.csv (the spoken suite
# asks every file question so, and the made-up answers to them went unnoticed).
_SPOKEN_FILE_NAME = re.compile(rf"(?<![\w/.-])([\w-]+) dot ({_EXTENSIONS})\b", re.IGNORECASE)


def named_files(question: str) -> list[str]:
    """The file names ``question`` holds, written or spoken."""
    written = _SPOKEN_FILE_NAME.sub(r"\1.\2", question)
    return _FILE_NAME.findall(written)


def unread_file(view: TurnView) -> tuple[str, str, str] | None:
    """(reader tool, its path argument, file) when the question names a file that no call of this
    turn touched."""
    reader, role = view.reader, view.role("reader")
    if reader is None or role is None:
        return None
    for name in named_files(view.question):
        if name.rsplit("/", 1)[-1] not in view.call_arguments:
            return reader, role.argument, name
    return None


def _respond(found: tuple[str, str, str]) -> Response:
    reader, argument, name = found
    return MakeCall(f"{name} was not read", reader, {argument: name})


UNREAD_FILE: Rule[tuple[str, str, str]] = Rule(
    "unread_file",
    Stage.ON_ANSWER,
    lambda view: unread_file(view),
    _respond,
    description="an unread file",
    needs=frozenset({Need.READER}),
    holds_stream=True,  # the answer is judged without looking at it: known before it streams
    may_apply=lambda view: unread_file(view) is not None,
)
