"""The kernel sandbox every program the toolboxes start runs in (shell commands, SKILL.md scripts).

On Linux with Landlock (5.13+, no privileges needed) the child, before ``exec``, confines itself to:

- **read and execute**: the folders a program needs to load (``/usr``, ``/bin``, ``/sbin``,
  ``/lib*``), the Python installation (skill scripts run with it), the caller's extra read folders
  (a skill's own folder), and from ``/etc`` only the files programs read to start and resolve names
  (``SYSTEM_ETC``: loader cache, users and groups, time zone, locale, certificates, DNS). Everything
  else in ``/etc``, every home folder, ``/tmp``, ``/var``, ``/proc`` of other processes (their
  environment holds API keys) and ``/sys`` are refused; a program may read its own ``/proc/self``
  and machine-wide files such as ``/proc/meminfo``. A program file outside these folders (a pyenv
  shim, ``~/.local/bin``) cannot run: the shell says so before starting it (``can_run``).
- **write**: ``root_path`` and a private temporary folder made for the run (``TMPDIR`` and ``HOME``
  point at it and it is removed afterwards), plus ``/dev/null``, ``/dev/zero``, ``/dev/full``,
  ``/dev/random``, ``/dev/urandom``.
- **network**: with ``allow_network`` off (the default) no TCP connect or bind (Landlock ABI >= 4)
  and no abstract unix sockets (ABI >= 6). UDP is not covered by Landlock.
- **signals**: never to a process outside the sandbox (ABI >= 6).

What it does NOT do: hide what those read folders contain, limit CPU (the timeout does), contain a
program that Landlock's ABI does not cover on an older kernel (the rights a kernel does not know
stay allowed: the status names the ABI), or act anywhere but Linux.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
import shutil
import sys
import tempfile
import threading
from collections.abc import Iterator
from dataclasses import dataclass

from ovos_utils.log import LOG

from ovos_agentic_loop_toolboxes._core import landlock
from ovos_agentic_loop_toolboxes._core.errors import ToolboxConfigError

__all__ = [
    "SYSTEM_ETC",
    "SYSTEM_READ",
    "KernelSandbox",
    "RunFolders",
    "landlock_abi",
    "run_folders",
    "sandbox_status",
]

SYSTEM_READ = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
SYSTEM_ETC = (
    "/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d", "/etc/alternatives", "/etc/localtime",
    "/etc/timezone", "/etc/passwd", "/etc/group", "/etc/nsswitch.conf", "/etc/hosts", "/etc/host.conf",
    "/etc/resolv.conf", "/etc/gai.conf", "/etc/ssl", "/etc/ca-certificates", "/etc/pki",
    "/etc/locale.alias", "/etc/locale.conf", "/etc/default/locale", "/etc/mime.types", "/etc/magic",
    "/etc/inputrc",
)  # fmt: skip
# System information a program may read about the machine, and its OWN /proc folder: the launcher
# opens "/proc/self" in the child, and exec keeps the pid. Never another process's folder.
SYSTEM_PROC = (
    "/proc/meminfo", "/proc/cpuinfo", "/proc/stat", "/proc/uptime", "/proc/loadavg", "/proc/version",
    "/proc/self",
)  # fmt: skip
DEVICES_RW = ("/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom")

_abi: int | None = None
_warned: set[str] = set()
_lock = threading.Lock()


def landlock_abi() -> int:
    """The kernel's Landlock ABI, probed once per process (0: not available)."""
    global _abi
    if _abi is None:
        _abi = landlock.abi_version()
    return _abi


def sandbox_status(enabled: bool, allow_network: bool) -> str:
    """One human-readable line for ``diagnostics()`` and the logs."""
    if not enabled:
        return "kernel sandbox: OFF (sandbox is false in the config): programs can read what the user can"
    abi = landlock_abi()
    if abi < 1:
        return (
            "kernel sandbox: NOT AVAILABLE (this kernel has no Landlock; Linux 5.13+ with "
            "lsm=landlock needed): programs can read and write what the user can"
        )
    if allow_network:
        network = "network allowed (allow_network)"
    elif abi >= 4:
        network = "no TCP connect or bind"
    else:
        network = "network NOT restricted (Landlock ABI < 4)"
    return (
        f"kernel sandbox: Landlock ABI {abi}; reads limited, writes only root_path and a temp folder; "
        + network
    )


