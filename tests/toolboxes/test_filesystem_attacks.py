"""Attacks on ovos-filesystem-tools: each is refused (or matches nothing) and nothing outside changes."""

from __future__ import annotations

import os
import time  # "fast" is this thread's CPU time: a busy machine stretches wall time, not CPU time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from ovos_plugin_manager.persona import find_toolbox_plugins
from ovos_plugin_manager.templates.agent_tools import ToolBox

Snapshot = Callable[[Path], dict[str, str | bytes]]

ESCAPES = [
    "../outside/secret.txt",
    "notes/../../outside/secret.txt",
    "./../outside/secret.txt",
    "OUTSIDE_ABS",
    "/etc/passwd",
    "~/secret.txt",
    "link_dir/secret.txt",
    "link_file.txt",
    "notes/\x00../../outside/secret.txt",
]


@pytest.fixture(scope="module")
def toolbox_cls() -> type[ToolBox]:
    return find_toolbox_plugins()["ovos-filesystem-tools"]


@pytest.fixture
def world(
    toolbox_cls: type[ToolBox], sandbox_dirs: tuple[Path, Path], tree_snapshot: Snapshot
) -> Iterator[tuple[ToolBox, Path, Path]]:
    """A writable toolbox whose root holds links out; asserts after each test that outside is unchanged."""
    root, outside = sandbox_dirs
    (root / "link_dir").symlink_to(outside, target_is_directory=True)
    (root / "link_file.txt").symlink_to(outside / "secret.txt")
    (root / "dangling.txt").symlink_to(outside / "not-yet.txt")
    before = tree_snapshot(outside)
    yield toolbox_cls(config={"root_path": str(root), "allow_write": True}), root, outside
    assert tree_snapshot(outside) == before, "something outside the root changed"


def escape(path: str, outside: Path) -> str:
    return str(outside / "secret.txt") if path == "OUTSIDE_ABS" else path


def refused(tb: ToolBox, name: str, kwargs: dict[str, Any]) -> BaseException:
    with pytest.raises(RuntimeError) as excinfo:
        tb.call_tool(name, kwargs)
    error = excinfo.value.__cause__
    assert isinstance(error, (PermissionError, ValueError)), repr(error)
    assert "secret" not in str(error).replace("secret.txt", ""), "the error leaks no content"
    return error


@pytest.mark.parametrize("path", ESCAPES)
def test_read_escape_is_refused(world: tuple[ToolBox, Path, Path], path: str) -> None:
    tb, _, outside = world
    error = refused(tb, "read_file", {"path": escape(path, outside)})
    assert "relative to the root" in str(error) or "NUL" in str(error)


@pytest.mark.parametrize("path", [*ESCAPES, "dangling.txt", "link_dir/new/x.txt"])
def test_write_escape_is_refused(world: tuple[ToolBox, Path, Path], path: str) -> None:
    tb, _, outside = world
    refused(tb, "write_file", {"path": escape(path, outside), "content": "pwned"})
    assert not (outside / "not-yet.txt").exists()
    assert not (outside / "new").exists()


@pytest.mark.parametrize("tool", ["list_directory", "search_in_files", "find_files"])
@pytest.mark.parametrize("path", ["..", "../outside", "link_dir", "OUTSIDE_ABS", "/"])
def test_folder_argument_escape_is_refused(world: tuple[ToolBox, Path, Path], tool: str, path: str) -> None:
    tb, _, outside = world
    kwargs: dict[str, Any] = {"path": str(outside) if path == "OUTSIDE_ABS" else path}
    kwargs |= {"pattern": "secret"} if tool == "search_in_files" else {}
    kwargs |= {"glob": "*"} if tool == "find_files" else {}
    refused(tb, tool, kwargs)


@pytest.mark.parametrize(
    "glob", ["../**/*", "**/../../outside/*", "../outside/secret.txt", "/tmp/**", "a/\x00b"]
)
def test_climbing_glob_is_refused(world: tuple[ToolBox, Path, Path], glob: str) -> None:
    tb, _, _ = world
    refused(tb, "find_files", {"glob": glob})
    refused(tb, "search_in_files", {"pattern": "secret", "glob": glob})
    refused(tb, "list_directory", {"path": ".", "pattern": glob})


def test_links_out_are_invisible_to_walks(world: tuple[ToolBox, Path, Path]) -> None:
    tb, _, _ = world
    assert tb.call_tool("find_files", {"glob": "**"}).files == ["notes/todo.txt"]
    assert tb.call_tool("search_in_files", {"pattern": "secret"}).total == 0
    assert tb.call_tool("list_directory", {"path": "."}).entries == ["notes/"]


def test_link_loop_inside_root_terminates(world: tuple[ToolBox, Path, Path]) -> None:
    tb, root, _ = world
    (root / "notes" / "again").symlink_to(root, target_is_directory=True)
    assert tb.call_tool("find_files", {"glob": "todo.txt"}).files == ["notes/todo.txt"]


def test_huge_file_read_is_bounded(world: tuple[ToolBox, Path, Path]) -> None:
    tb, root, _ = world
    with open(root / "huge.log", "wb") as handle:
        handle.truncate(2 * 1024**3)  # sparse: 2 GiB of zero bytes costs no disk
    (root / "huge.txt").write_bytes(b"x" * (3 * 1024 * 1024))
    out = tb.call_tool("read_file", {"path": "huge.log"})
    assert out.content == "" and "binary" in out.note
    text = tb.call_tool("read_file", {"path": "huge.txt", "limit": 10**9})
    assert len(text.content) == 65536 and text.next_offset == 65536
    assert tb.call_tool("search_in_files", {"pattern": "x", "glob": "huge.*"}).files_searched == 0


