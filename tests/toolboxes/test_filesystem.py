"""Behaviour of ovos-filesystem-tools, reached through OPM the way a loop reaches it."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from ovos_plugin_manager.persona import find_toolbox_plugins
from ovos_plugin_manager.templates.agent_tools import ToolBox


@pytest.fixture(scope="module")
def toolbox_cls() -> type[ToolBox]:
    return find_toolbox_plugins()["ovos-filesystem-tools"]


@pytest.fixture
def make(toolbox_cls: type[ToolBox], sandbox_dirs: tuple[Path, Path]) -> Any:
    root, _ = sandbox_dirs

    def build(**config: Any) -> ToolBox:
        return toolbox_cls(config={"root_path": str(root), **config})

    return build


def cause(excinfo: pytest.ExceptionInfo[BaseException]) -> BaseException:
    """The tool's own exception, which OPM wraps in RuntimeError and the engine shows the model."""
    assert isinstance(excinfo.value, RuntimeError)
    assert excinfo.value.__cause__ is not None
    return excinfo.value.__cause__


def test_lists_all_five_tools_with_schemas(make: Any) -> None:
    tb = make()
    assert set(tb.tools) == {"read_file", "write_file", "list_directory", "search_in_files", "find_files"}
    schemas = {t["name"]: t["argument_schema"]["properties"] for t in tb.tool_json_list}
    assert set(schemas["read_file"]) == {"path", "offset", "limit"}
    assert set(schemas["search_in_files"]) == {"pattern", "path", "glob"}
    assert set(schemas["find_files"]) == {"glob", "path"}
    assert "DISABLED" in tb.tools["write_file"].description


def test_bad_config_is_a_clear_error(toolbox_cls: type[ToolBox], tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="not an existing folder"):
        toolbox_cls(config={"root_path": str(tmp_path / "missing")})
    with pytest.raises(ValueError, match="max_read_bytes"):
        toolbox_cls(config={"root_path": str(tmp_path), "max_read_bytes": -1})


def test_read_file_relative_and_absolute_inside_root(make: Any, sandbox_dirs: tuple[Path, Path]) -> None:
    root, _ = sandbox_dirs
    tb = make()
    out = tb.call_tool("read_file", {"path": "notes/todo.txt"})
    assert out.content == "buy milk\nTODO: call Ana\n"
    assert out.path == "notes/todo.txt"
    # a whole file: no byte size beside its lines (a six-line list was answered "37 items")
    assert (out.truncated, out.next_offset, out.size_bytes, out.line_count) == (False, None, None, 2)
    again = tb.call_tool("read_file", {"path": str(root / "notes" / "todo.txt")})
    assert again.content == out.content and again.path == "notes/todo.txt"


def test_read_file_pages_through_a_large_file(make: Any, sandbox_dirs: tuple[Path, Path]) -> None:
    root, _ = sandbox_dirs
    lines = [f"line {i:05d} é\n" for i in range(10000)]
    (root / "big.txt").write_text("".join(lines), encoding="utf-8")
    tb = make()
    out = tb.call_tool("read_file", {"path": "big.txt"})
    assert out.truncated and len(out.content.encode()) <= 65536
    assert out.content.endswith("\n"), "a page ends on a whole line"
    assert f"offset={out.next_offset}" in out.note
    text = out.content
    while out.next_offset is not None:
        out = tb.call_tool("read_file", {"path": "big.txt", "offset": out.next_offset, "limit": 100000})
        text += out.content
    assert text == "".join(lines)


def test_read_file_small_limit_never_splits_a_character(make: Any, sandbox_dirs: tuple[Path, Path]) -> None:
    root, _ = sandbox_dirs
    (root / "u.txt").write_text("ééééé", encoding="utf-8")  # 10 bytes, no newline
    tb = make()
    out = tb.call_tool("read_file", {"path": "u.txt", "limit": 3})
    assert out.content == "é" and out.next_offset == 2
    mid = tb.call_tool("read_file", {"path": "u.txt", "offset": 3, "limit": 5})
    assert mid.content == "éé" and mid.offset == 4


