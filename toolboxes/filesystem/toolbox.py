"""ovos-filesystem-tools: read, write, list and search files inside one root folder.

Every path, glob and pattern a model supplies is confined to ``root_path`` (see ``_core.paths`` and
``_glob``), every output is bounded, and writes are atomic and off unless ``allow_write``.
"""

from __future__ import annotations

import difflib
import itertools
import os
import re
import time
from typing import Any

from ovos_plugin_manager.templates.agent_tools import AgentTool, ToolArguments, ToolOutput
from ovos_utils.log import LOG
from pydantic import BaseModel, Field

from ovos_agentic_loop_toolboxes._core.folders import RootFolder
from ovos_agentic_loop_toolboxes._core.paths import InRoot, Sandbox
from ovos_agentic_loop_toolboxes._core.settings import ToolboxSettings, parse_settings
from ovos_agentic_loop_toolboxes._core.toolbox import BundledToolBox
from ovos_agentic_loop_toolboxes.filesystem._glob import Glob, Walk, compile_glob
from ovos_agentic_loop_toolboxes.filesystem._io import atomic_write, read_chunk
from ovos_agentic_loop_toolboxes.filesystem._search import SearchState, compile_pattern, search_file
from ovos_agentic_loop_toolboxes.filesystem._table import ColumnFigures, column_figures

TOOLBOX_ID = "ovos-filesystem-tools"
# The example names no real-looking folder: shown 'notes/todo.txt', the bundled model wrote
# 'notes/hello.txt' for a file asked for in the root, and read 'notes/budget.txt' for notes.txt.
PATH_HELP = "Path relative to the root folder: 'todo.txt' in the root, 'folder/todo.txt' in a folder."


class FileSystemSettings(ToolboxSettings):
    """Configuration of ``ovos-filesystem-tools``: strict types, unknown keys logged by name."""

    root_path: str | None = Field(
        None,
        description="Folder every path lives in. Default: the project's own folder "
        "($XDG_DATA_HOME/ovos-agentic-loop/files, made on first use), never the host's working folder; "
        "'.' is the working folder, '~' the home folder.",
    )
    allow_write: bool = Field(False, description="Whether write_file may change files (default False).")
    max_read_bytes: int = Field(65536, gt=0, description="Most bytes one read_file call returns (64 KiB).")
    max_write_bytes: int = Field(1048576, gt=0, description="Largest content write_file accepts (1 MiB).")
    max_results: int = Field(100, gt=0, description="Most entries, files or matches one call returns.")
    max_line_chars: int = Field(240, gt=0, description="Longest line search_in_files shows.")
    max_search_file_bytes: int = Field(1048576, gt=0, description="Files larger are not searched (1 MiB).")
    search_timeout: float = Field(1.0, gt=0, description="Seconds one search or walk may take.")
    max_walk_entries: int = Field(20000, gt=0, description="Most folder entries one call looks at.")

    @classmethod
    def from_config(cls, config: dict[str, Any] | None) -> FileSystemSettings:
        """Parse the plugin config, with an error that names the bad key."""
        return parse_settings(cls, TOOLBOX_ID, config)


# --- arguments and outputs -------------------------------------------------------------------


# A spoken file name as speech-to-text and then the model write it: "wifi dot txt", 'wifi.dot.txt',
# 'wifi_dot_txt'.
_SPOKEN_DOT = re.compile(r"(?i)(?<=\w)[ ._-]+dot[ ._-]+(?=\w)")
_SEPARATORS = re.compile(r"[\s._-]+")


def _joined(name: str) -> str:
    """A file name without case or separators: "Expenses week.csv" and expenses-week.csv agree."""
    return _SEPARATORS.sub("", name.lower())


class ReadFileArgs(ToolArguments):
    path: str = Field(description=PATH_HELP)
    offset: int = Field(0, ge=0, description="Byte to start at: next_offset from the last call.")
    limit: int | None = Field(None, gt=0, description="Most bytes to return.")


class ReadFileOutput(ToolOutput):
    path: str = Field(description="The file, relative to the root.")
    content: str = Field(description="Text read, UTF-8. Empty for a binary file.")
    offset: int = Field(description="Byte position where content starts.")
    next_offset: int | None = Field(
        description="Byte position to continue from; null at the end of the file."
    )
    # Only when content is part of the file: beside a whole six-line list, its 37 bytes were
    # answered as "37 items" (spoken suite, tune half).
    size_bytes: int | None = Field(
        None, description="Size of the whole file in bytes, when content is only part of it."
    )
    truncated: bool = Field(description="True when the file goes on after this content.")
    # Small models count lines wrong (a six-item shopping list read as "37 items"): counted here.
    line_count: int = Field(
        0, description="Non-empty lines in content: a list's items, or a table's rows plus its header."
    )
    # Small models add a column's seven amounts wrong ("$15" for 140): worked out here.
    columns: dict[str, ColumnFigures] | None = Field(
        None,
        description="A table (.csv, .tsv) read whole: each number column's figures over all its rows "
        "(rows, sum, mean, min, max); answer from these, do not add up the rows yourself.",
    )
    note: str = Field("", description="What to do next, or why nothing was shown.")