def test_catastrophic_regex_returns_quickly(world: tuple[ToolBox, Path, Path]) -> None:
    tb, root, _ = world
    (root / "evil.txt").write_text("ok line\n" + "a" * 30000 + "!\n")
    started = time.thread_time()
    out = tb.call_tool("search_in_files", {"pattern": "(a+)+$"})
    assert time.thread_time() - started < 4
    assert out.truncated and "ran out of time" in out.note


def test_special_files_are_not_read(world: tuple[ToolBox, Path, Path]) -> None:
    tb, root, _ = world
    os.mkfifo(root / "pipe")
    error = None
    with pytest.raises(RuntimeError) as excinfo:
        tb.call_tool("read_file", {"path": "pipe"})
    error = excinfo.value.__cause__
    assert "regular file" in str(error)
    assert tb.call_tool("search_in_files", {"pattern": "x"}).total == 0  # and does not block on the FIFO


def test_write_over_link_out_keeps_outside_intact(world: tuple[ToolBox, Path, Path]) -> None:
    tb, root, outside = world
    refused(tb, "write_file", {"path": "link_file.txt", "content": "pwned"})
    assert (root / "link_file.txt").is_symlink()
    assert (outside / "secret.txt").read_text() == "the secret\n"


def test_oversized_glob_and_pattern_are_refused(world: tuple[ToolBox, Path, Path]) -> None:
    tb, _, _ = world
    refused(tb, "find_files", {"glob": "*" * 500})
    refused(tb, "search_in_files", {"pattern": "a" * 1000})


# --- found in the adversarial audit ----------------------------------------------------------


@pytest.mark.timeout(20)
@pytest.mark.parametrize("tool", ["find_files", "list_directory", "search_in_files"])
def test_backtracking_glob_cannot_freeze_the_process(world: tuple[ToolBox, Path, Path], tool: str) -> None:
    # '*a*a*a*a*a*a*a*a*b' against a long run of 'a's backtracks for minutes in 're', which holds
    # the GIL the whole time: the assistant would freeze. Globs now run on 'regex' with a deadline.
    tb, root, _ = world
    (root / ("a" * 60)).write_text("x\n")
    glob = "*a" * 8 + "*b"
    kwargs: dict[str, Any] = {
        "find_files": {"glob": glob},
        "list_directory": {"path": ".", "pattern": glob},
        "search_in_files": {"pattern": "x", "glob": glob},
    }[tool]
    started = time.thread_time()
    tb.call_tool(tool, kwargs)
    assert time.thread_time() - started < 3


def test_stacked_double_stars_do_not_backtrack(world: tuple[ToolBox, Path, Path]) -> None:
    tb, root, _ = world
    deep = root.joinpath(*["d"] * 25)
    deep.mkdir(parents=True)
    (deep / "f.txt").write_text("x\n")
    started = time.thread_time()
    assert tb.call_tool("find_files", {"glob": "**/" * 20 + "f.txt"}).files == [
        "/".join(["d"] * 25) + "/f.txt"
    ]
    assert tb.call_tool("find_files", {"glob": "**/d/" * 20 + "x.txt"}).files == []
    assert time.thread_time() - started < 3


@pytest.mark.timeout(20)
@pytest.mark.parametrize(
    "pattern",
    ["a{1000000000}", "((((a{100}){100}){100}){100})", "(?:x{1000}){1000}", "(?x)a {1000000000}", "(?V1)a"],
)
def test_pattern_that_unrolls_to_gigabytes_is_refused(
    world: tuple[ToolBox, Path, Path], pattern: str
) -> None:
    # The regex timeout covers matching, not compiling: 'regex' unrolls counted repeats at compile
    # time, so 'a{1000000000}' alone, compiled, would allocate hundreds of gigabytes.
    tb, _, _ = world
    started = time.thread_time()
    error = refused(tb, "search_in_files", {"pattern": pattern})
    assert time.thread_time() - started < 1
    assert "repeats too much" in str(error) or "not supported" in str(error)


def test_ordinary_counted_repeats_still_work(world: tuple[ToolBox, Path, Path]) -> None:
    tb, root, _ = world
    (root / "ids.txt").write_text("id 123e4567-e89b-12d3-a456-426614174000 on 2025-03-14\n")
    uuid = "[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"
    assert tb.call_tool("search_in_files", {"pattern": uuid}).total == 1
    assert tb.call_tool("search_in_files", {"pattern": r"\d{4}-\d{2}-\d{2}"}).total == 1


def test_walk_reads_a_huge_folder_only_up_to_the_bound(
    toolbox_cls: type[ToolBox], sandbox_dirs: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    # A folder with millions of entries was read (and sorted) whole before the entry bound applied.
    root, _ = sandbox_dirs
    crowd = root / "crowd"
    crowd.mkdir()
    for i in range(3000):
        (crowd / f"f{i}").touch()
    pulled = 0
    real_scandir = os.scandir

    class CountingScan:
        def __init__(self, path: Any) -> None:
            self.inner = real_scandir(path)

        def __enter__(self) -> CountingScan:
            return self

        def __exit__(self, *exc: object) -> None:
            self.inner.close()

        def __iter__(self) -> CountingScan:
            return self

        def __next__(self) -> os.DirEntry[str]:
            nonlocal pulled
            entry = next(self.inner)
            pulled += 1
            return entry

    monkeypatch.setattr(os, "scandir", CountingScan)
    tb = toolbox_cls(config={"root_path": str(root), "max_walk_entries": 50})
    assert tb.call_tool("find_files", {"glob": "*", "path": "crowd"}).truncated
    assert tb.call_tool("search_in_files", {"pattern": "x", "path": "crowd"}).truncated
    assert tb.call_tool("list_directory", {"path": "crowd"}).truncated
    assert pulled < 3 * 60, f"{pulled} entries were read for a bound of 50"
