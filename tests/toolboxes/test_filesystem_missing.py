"""read_file on a file that does not exist ("Tools that do what the model means", facts from files).

The error must say plainly that the file does not exist, by its path, and may name files with a
similar name; those are other files, and the error says so, so that the model tells the user the
file is missing instead of reading a neighbour's value as the answer. Reached through ``call_tool``,
the way a loop reaches the toolbox."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from ovos_plugin_manager.persona import find_toolbox_plugins
from ovos_plugin_manager.templates.agent_tools import ToolBox


@pytest.fixture
def tb(tmp_path: Path) -> ToolBox:
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "budgets.txt").write_text("Budget: 4200 euros.\n")
    (tmp_path / "notes" / "todo.txt").write_text("buy milk\n")
    return find_toolbox_plugins()["ovos-filesystem-tools"](config={"root_path": str(tmp_path)})


def missing(tb: ToolBox, **kwargs: Any) -> str:
    with pytest.raises(RuntimeError) as excinfo:
        tb.call_tool("read_file", kwargs)
    reason = excinfo.value.__cause__
    assert isinstance(reason, FileNotFoundError)  # the kind the loop and its logs see
    return str(reason)


def test_a_missing_file_with_a_similar_neighbour_is_said_missing_and_the_neighbour_another_file(
    tb: ToolBox,
) -> None:
    reason = missing(tb, path="notes/budget.txt")
    assert reason.startswith("file 'notes/budget.txt' does not exist.")
    assert "Similar names: 'notes/budgets.txt'" in reason
    # The neighbour is named as another file, and what to say instead of reading it is given.
    assert "other files, not this one" in reason
    assert "If the user named 'notes/budget.txt', tell them it does not exist" in reason
    assert "send path as one of those" in reason


def test_a_missing_file_with_no_neighbour_says_what_to_send(tb: ToolBox) -> None:
    reason = missing(tb, path="notes/expenses.csv")
    assert reason.startswith("file 'notes/expenses.csv' does not exist.")
    assert "Similar names" not in reason
    assert "If the user named 'notes/expenses.csv', tell them it does not exist" in reason
    assert "send path as one that find_files or list_directory shows" in reason


def test_a_missing_folder_is_said_missing_by_the_whole_path(tb: ToolBox) -> None:
    reason = missing(tb, path="reports/q3.txt")
    assert reason.startswith("file 'reports/q3.txt' does not exist.")


def test_the_neighbour_is_not_read_in_its_place(tb: ToolBox) -> None:
    # Nothing of the similar file's content reaches the model through the error.
    assert "4200" not in missing(tb, path="notes/budget.txt")


@pytest.mark.parametrize(
    "written", ["notes/todo.dot.txt", "notes/todo dot txt", "notes/todo_dot_txt", "notes/todo DOT txt"]
)
def test_a_file_named_aloud_is_read_when_its_dot_was_written_as_a_word(tb: ToolBox, written: str) -> None:
    # "whats on my todo dot txt": the model wrote the spoken 'dot' into the path
    out = tb.call_tool("read_file", {"path": written})
    assert out.path == "notes/todo.txt" and out.content == "buy milk\n"
    assert "'notes/todo.txt', the file named aloud" in out.note


def test_a_file_whose_name_holds_dot_is_read_as_it_is(tb: ToolBox, tmp_path: Path) -> None:
    (tmp_path / "polka-dot-dress.txt").write_text("red\n")
    (tmp_path / "polka.dress.txt").write_text("blue\n")
    assert tb.call_tool("read_file", {"path": "polka-dot-dress.txt"}).content == "red\n"


def test_a_spoken_dot_with_no_such_file_is_still_said_missing(tb: ToolBox) -> None:
    assert missing(tb, path="notes/plans.dot.txt").startswith("file 'notes/plans.dot.txt' does not exist.")


@pytest.mark.parametrize(
    "written",
    [
        "expenses week.csv",
        "expenses week dot csv",
        "expenses_week.csv",
        "Expenses Week.csv",
        "expensesweek.csv",
        "expenses/week.csv",  # a spoken separator written as a folder that is not there
    ],
)
def test_a_file_named_aloud_is_read_whatever_joins_its_words(
    tb: ToolBox, tmp_path: Path, written: str
) -> None:
    # speech has no hyphen: "expenses week dot csv" names expenses-week.csv
    (tmp_path / "expenses-week.csv").write_text("day,amount\nmonday,12.40\n")
    out = tb.call_tool("read_file", {"path": written})
    assert out.path == "expenses-week.csv" and out.content.startswith("day,amount")
    assert f"{written!r} does not exist; read 'expenses-week.csv'" in out.note


def test_two_files_that_differ_only_in_separators_are_not_guessed_between(
    tb: ToolBox, tmp_path: Path
) -> None:
    (tmp_path / "expenses-week.csv").write_text("a\n")
    (tmp_path / "expenses_week.csv").write_text("b\n")
    assert missing(tb, path="expenses week.csv").startswith("file 'expenses week.csv' does not exist.")
    assert missing(tb, path="expenses/week.csv").startswith("file 'expenses/week.csv' does not exist.")