@pytest.mark.parametrize(
    ("asked", "suggested"),
    [
        ("note.txt", "'notes.txt'"),  # a letter missing
        ("report/q3.txt", "'report.txt'"),  # a folder that is really a file's name
        ("data/number.csv", "'data/numbers.csv'"),  # inside an existing folder
    ],
)
def test_a_missing_file_names_the_close_ones(
    make: Any, sandbox_dirs: tuple[Path, Path], asked: str, suggested: str
) -> None:
    root, _ = sandbox_dirs
    (root / "notes.txt").write_text("Budget: 4200 euros.\n")
    (root / "report.txt").write_text("Q3: fine.\n")
    (root / "data").mkdir(exist_ok=True)
    (root / "data" / "numbers.csv").write_text("a,b\n")
    with pytest.raises(RuntimeError) as excinfo:
        make().call_tool("read_file", {"path": asked})
    assert isinstance(cause(excinfo), FileNotFoundError)
    assert f"Similar names: {suggested}" in str(cause(excinfo))


def test_read_file_reports_binary_and_missing(make: Any, sandbox_dirs: tuple[Path, Path]) -> None:
    root, _ = sandbox_dirs
    (root / "img.bin").write_bytes(b"\x89PNG\x00\x01\x02" * 100)
    tb = make()
    out = tb.call_tool("read_file", {"path": "img.bin"})
    assert out.content == "" and "binary file (700 bytes)" in out.note
    with pytest.raises(RuntimeError) as excinfo:
        tb.call_tool("read_file", {"path": "notes/nope.txt"})
    assert isinstance(cause(excinfo), FileNotFoundError)
    assert "find_files" in str(cause(excinfo))
    with pytest.raises(RuntimeError) as excinfo:
        tb.call_tool("read_file", {"path": "notes"})
    assert "list_directory" in str(cause(excinfo))


def test_write_file_refused_when_not_allowed(make: Any, sandbox_dirs: tuple[Path, Path]) -> None:
    root, _ = sandbox_dirs
    tb = make()
    with pytest.raises(RuntimeError) as excinfo:
        tb.call_tool("write_file", {"path": "a.txt", "content": "x"})
    assert isinstance(cause(excinfo), PermissionError)
    assert "allow_write" in str(cause(excinfo))
    assert not (root / "a.txt").exists()


def test_write_file_creates_folders_and_replaces_atomically(
    make: Any, sandbox_dirs: tuple[Path, Path]
) -> None:
    root, _ = sandbox_dirs
    tb = make(allow_write=True)
    assert "DISABLED" not in tb.tools["write_file"].description
    out = tb.call_tool("write_file", {"path": "new/deep/a.txt", "content": "olá\n"})
    assert (out.path, out.bytes_written, out.created) == ("new/deep/a.txt", 5, True)
    assert (root / "new" / "deep" / "a.txt").read_text() == "olá\n"
    os.chmod(root / "notes" / "todo.txt", 0o640)
    again = tb.call_tool("write_file", {"path": "notes/todo.txt", "content": "done\n"})
    assert again.created is False
    assert (root / "notes" / "todo.txt").read_text() == "done\n"
    assert (root / "notes" / "todo.txt").stat().st_mode & 0o777 == 0o640, "permissions are kept"
    assert sorted(p.name for p in (root / "notes").iterdir()) == ["todo.txt"], "no temp file left"


def test_write_file_bounds_and_folder_target(make: Any) -> None:
    tb = make(allow_write=True, max_write_bytes=10)
    with pytest.raises(RuntimeError) as excinfo:
        tb.call_tool("write_file", {"path": "a.txt", "content": "x" * 11})
    assert "limit is 10" in str(cause(excinfo))
    with pytest.raises(RuntimeError) as excinfo:
        tb.call_tool("write_file", {"path": "notes", "content": "x"})
    assert isinstance(cause(excinfo), IsADirectoryError)


def test_write_through_link_inside_root_updates_the_target(
    make: Any, sandbox_dirs: tuple[Path, Path]
) -> None:
    root, _ = sandbox_dirs
    (root / "alias.txt").symlink_to("notes/todo.txt")
    tb = make(allow_write=True)
    out = tb.call_tool("write_file", {"path": "alias.txt", "content": "new\n"})
    assert out.path == "notes/todo.txt"
    assert (root / "alias.txt").is_symlink()
    assert (root / "notes" / "todo.txt").read_text() == "new\n"


def test_list_directory(make: Any, sandbox_dirs: tuple[Path, Path]) -> None:
    root, _ = sandbox_dirs
    (root / "a.md").write_text("a")
    (root / "b.txt").write_text("b")
    tb = make()
    out = tb.call_tool("list_directory", {"path": "."})
    assert out.entries == ["a.md", "b.txt", "notes/"]
    assert tb.call_tool("list_directory", {"path": ".", "pattern": "*.md"}).entries == ["a.md"]
    assert tb.call_tool("list_directory", {"path": "notes"}).entries == ["notes/todo.txt"]
    with pytest.raises(RuntimeError) as excinfo:
        tb.call_tool("list_directory", {"path": "b.txt"})
    assert "read_file" in str(cause(excinfo))
    with pytest.raises(RuntimeError) as excinfo:
        tb.call_tool("list_directory", {"path": ".", "pattern": "notes/*"})
    assert "find_files" in str(cause(excinfo))