class WriteFileArgs(ToolArguments):
    path: str = Field(description=PATH_HELP)
    content: str = Field(description="The complete new text of the file.")


class WriteFileOutput(ToolOutput):
    path: str = Field(description="The file written, relative to the root.")
    bytes_written: int = Field(description="Size of the new file in bytes.")
    created: bool = Field(description="True if the file is new, False if an old file was replaced.")


class ListDirectoryArgs(ToolArguments):
    path: str = Field(".", description="Folder relative to the root; '.' is the root.")
    pattern: str = Field("*", description="Filter on names, such as '*.txt'.")


class ListDirectoryOutput(ToolOutput):
    path: str = Field(description="The folder listed, relative to the root.")
    entries: list[str] = Field(description="Paths relative to the root; folders end with '/'.")
    total: int = Field(description="Number of matching entries seen.")
    truncated: bool = Field(description="True when more entries exist than were shown.")


class SearchInFilesArgs(ToolArguments):
    pattern: str = Field(
        description="Regular expression to find in each line, such as 'TODO' or '(?i)error'."
    )
    path: str = Field(".", description="Folder (with its subfolders) or file to search.")
    glob: str = Field("*", description="Which files to search: '*.py' at any depth, 'src/**/*.md' by path.")


class SearchMatch(BaseModel):
    file: str = Field(description="File relative to the root.")
    line_number: int = Field(description="Line number, starting at 1.")
    line: str = Field(description="The matching line (long lines are cut around the match).")


class SearchInFilesOutput(ToolOutput):
    matches: list[SearchMatch] = Field(description="Matching lines in file and line order.")
    total: int = Field(description="Number of matches shown.")
    files_searched: int = Field(description="Number of text files searched.")
    truncated: bool = Field(description="True when the search stopped early; see note.")
    note: str = Field("", description="Why the search stopped early or skipped files.")


class FindFilesArgs(ToolArguments):
    glob: str = Field(
        description="File name pattern: '*.py' matches at any depth; 'docs/*.md' matches by path."
    )
    path: str = Field(".", description="Folder to search, with its subfolders.")


class FindFilesOutput(ToolOutput):
    files: list[str] = Field(description="Matching files, relative to the root, in name order.")
    total: int = Field(description="Number of files shown.")
    truncated: bool = Field(description="True when more files may match than were shown.")


# --- toolbox ---------------------------------------------------------------------------------


