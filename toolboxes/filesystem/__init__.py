"""Files as agent tools (entry point ``ovos-filesystem-tools``).

``toolbox`` holds the tools and their settings; its private helpers are ``_glob`` (globs and the
bounded walk), ``_io`` (paged reads and atomic writes) and ``_search`` (the bounded regex search).
"""

from __future__ import annotations

from ovos_agentic_loop_toolboxes.filesystem.toolbox import FileSystemSettings, FileSystemToolBox

__all__ = ["FileSystemSettings", "FileSystemToolBox"]