def test_list_directory_is_bounded(make: Any, sandbox_dirs: tuple[Path, Path]) -> None:
    root, _ = sandbox_dirs
    for i in range(30):
        (root / f"f{i:02d}.txt").write_text("")
    out = make(max_results=5).call_tool("list_directory", {"path": "."})
    assert out.entries == [f"f{i:02d}.txt" for i in range(5)]
    assert out.total == 31 and out.truncated
    walk_bound = make(max_walk_entries=10).call_tool("list_directory", {"path": "."})
    assert len(walk_bound.entries) == 10 and walk_bound.truncated


def test_find_files_by_name_anywhere_and_by_path(make: Any, sandbox_dirs: tuple[Path, Path]) -> None:
    root, _ = sandbox_dirs
    (root / "docs" / "api").mkdir(parents=True)
    (root / "docs" / "index.md").write_text("")
    (root / "docs" / "api" / "ref.md").write_text("")
    (root / "readme.MD").write_text("")
    tb = make()
    assert tb.call_tool("find_files", {"glob": "*.md"}).files == ["docs/api/ref.md", "docs/index.md"]
    assert tb.call_tool("find_files", {"glob": "docs/*.md"}).files == ["docs/index.md"]
    assert tb.call_tool("find_files", {"glob": "docs/**/*.md"}).files == ["docs/api/ref.md", "docs/index.md"]
    assert tb.call_tool("find_files", {"glob": "*.{md,MD}"}).total == 3
    assert tb.call_tool("find_files", {"glob": "*.md", "path": "docs/api"}).files == ["docs/api/ref.md"]
    assert tb.call_tool("find_files", {"glob": "*.py"}).files == []


def test_search_in_files(make: Any, sandbox_dirs: tuple[Path, Path]) -> None:
    root, _ = sandbox_dirs
    (root / "src").mkdir()
    (root / "src" / "a.py").write_text("x = 1\n# todo: later\n# TODO now\n")
    (root / "blob.bin").write_bytes(b"TODO\x00")
    tb = make()
    out = tb.call_tool("search_in_files", {"pattern": "TODO"})
    assert [(m.file, m.line_number, m.line) for m in out.matches] == [
        ("notes/todo.txt", 2, "TODO: call Ana"),
        ("src/a.py", 3, "# TODO now"),
    ]
    assert "1 binary file(s) were skipped" in out.note
    assert tb.call_tool("search_in_files", {"pattern": "(?i)todo", "glob": "*.py"}).total == 2
    assert tb.call_tool("search_in_files", {"pattern": "milk", "path": "notes/todo.txt"}).total == 1
    # nothing found in the files a glob chose: the note says how to search them all (the bundled model
    # copied the description's '*.md' and said no file mentioned a word that was in a .txt)
    narrowed = tb.call_tool("search_in_files", {"pattern": "milk", "glob": "*.py"})
    assert narrowed.total == 0
    assert narrowed.note == (
        "no match in the 1 file(s) matching '*.py'; the files it left out: 1 .bin, 1 .txt; "
        "glob '*' searches every file"
    )
    none_there = tb.call_tool("search_in_files", {"pattern": "milk", "glob": "*.md"})
    assert none_there.note.startswith("no match in the 0 file(s) matching '*.md'; the files it left out: ")
    assert "glob '*'" not in tb.call_tool("search_in_files", {"pattern": "nowhere"}).note
    with pytest.raises(RuntimeError) as excinfo:
        tb.call_tool("search_in_files", {"pattern": "call("})
    assert "not a valid regular expression" in str(cause(excinfo))