@dataclass(frozen=True)
class RunFolders:
    """The folders of one run: where it starts, its private temp folder, and its environment tweaks."""

    cwd: str
    temp: str
    env: dict[str, str]


@dataclass(frozen=True)
class KernelSandbox:
    """The sandbox settings of one toolbox; :meth:`policy` builds the Landlock rules of one run."""

    toolbox_id: str
    enabled: bool = True
    required: bool = False
    allow_network: bool = False

    def check(self) -> None:
        """Refuse to build a toolbox that requires a sandbox this kernel cannot give (construction time)."""
        if self.required and (not self.enabled or landlock_abi() < 1):
            raise ToolboxConfigError(
                f"{self.toolbox_id}: require_sandbox is true but "
                + (
                    "sandbox is false; set sandbox to true"
                    if not self.enabled
                    else "this kernel has no Landlock (Linux 5.13+ needed); "
                    "run on such a kernel or set require_sandbox to false"
                )
            )

    @property
    def active(self) -> bool:
        """Whether runs are confined; logs once per toolbox when a wanted sandbox is missing."""
        if not self.enabled:
            return False
        if landlock_abi() >= 1:
            return True
        with _lock:
            if self.toolbox_id not in _warned:
                _warned.add(self.toolbox_id)
                LOG.warning(f"{self.toolbox_id}: {sandbox_status(True, self.allow_network)}")
        return False

    def status(self) -> str:
        return sandbox_status(self.enabled, self.allow_network)

    def policy(self, write: list[str], read: list[str]) -> landlock.Policy:
        """The rules for one run: ``write`` folders (root, temp) and extra ``read`` folders."""
        return landlock.Policy(
            read=[*SYSTEM_READ, *SYSTEM_ETC, *_python_etc(), *SYSTEM_PROC, *_python_dirs(), *read],
            write=list(write),
            files_rw=list(DEVICES_RW),
            network=self.allow_network,
        )

    def can_run(self, program: str, write: list[str], read: list[str]) -> bool:
        """Whether the sandbox lets ``program`` (a real path) execute; always True when off."""
        if not self.active:
            return True
        folders = [*SYSTEM_READ, *_python_dirs(), *read, *write]
        return any(program == f or program.startswith(f.rstrip("/") + "/") for f in folders)

    def policy_json(self, write: list[str], read: list[str]) -> dict[str, object] | None:
        """The policy as the launcher reads it, or None when runs are not confined."""
        return dataclasses.asdict(self.policy(write, read)) if self.active else None


def _python_dirs() -> list[str]:
    """The running Python's installation (skill scripts run with it), venv and base."""
    here = os.path.dirname(os.path.realpath(sys.executable))
    return sorted({os.path.realpath(p) for p in (sys.base_prefix, sys.prefix, sys.exec_prefix)} | {here})


def _python_etc() -> list[str]:
    """Debian's per-version Python config (``/etc/python3.11``), read by ``site`` at start-up."""
    try:
        return [os.path.join("/etc", n) for n in os.listdir("/etc") if n.startswith("python")]
    except OSError:
        return []


@contextlib.contextmanager
def run_folders(cwd: str | None, env: dict[str, str], sandboxed: bool) -> Iterator[RunFolders]:
    """A private temp folder for one run (removed afterwards) and ``cwd`` (the temp folder if None).

    ``TMPDIR`` points at the temp folder, and in the sandbox ``HOME`` too: there the real home is
    not readable, and programs that keep caches or history in it then still work.
    """
    temp = tempfile.mkdtemp(prefix="ovos-run-")
    overrides = {"TMPDIR": temp, "HOME": temp} if sandboxed else {"TMPDIR": temp}
    try:
        yield RunFolders(cwd=cwd or temp, temp=temp, env={**env, **overrides})
    finally:
        shutil.rmtree(temp, ignore_errors=True)
