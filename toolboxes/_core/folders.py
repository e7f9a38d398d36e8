"""Where a toolbox works when its config names no folder: a folder the project owns, never the host's.

Our toolboxes are built by hosts other than our loop, with no config at all: ovos-PHAL-plugin-tools
runs as a service in ``/`` and builds every installed toolbox with ``{}``; ovos-persona-server
builds them in whatever folder it was started from. A default of ``"."`` would then hand any bus
or HTTP caller ``/etc`` or a home folder. So an unset ``root_path`` means the project's own data
folder, ``$XDG_DATA_HOME/ovos-agentic-loop/files`` (``~/.local/share/...``), made (mode 0700) the
first time a tool needs it; the host's working folder, ``/`` or a home folder is used only when a
config names it (``"root_path": "."``, ``"/"``, ``"~"``).
"""

from __future__ import annotations

import os
import threading

from ovos_utils.log import LOG

from ovos_agentic_loop_toolboxes._core.errors import ToolboxConfigError, ToolCallError
from ovos_agentic_loop_toolboxes._core.paths import Sandbox

__all__ = ["RootFolder", "data_dir", "default_files_dir"]


def data_dir(*parts: str) -> str:
    """``$XDG_DATA_HOME/ovos-agentic-loop/<parts>``, ``~/.local/share/...`` when the variable is unset."""
    base = os.environ.get("XDG_DATA_HOME") or os.path.join(os.path.expanduser("~"), ".local", "share")
    return os.path.join(base, "ovos-agentic-loop", *parts)


def default_files_dir() -> str:
    """The folder the filesystem and shell toolboxes share when no ``root_path`` is configured."""
    return data_dir("files")


class RootFolder:
    """A toolbox's root: the configured ``root_path`` (checked now) or the default (made on first use).

    ``path`` is known at once (for ``diagnostics()`` and the log); :attr:`sandbox` is the
    :class:`Sandbox` that confines model paths to it.
    """

    def __init__(self, toolbox_id: str, configured: str | None) -> None:
        self.toolbox_id = toolbox_id
        self.is_default = configured is None
        self._lock = threading.Lock()
        self._sandbox: Sandbox | None = None
        if configured is None:
            self.path = os.path.abspath(default_files_dir())
        else:
            try:
                self._sandbox = Sandbox(configured)
            except ValueError as exc:
                raise ToolboxConfigError(f"{toolbox_id}: {exc}") from None
            self.path = self._sandbox.root

    def describe(self) -> str:
        """Where the toolbox works, and, for the default, how to choose another folder."""
        if not self.is_default:
            return self.path
        return f"{self.path} (the default: no root_path is configured; set root_path to use another folder)"

    @property
    def sandbox(self) -> Sandbox:
        """The confinement of model paths; the default folder is created here the first time."""
        if self._sandbox is None:
            with self._lock:
                if self._sandbox is None:
                    self._sandbox = self._make_default()
        return self._sandbox

    def _make_default(self) -> Sandbox:
        try:
            os.makedirs(self.path, mode=0o700, exist_ok=True)
        except OSError as exc:
            raise ToolCallError(
                f"the working folder {self.path} cannot be created ({exc.strerror or exc}); "
                f"the operator must set root_path in the {self.toolbox_id} section"
            ) from exc
        LOG.info(f"{self.toolbox_id}: working in {self.path} (made on first use; set root_path to change)")
        return Sandbox(self.path)
