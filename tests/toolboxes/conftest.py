"""Fixtures shared by the toolbox tests."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest


@pytest.fixture
def sandbox_dirs(tmp_path: Path) -> tuple[Path, Path]:
    """A ``root`` folder for a filesystem toolbox and a sibling ``outside`` folder it must never touch."""
    root = tmp_path / "root"
    outside = tmp_path / "outside"
    (root / "notes").mkdir(parents=True)
    outside.mkdir()
    (root / "notes" / "todo.txt").write_text("buy milk\nTODO: call Ana\n")
    (outside / "secret.txt").write_text("the secret\n")
    return root, outside


def _snapshot(path: Path) -> dict[str, str | bytes]:
    found: dict[str, str | bytes] = {}
    for item in sorted(path.rglob("*")):
        key = str(item.relative_to(path))
        if item.is_symlink():
            found[key] = "link->" + str(item.readlink())
        elif item.is_dir():
            found[key] = "dir"
        else:
            found[key] = item.read_bytes()
    return found


@pytest.fixture
def tree_snapshot() -> Callable[[Path], dict[str, str | bytes]]:
    """Everything below a folder (files' bytes, links' targets) to compare before and after an attack."""
    return _snapshot