class FileSystemToolBox(BundledToolBox):
    """Files inside one root folder, for agents.

    Config keys (see :class:`FileSystemSettings` for every bound): ``root_path`` (default: the
    project's own folder, see ``_core.folders``), ``allow_write`` (default ``False``).
    """

    def __init__(self, config: dict[str, Any] | None = None, bus: Any = None) -> None:
        # ToolBox.__init__ calls discover_tools and swallows its errors: set state first.
        self.settings = FileSystemSettings.from_config(config)
        self.root = RootFolder(TOOLBOX_ID, self.settings.root_path)
        LOG.info(f"{TOOLBOX_ID}: {self.diagnostics()[0]}")
        super().__init__(TOOLBOX_ID, config, bus)

    @property
    def sandbox(self) -> Sandbox:
        """The confinement of every model path (the default folder is made on first use)."""
        return self.root.sandbox

    def role(self, name: str) -> dict[str, Any] | None:
        """read_file is the file reader: the argument that names the file."""
        return {"kind": "reader", "argument": "path"} if name == "read_file" else None

    def has_side_effects(self, name: str) -> bool:
        """Writes (a file, or whatever a program does): asked first where a loop confirms side effects."""
        return name == "write_file"

    def diagnostics(self) -> list[str]:
        """Status lines for ``doctor``: the root folder and whether writing is on."""
        write = "ON" if self.settings.allow_write else "OFF (allow_write is false)"
        return [f"files under {self.root.describe()}; write_file {write}"]

    def discover_tools(self) -> list[AgentTool]:
        """The five file tools; write_file stays listed but refuses when writing is off."""
        write_state = (
            "Replaces the whole file; create folders as needed."
            if self.settings.allow_write
            else "DISABLED here: every call is refused (allow_write is off)."
        )
        return [
            AgentTool(
                "read_file",
                f"Read a text file. Returns at most {self.settings.max_read_bytes} bytes; "
                "if truncated, call again with offset=next_offset.",
                ReadFileArgs,
                ReadFileOutput,
                self.read_file,
            ),
            AgentTool(
                "write_file",
                f"Write text to a file (UTF-8). {write_state}",
                WriteFileArgs,
                WriteFileOutput,
                self.write_file,
            ),
            AgentTool(
                "list_directory",
                "List the files and folders directly inside one folder. Folders end with '/'.",
                ListDirectoryArgs,
                ListDirectoryOutput,
                self.list_directory,
            ),
            AgentTool(
                "search_in_files",
                "Find lines matching a regular expression in files under a folder.",
                SearchInFilesArgs,
                SearchInFilesOutput,
                self.search_in_files,
            ),
            AgentTool(
                "find_files",
                "Find files by name pattern under a folder and its subfolders, such as '*.md'.",
                FindFilesArgs,
                FindFilesOutput,
                self.find_files,
            ),
        ]

    # --- tools -------------------------------------------------------------------------------

    def read_file(self, args: ReadFileArgs) -> ReadFileOutput:
        """Read one bounded chunk of a text file."""
        target = self.sandbox.resolve(args.path)
        said = self._as_said(target)
        if said is not None:
            output = self.read_file(args.model_copy(update={"path": said.rel}))
            heard = f"{target.rel!r} does not exist; read {said.rel!r}, the file named aloud"
            noted: ReadFileOutput = output.model_copy(
                update={"note": f"{heard}; {output.note}" if output.note else heard}
            )
            return noted
        self._require_file(target)
        limit = min(args.limit or self.settings.max_read_bytes, self.settings.max_read_bytes)
        chunk = read_chunk(self.sandbox, target, args.offset, limit)
        if chunk.binary:
            return ReadFileOutput(
                path=target.rel,
                content="",
                offset=0,
                next_offset=None,
                size_bytes=chunk.size,
                truncated=False,
                note=f"binary file ({chunk.size} bytes), not shown; read_file only shows text",
            )
        text = chunk.data.decode("utf-8", errors="replace")
        more = chunk.end < chunk.size
        notes = []
        if more:
            notes.append(
                f"output cut at byte {chunk.end} of {chunk.size}; "
                f"call read_file with offset={chunk.end} to read on"
            )
        if "\ufffd" in text:
            notes.append("some bytes were not valid UTF-8 and are shown as \ufffd")
        return ReadFileOutput(
            path=target.rel,
            content=text,
            offset=chunk.offset,
            next_offset=chunk.end if more else None,
            size_bytes=chunk.size if more or chunk.offset else None,
            truncated=more,
            line_count=sum(1 for line in text.splitlines() if line.strip()),
            columns=column_figures(target.rel, text) if not more and not chunk.offset else None,
            note="; ".join(notes),
        )

    def write_file(self, args: WriteFileArgs) -> WriteFileOutput:
        """Atomically replace (or create) one file."""
        if not self.settings.allow_write:
            raise PermissionError(
                "writing files is disabled in this setup (allow_write is off); "
                "tell the user the file could not be written, or show the text in your answer instead"
            )
        target = self.sandbox.resolve(args.path)
        data = args.content.encode("utf-8")
        if len(data) > self.settings.max_write_bytes:
            raise ValueError(
                f"content is {len(data)} bytes; the limit is {self.settings.max_write_bytes}: "
                "write a shorter file"
            )
        created = atomic_write(self.sandbox, target, data)
        return WriteFileOutput(path=target.rel, bytes_written=len(data), created=created)

    def list_directory(self, args: ListDirectoryArgs) -> ListDirectoryOutput:
        """Entries directly inside one folder whose names match ``pattern``."""
        folder = self.sandbox.resolve(args.path)
        self._require_folder(folder, args.path)
        glob = compile_glob(args.pattern, self.sandbox.root, what="pattern")
        if not glob.anywhere:
            raise ValueError(
                f"pattern {args.pattern!r} filters names in one folder and cannot contain '/'; "
                "put the folder in path, or use find_files to search subfolders"
            )
        shown: list[str] = []
        total = 0
        entries, cut = self._scan(folder)
        deadline = time.monotonic() + self.settings.search_timeout
        for entry in entries:
            try:
                if not glob.matches(entry.name, deadline):
                    continue
            except TimeoutError:
                cut = True  # A pattern that backtracks heavily: show what matched in time.
                break
            total += 1
            if len(shown) < self.settings.max_results:
                rel = self._rel(folder, entry.name)
                shown.append(rel + "/" if _is_dir(entry) else rel)
        truncated = cut or total > len(shown)
        return ListDirectoryOutput(path=folder.rel, entries=shown, total=total, truncated=truncated)

    def search_in_files(self, args: SearchInFilesArgs) -> SearchInFilesOutput:
        """Lines matching a regular expression, in files chosen by a folder and a glob."""
        compiled = compile_pattern(args.pattern)
        start = self.sandbox.resolve(args.path)
        glob = compile_glob(args.glob, self.sandbox.root)
        settings = self.settings
        deadline = time.monotonic() + settings.search_timeout
        state = SearchState(
            settings.max_results, settings.max_line_chars, settings.max_search_file_bytes, deadline
        )
        walk = Walk(self.sandbox, settings.max_walk_entries, deadline)
        if os.path.isfile(start.real):
            search_file(self.sandbox, start.real, compiled, state)
        else:
            self._require_folder(start, args.path)
            for rel, entry in walk.entries(start.real):
                if state.stopped:
                    break
                try:
                    wanted = glob.matches(rel, deadline)
                except TimeoutError:
                    state.timed_out = True
                    break
                if wanted and _is_file(entry):
                    search_file(self.sandbox, entry.path, compiled, state)
                elif _is_file(entry):
                    state.left_out[os.path.splitext(entry.name)[1].lower() or entry.name] += 1
        return SearchInFilesOutput(
            matches=[SearchMatch(file=h.file, line_number=h.line_number, line=h.line) for h in state.hits],
            total=state.total,
            files_searched=state.files_searched,
            truncated=state.stopped or walk.truncated,
            note=_search_note(state, walk.truncated, args.glob),
        )

    def find_files(self, args: FindFilesArgs) -> FindFilesOutput:
        """Files below a folder whose path or name matches a glob."""
        start = self.sandbox.resolve(args.path)
        self._require_folder(start, args.path)
        glob = compile_glob(args.glob, self.sandbox.root)
        found, truncated = self._find(start, glob)
        found.sort()
        return FindFilesOutput(files=found, total=len(found), truncated=truncated)

    # --- helpers -----------------------------------------------------------------------------

    def _find(self, start: InRoot, glob: Glob) -> tuple[list[str], bool]:
        deadline = time.monotonic() + self.settings.search_timeout
        walk = Walk(self.sandbox, self.settings.max_walk_entries, deadline)
        found: list[str] = []
        for rel, entry in walk.entries(start.real):
            try:
                wanted = glob.matches(rel, deadline)
            except TimeoutError:
                return found, True  # The glob backtracks heavily: what matched in time, marked cut.
            if wanted and _is_file(entry):
                if len(found) == self.settings.max_results:
                    return found, True
                found.append(self._rel(start, rel))
        return found, walk.truncated

    def _scan(self, folder: InRoot) -> tuple[list[os.DirEntry[str]], bool]:
        """Entries of one folder in name order, without links out of the root; True if cut short."""
        limit = self.settings.max_walk_entries
        with os.scandir(folder.real) as scan:
            # A folder with millions of entries is read only up to the walk bound.
            entries = list(itertools.islice(scan, limit + 1))
        cut = len(entries) > limit
        entries = sorted(entries[:limit], key=lambda e: e.name)
        return [e for e in entries if not e.is_symlink() or self.sandbox.contains_real(e.path)], cut

    @staticmethod
    def _rel(folder: InRoot, name: str) -> str:
        return name if folder.rel == "." else f"{folder.rel}/{name}"

    @staticmethod
    def _require_folder(target: InRoot, asked: str) -> None:
        if os.path.isdir(target.real):
            return
        if os.path.exists(target.real):
            raise NotADirectoryError(f"{asked!r} is a file, not a folder; use read_file to read it")
        raise FileNotFoundError(
            f"folder {asked!r} does not exist; call list_directory with path '.' to see the root"
        )

    def _as_said(self, target: InRoot) -> InRoot | None:
        """The existing file a missing path names as it was said aloud; None when there is none.

        Its 'dot' read as '.' ("wifi dot txt", written by the model as 'wifi.dot.txt', is
        wifi.txt): told that 'wifi.dot.txt' does not exist, the bundled model answered "the wifi
        password in wifi.dot.txt does not exist". And its words joined as the file's name joins
        them: speech has no hyphen, so "expenses week dot csv" is expenses-week.csv (or
        expenses_week.csv), the one file of that folder whose name differs only in separators."""
        if os.path.exists(target.real):
            return None
        written = _SPOKEN_DOT.sub(".", target.rel)
        try:
            said = self.sandbox.resolve(written)
        except (PermissionError, ValueError):
            return None
        if os.path.isfile(said.real):
            return said if written != target.rel else None
        folder, _, name = written.rpartition("/")
        alike = self._alike(folder, name)
        if not alike and folder:  # "expenses/week.csv": a spoken separator written as a folder
            folder, alike = "", self._alike("", written.replace("/", " "))
        try:
            return (
                self.sandbox.resolve(f"{folder}/{alike[0]}" if folder else alike[0])
                if len(alike) == 1
                else None
            )
        except (PermissionError, ValueError):
            return None

    def _alike(self, folder: str, name: str) -> list[str]:
        """The files of ``folder`` whose names differ from ``name`` only in case and separators."""
        try:
            with os.scandir(os.path.join(self.sandbox.root, folder)) as scan:
                return [
                    e.name
                    for e in itertools.islice(scan, self.settings.max_walk_entries)
                    if e.is_file() and _joined(e.name) == _joined(name)
                ]
        except (OSError, PermissionError, ValueError):
            return []

    def _require_file(self, target: InRoot) -> None:
        if os.path.isdir(target.real):
            raise IsADirectoryError(f"{target.rel!r} is a folder; use list_directory to see what it holds")
        if not os.path.exists(target.real):
            # Said plainly first, then what to tell the user: offered only "did you mean
            # 'notes.txt'?" for a file the user named, a small model may read the neighbour and
            # answer with its value. A name the model misremembered still gets the close ones.
            missing = f"file {target.rel!r} does not exist. "
            told = f"If the user named {target.rel!r}, tell them it does not exist; "
            close = self._close_names(target)
            if close:
                listed = ", ".join(repr(c) for c in close)
                raise FileNotFoundError(
                    f"{missing}Similar names: {listed}: other files, not this one. "
                    f"{told}if you misremembered the name, send path as one of those or as one that "
                    "find_files or list_directory shows"
                )
            raise FileNotFoundError(
                f"{missing}{told}otherwise send path as one that find_files or list_directory shows"
            )

    def _close_names(self, target: InRoot) -> list[str]:
        """Existing paths whose name is close to the missing part of ``target`` (note.txt ->
        notes.txt; notes/budget.txt -> notes.txt): small models misremember names and then read
        the same wrong path again instead of listing the folder."""
        folder, parts = self.sandbox.root, target.parts
        depth = 0
        while depth < len(parts) - 1 and os.path.isdir(os.path.join(folder, parts[depth])):
            folder = os.path.join(folder, parts[depth])
            depth += 1
        try:
            with os.scandir(folder) as scan:
                names = [e.name for e in itertools.islice(scan, self.settings.max_walk_entries)]
        except OSError:
            return []
        wanted = {parts[depth], parts[-1]} if parts else set()
        found: list[str] = []
        for word in sorted(wanted):
            found += difflib.get_close_matches(word, names, n=3, cutoff=0.6)
        base = self.sandbox.relative(os.path.realpath(folder)) or "."
        return [n if base == "." else f"{base}/{n}" for n in dict.fromkeys(found)][:3]