def test_search_bounds_matches_line_length_and_file_size(make: Any, sandbox_dirs: tuple[Path, Path]) -> None:
    root, _ = sandbox_dirs
    (root / "many.txt").write_text("hit\n" * 50 + "x" * 1000 + "hit" + "y" * 1000 + "\n")
    (root / "huge.txt").write_text("hit\n" * 1000)
    tb = make(max_results=10, max_line_chars=50, max_search_file_bytes=3000)
    out = tb.call_tool("search_in_files", {"pattern": "hit", "glob": "many.txt"})
    assert out.total == 10 and out.truncated and "stopped after 10 matches" in out.note
    long_line = make(max_line_chars=50).call_tool("search_in_files", {"pattern": "xhity", "glob": "many.txt"})
    assert len(long_line.matches[0].line) <= 52 and "xhity" in long_line.matches[0].line
    skipped = tb.call_tool("search_in_files", {"pattern": "hit", "glob": "huge.txt"})
    assert skipped.total == 0 and "over 3000 bytes were not searched" in skipped.note


def test_read_file_counts_the_lines_a_list_has(make: Any, sandbox_dirs: tuple[Path, Path]) -> None:
    """A small model reading a six-item list answered "37 items": the count comes with the content."""
    root, _ = sandbox_dirs
    (root / "shopping.txt").write_text("milk\neggs\n\nbread\napples\ncheese\n  \ncoffee\n")
    assert make().call_tool("read_file", {"path": "shopping.txt"}).line_count == 6


def test_read_file_works_out_a_tables_number_columns(make: Any, sandbox_dirs: tuple[Path, Path]) -> None:
    """A small model added a week of seven expenses as "$15" for 140: the figures come with the table."""
    root, _ = sandbox_dirs
    (root / "expenses-week.csv").write_text(
        "day,amount\nmonday,12.40\ntuesday,8.75\nwednesday,23.10\nthursday,5.25\nfriday,31.50\n"
        "saturday,44.00\nsunday,15.00\n"
    )
    out = make().call_tool("read_file", {"path": "expenses-week.csv"})
    assert out.columns is not None and list(out.columns) == ["amount"]
    amount = out.columns["amount"]
    assert (amount.rows, amount.sum, amount.mean, amount.min, amount.max) == (7, 140, 20, 5.25, 44)
    assert (amount.min_row, amount.max_row) == ("thursday", "saturday")


@pytest.mark.parametrize(
    ("name", "text", "figures"),
    [
        ("prices.csv", "item;price\nbread;1,20 €\nmilk;0,95 €\n", {"price": (2, 2.15)}),
        ("scores.tsv", "name\tscore\tnote\nana\t72\tgood\nben\t85\t\n", {"score": (2, 157)}),
        ("money.csv", "what,amount\nrent,$950\npower,$64.50\n", {"amount": (2, 1014.5)}),
    ],
)
def test_read_file_reads_number_cells_as_tables_write_them(
    make: Any, sandbox_dirs: tuple[Path, Path], name: str, text: str, figures: dict[str, tuple[int, float]]
) -> None:
    root, _ = sandbox_dirs
    (root / name).write_text(text)
    out = make().call_tool("read_file", {"path": name})
    assert {k: (v.rows, v.sum) for k, v in (out.columns or {}).items()} == figures


@pytest.mark.parametrize(
    ("name", "text", "why"),
    [
        ("notes.txt", "a,b\n1,2\n", "not a table"),
        ("numbers.csv", "1,2\n3,4\n", "no header row"),
        ("names.csv", "name,city\nana,porto\n", "no number column"),
        ("mixed.csv", "name,age\nana,31\nben,unknown\n", "a cell that is no number"),
    ],
)
def test_read_file_gives_no_figures_it_cannot_stand_behind(
    make: Any, sandbox_dirs: tuple[Path, Path], name: str, text: str, why: str
) -> None:
    root, _ = sandbox_dirs
    (root / name).write_text(text)
    assert make().call_tool("read_file", {"path": name}).columns is None, why


def test_read_file_gives_no_figures_for_part_of_a_table(make: Any, sandbox_dirs: tuple[Path, Path]) -> None:
    root, _ = sandbox_dirs
    (root / "long.csv").write_text("n,v\n" + "".join(f"r{i},{i}\n" for i in range(200)))
    assert make().call_tool("read_file", {"path": "long.csv", "limit": 100}).columns is None


def test_read_file_returns_a_table_the_csv_reader_cannot_read_without_figures(
    make: Any, sandbox_dirs: tuple[Path, Path]
) -> None:
    """A cell over the csv module's field limit: the text is still read, the figures are left out."""
    root, _ = sandbox_dirs
    (root / "wide.csv").write_text("name,amount\nrent," + "9" * 200_000 + "\n")
    out = make(max_read_bytes=300_000).call_tool("read_file", {"path": "wide.csv"})
    assert out.columns is None and out.content.startswith("name,amount")
