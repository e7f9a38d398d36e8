"""The ONE confinement of model-supplied paths to a root folder, used by every toolbox.

The rule: a path is relative to the root, or absolute and inside it; ``~`` is refused (it would
name the assistant's home, never the root); ``..`` and links may be used only while the result
stays inside the root; NUL bytes and paths longer than ``MAX_PATH_CHARS`` are refused.

Every path a model writes is resolved with ``os.path.realpath`` (which follows every symlink the
way the kernel would) and then checked to lie inside the resolved root. Files are then opened by
walking the already resolved, symlink-free relative path from a descriptor of the root with
``O_NOFOLLOW`` on each step, so a link swapped in after the check makes the call fail instead of
escaping the root.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from collections.abc import Iterator
from dataclasses import dataclass

from ovos_agentic_loop_toolboxes._core.errors import BadInput, PathRefused

_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0)

EXAMPLE_PATH = "notes/todo.txt"
# Linux's PATH_MAX. Checked first: ``realpath`` of a multi-megabyte path walks millions of parts.
MAX_PATH_CHARS = 4096


@dataclass(frozen=True)
class InRoot:
    """A path checked to lie inside the root: ``real`` is absolute, ``rel`` is root-relative."""

    real: str
    rel: str

    @property
    def parts(self) -> list[str]:
        """The components of ``rel`` (empty for the root itself)."""
        return [] if self.rel == "." else self.rel.split("/")


class Sandbox:
    """One root folder and the rules that keep model-supplied paths inside it."""

    def __init__(self, root: str) -> None:
        real = os.path.realpath(os.path.expanduser(root))
        if not os.path.isdir(real):
            raise ValueError(f"root_path {root!r} is not an existing folder; create it or set root_path")
        self.root = real

    def resolve(self, path: str, what: str = "path") -> InRoot:
        """Resolve a model-supplied path; raise ``PathRefused`` (a ``PermissionError``) if outside the root.

        An absolute path inside the root is accepted, because small models copy paths from
        earlier outputs or from the system prompt.
        """
        if len(path) > MAX_PATH_CHARS:
            raise BadInput(
                f"{what} is {len(path)} characters long; the limit is {MAX_PATH_CHARS}: "
                f"use a shorter path such as {EXAMPLE_PATH!r}"
            )
        cleaned = check_text(path, what).strip()
        if cleaned.startswith("~"):
            raise PathRefused(
                f"{what} {path!r} starts with '~'; use a path relative to the root such as {EXAMPLE_PATH!r}"
            )
        joined = cleaned if os.path.isabs(cleaned) else os.path.join(self.root, cleaned or ".")
        real = os.path.realpath(joined)
        rel = self.relative(real)
        if rel is None:
            hint = (
                "absolute paths are only accepted inside the root"
                if os.path.isabs(cleaned)
                else "it leaves the root (through '..' or a link)"
            )
            raise PathRefused(
                f"{what} {path!r} is outside the allowed folder: {hint}; "
                f"use a path relative to the root such as {EXAMPLE_PATH!r}"
            )
        return InRoot(real=real, rel=rel)

    def relative(self, real: str) -> str | None:
        """``real`` relative to the root in '/' form ('.' for the root), or None when outside."""
        if real == self.root:
            return "."
        prefix = self.root if self.root.endswith(os.sep) else self.root + os.sep
        if not real.startswith(prefix):
            return None
        return real[len(prefix) :].replace(os.sep, "/")

    def contains_real(self, path: str) -> bool:
        """Whether ``path`` (any entry found while walking) resolves to a place inside the root."""
        return self.relative(os.path.realpath(path)) is not None

    @contextlib.contextmanager
    def open_dir(self, parts: list[str], create: bool = False) -> Iterator[int]:
        """A descriptor of the folder ``parts`` below the root, walked without following links.

        With ``create`` missing folders are made one at a time, each inside a folder already held
        open, so a parent can never be created outside the root.
        """
        fd = os.open(self.root, _DIR_FLAGS)
        try:
            for name in parts:
                if create:
                    with contextlib.suppress(FileExistsError):
                        os.mkdir(name, 0o777, dir_fd=fd)
                try:
                    child = os.open(name, _DIR_FLAGS, dir_fd=fd)
                except NotADirectoryError:
                    raise NotADirectoryError(f"{name!r} is a file, not a folder") from None
                except OSError as exc:
                    # ELOOP: the component became a symlink after the path was checked.
                    raise PathRefused(f"{name!r} changed while it was being opened") from exc
                os.close(fd)
                fd = child
            yield fd
        finally:
            os.close(fd)


def check_text(value: str, what: str) -> str:
    """Refuse NUL bytes, which the OS would otherwise reject with a confusing message."""
    if "\x00" in value:
        raise BadInput(f"{what} contains a NUL byte; write it as plain text without control characters")
    return value


def open_regular_file(dir_fd: int, name: str) -> int:
    """Open ``name`` in ``dir_fd`` for reading without following a link; refuse non-regular files.

    ``O_NONBLOCK`` keeps a FIFO from blocking the open; the ``fstat`` check then refuses it, like
    any device or socket.
    """
    flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(name, flags, dir_fd=dir_fd)
    except OSError as exc:
        if exc.errno == errno.ELOOP:  # A link appeared after the check.
            raise PathRefused(f"{name!r} changed while it was being opened") from exc
        raise
    mode = os.fstat(fd).st_mode
    if not stat.S_ISREG(mode):
        os.close(fd)
        kind = "a folder" if stat.S_ISDIR(mode) else "not a regular file"
        raise IsADirectoryError(f"{name!r} is {kind}; read_file reads regular files only")
    return fd
