"""Where AGENTS.md files are found, most specific first.

1. The working folder's AGENTS.md, then those of its parents up to the root of the repository
   it is in (the nearest folder holding ``.git``); outside a repository, the working folder only.
2. The configured sources, in the order given: a file, or a folder meaning its AGENTS.md.
3. ``"auto"``: AGENTS.md files that installed packages ship (upstream's discovery), by package name.

The same file reached twice (a configured path that is also the working folder's) counts once.
"""

from __future__ import annotations

import importlib.metadata
from pathlib import Path

from ovos_utils.log import LOG

__all__ = ["AUTO", "FILE_NAME", "configured_files", "package_files", "working_folder_files"]

FILE_NAME = "AGENTS.md"
AUTO = "auto"


def working_folder_files(folder: Path) -> list[Path]:
    """AGENTS.md of ``folder`` and of its parents up to the repository root, nearest first."""
    folder = folder.resolve()
    chain: list[Path] = []
    for candidate in (folder, *folder.parents):
        chain.append(candidate)
        if (candidate / ".git").exists():
            break
    else:  # in no repository: only the folder itself is "the working folder"
        chain = [folder]
    return [f / FILE_NAME for f in chain if (f / FILE_NAME).is_file()]


def configured_files(sources: list[str]) -> tuple[list[Path], list[str]]:
    """The files the configured sources name, and the sources that name none.

    ``"auto"`` is not a path: :func:`package_files` handles it.
    """
    found: list[Path] = []
    missing: list[str] = []
    for source in sources:
        if source == AUTO:
            continue
        path = Path(source).expanduser()
        candidate = path / FILE_NAME if path.is_dir() else path
        if candidate.is_file():
            found.append(candidate)
        else:
            missing.append(source)
    return found, missing


def package_files() -> list[Path]:
    """AGENTS.md files recorded by installed distributions, sorted by distribution name."""
    found: dict[str, list[Path]] = {}
    for dist in importlib.metadata.distributions():
        name = str(dist.name or "")
        try:
            # Most packages ship no AGENTS.md: a substring test on the raw RECORD skips them
            # without building a path object per file (a path per file costs about a second for 100 packages).
            record = dist.read_text("RECORD")
            if record is not None and FILE_NAME not in record:
                continue
            files = dist.files or []
        except (OSError, ValueError) as exc:  # a broken RECORD must not hide the other packages
            LOG.debug(f"AGENTS.md discovery: cannot read the file list of {name!r}: {exc}")
            continue
        for file in files:
            if file.name == FILE_NAME:
                path = Path(str(file.locate())).resolve()
                if path.is_file():
                    found.setdefault(name.lower(), []).append(path)
    return [path for name in sorted(found) for path in found[name]]
