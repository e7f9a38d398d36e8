"""Where the embedded server keeps its files."""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["CACHE_ENV", "cache_dir", "models_dir", "run_dir", "slots_dir"]

CACHE_ENV = "OVOS_AGENTIC_LOOP_CACHE"
"""Environment variable overriding the cache folder (default ``~/.cache/ovos-agentic-loop``)."""


def cache_dir() -> Path:
    """The cache root: ``$OVOS_AGENTIC_LOOP_CACHE``, else ``$XDG_CACHE_HOME/ovos-agentic-loop``."""
    override = os.environ.get(CACHE_ENV)
    if override:
        return Path(override).expanduser()
    xdg = os.environ.get("XDG_CACHE_HOME")
    base = Path(xdg).expanduser() if xdg else Path.home() / ".cache"
    return base / "ovos-agentic-loop"


def models_dir() -> Path:
    """Assembled GGUF models and the derived chat templates."""
    return cache_dir() / "models"


def run_dir() -> Path:
    """Pid files and server logs, one pair per port."""
    return cache_dir() / "run"


def slots_dir() -> Path:
    """Where the server writes saved prompt caches (its ``--slot-save-path``; see local/prompt_cache.py).

    Here, not in prompt_cache.py: server.py passes it at start and prompt_cache.py reads server.py's
    pid files, so keeping it in either would make the two import each other.
    """
    return cache_dir() / "slots"
