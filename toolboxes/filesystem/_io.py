"""Bounded reads and atomic writes of single files inside a :class:`Sandbox`."""

from __future__ import annotations

import contextlib
import os
import secrets
import stat
from dataclasses import dataclass

from ovos_agentic_loop_toolboxes._core.paths import InRoot, Sandbox, open_regular_file

SNIFF_BYTES = 8192


@dataclass(frozen=True)
class Chunk:
    """A piece of a text file: ``data`` starts at byte ``offset``; ``end`` is where it stops."""

    data: bytes
    offset: int
    end: int
    size: int
    binary: bool


def read_chunk(sandbox: Sandbox, target: InRoot, offset: int, limit: int) -> Chunk:
    """Read at most ``limit`` bytes from ``offset``, cut on a line end or at least a UTF-8 boundary."""
    if not target.parts:
        raise IsADirectoryError("the root is a folder; use list_directory to see what it holds")
    with sandbox.open_dir(target.parts[:-1]) as dir_fd:
        fd = open_regular_file(dir_fd, target.parts[-1])
    with os.fdopen(fd, "rb") as handle:
        size = os.fstat(handle.fileno()).st_size
        if b"\x00" in handle.read(SNIFF_BYTES):
            return Chunk(b"", 0, 0, size, binary=True)
        if offset > size:
            raise ValueError(f"offset {offset} is past the end of the file ({size} bytes); use 0 to {size}")
        handle.seek(offset)
        data = handle.read(limit)
    start = _skip_continuation_bytes(data) if offset else 0
    data = data[start:]
    if offset + start + len(data) < size:
        data = data[: _cut_point(data)]
    return Chunk(data, offset + start, offset + start + len(data), size, binary=False)


def _skip_continuation_bytes(data: bytes) -> int:
    # An offset the model made up may land inside a multi-byte character.
    skip = 0
    while skip < min(3, len(data)) and data[skip] & 0xC0 == 0x80:
        skip += 1
    return skip


def _cut_point(data: bytes) -> int:
    """Prefer ending after a whole line; otherwise never split a UTF-8 character."""
    newline = data.rfind(b"\n")
    if newline >= len(data) // 2:
        return newline + 1
    cut = len(data)
    for back in range(1, min(4, len(data)) + 1):
        byte = data[len(data) - back]
        if byte & 0xC0 == 0x80:
            continue
        if byte >= 0xC0:
            # A lead byte: keep the character only if all its continuation bytes are present.
            needed = 2 if byte < 0xE0 else 3 if byte < 0xF0 else 4
            cut = len(data) - back + (needed if back >= needed else 0)
        break
    return cut


def atomic_write(sandbox: Sandbox, target: InRoot, data: bytes) -> bool:
    """Replace ``target`` with ``data`` through a temporary file in the same folder.

    Returns True when the file did not exist before. Parent folders are created inside the root.
    The temporary file is created with ``O_EXCL | O_NOFOLLOW`` and renamed with directory
    descriptors, so neither step can follow a link out of the root.
    """
    if not target.parts:
        raise IsADirectoryError(
            "the root is a folder; give a file path such as 'todo.txt' or 'folder/todo.txt'"
        )
    name = target.parts[-1]
    with sandbox.open_dir(target.parts[:-1], create=True) as dir_fd:
        created, mode = _existing_mode(dir_fd, name)
        temp = f".{name[:180]}.{secrets.token_hex(4)}.tmp"
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0)
        fd = os.open(temp, flags, 0o666, dir_fd=dir_fd)
        try:
            with os.fdopen(fd, "wb") as handle:
                handle.write(data)
                handle.flush()
                if mode is not None:
                    os.fchmod(handle.fileno(), mode)
                os.fsync(handle.fileno())
            os.replace(temp, name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(temp, dir_fd=dir_fd)
            raise
    return created


def _existing_mode(dir_fd: int, name: str) -> tuple[bool, int | None]:
    """(created, permission bits to keep) for the file about to be replaced."""
    try:
        info = os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
    except FileNotFoundError:
        return True, None
    if stat.S_ISDIR(info.st_mode):
        raise IsADirectoryError(f"{name!r} is a folder; give a file path inside it")
    if not stat.S_ISREG(info.st_mode):
        raise PermissionError(f"{name!r} is not a regular file and cannot be replaced")
    return False, stat.S_IMODE(info.st_mode)