def _search_note(state: SearchState, walk_truncated: bool, glob: str = "*") -> str:
    notes = []
    if state.total == 0 and glob.strip() not in ("*", "**", "**/*", ""):
        # The bundled model copies the description's example ('*.md') and reports "no file
        # mentions it" when the word is in a .txt file: what is there is said beside it.
        kinds = sorted(state.left_out.items(), key=lambda kind: (-kind[1], kind[0]))[:5]
        there = ", ".join(f"{count} {kind}" for kind, count in kinds)
        notes.append(
            f"no match in the {state.files_searched} file(s) matching {glob!r}"
            + (f"; the files it left out: {there}" if there else "")
            + "; glob '*' searches every file"
        )
    if state.timed_out:
        notes.append(
            "the search ran out of time (the pattern may backtrack heavily, like '(a+)+'); "
            "simplify the pattern or search fewer files"
        )
    if state.total >= state.max_matches:
        notes.append(f"stopped after {state.max_matches} matches; use a narrower pattern, path or glob")
    if walk_truncated and not state.timed_out:
        notes.append("too many files to look at all of them; give a narrower path or glob")
    if state.skipped_large:
        notes.append(f"{state.skipped_large} file(s) over {state.max_file_bytes} bytes were not searched")
    if state.skipped_binary:
        notes.append(f"{state.skipped_binary} binary file(s) were skipped")
    return "; ".join(notes)


def _is_dir(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_dir()
    except OSError:
        return False


def _is_file(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_file()
    except OSError:
        return False
