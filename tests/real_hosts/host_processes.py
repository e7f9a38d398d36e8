"""Real host processes for the tests in this folder: started in their own process group, on 127.0.0.1,
with a private home, and always stopped by their PID.

A host started here sees the machine the way a system service does: its working folder is ``/``,
its ``HOME`` is a temporary folder with a private file in it, and its OVOS config (mycroft.conf,
found through ``XDG_CONFIG_HOME``) points the messagebus at a free port on 127.0.0.1 and nothing else.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

__all__ = [
    "HostHome",
    "HostProcess",
    "descendants",
    "free_port",
    "make_home",
    "processes_with_marker",
    "wait_for",
    "wait_for_port",
]

T = TypeVar("T")

LOCALHOST = "127.0.0.1"
#: What every host gets to start; generous, since CI machines are slow and shared.
START_TIMEOUT = 45.0
#: SIGTERM, then this long, then SIGKILL for the whole process group.
STOP_GRACE = 5.0
#: The file the hosts must never serve: text a user keeps in their home folder.
PRIVATE_TEXT = "the user's private notes: never served\n"
#: The file the hosts may serve: it lies in the project's default folder.
SHARED_TEXT = "hello from the project's own folder\n"


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind((LOCALHOST, 0))
        return int(probe.getsockname()[1])


@dataclass(frozen=True)
class HostHome:
    """The private home a host runs with, and what lies in it."""

    home: Path
    private_file: Path
    #: The folder our toolboxes use when their config names none (``~/.local/share/ovos-agentic-loop/files``).
    default_folder: Path
    env: dict[str, str]

    def write_mycroft_conf(self, config: dict[str, object]) -> Path:
        """The user's mycroft.conf, where ovos-config looks first (``$XDG_CONFIG_HOME/mycroft``)."""
        path = self.home / ".config" / "mycroft" / "mycroft.conf"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(config, indent=2))
        return path


def make_home(base: Path) -> HostHome:
    """A home folder with a private file, the project's default folder with one file, and the env for it.

    The env drops every XDG variable of the test run, so each one derives from the private HOME
    (as for a service user), and keeps PATH and the rest so the host runs the packages of this test run.
    """
    home = base / "home"
    home.mkdir(parents=True)
    private = home / "private.txt"
    private.write_text(PRIVATE_TEXT)
    default_folder = home / ".local" / "share" / "ovos-agentic-loop" / "files"
    default_folder.mkdir(parents=True, mode=0o700)
    (default_folder / "notes.txt").write_text(SHARED_TEXT)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("XDG_", "OVOS_", "MYCROFT_", "PYTEST_"))}
    env.update(HOME=str(home), XDG_CONFIG_HOME=str(home / ".config"), PYTHONUNBUFFERED="1")
    return HostHome(home=home, private_file=private, default_folder=default_folder, env=env)


class HostProcess:
    """One host started as its own process group (leader = ``pid``), output to a log file."""

    def __init__(
        self, name: str, argv: Sequence[str], env: dict[str, str], log_dir: Path, cwd: str = "/"
    ) -> None:
        self.name = name
        self.log_path = log_dir / f"{name}.log"
        self._log = self.log_path.open("wb")
        self.popen = subprocess.Popen(
            list(argv),
            cwd=cwd,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=self._log,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # its own group: stop() reaches every process it started
        )
        self.pid = self.popen.pid

    def running(self) -> bool:
        return self.popen.poll() is None

    def log_tail(self, chars: int = 4000) -> str:
        text = self.log_path.read_text(errors="replace")
        return text[-chars:]

    def require_running(self) -> None:
        if not self.running():
            raise AssertionError(
                f"{self.name} (pid {self.pid}) exited with {self.popen.returncode}:\n{self.log_tail()}"
            )

    def stop(self) -> None:
        """SIGTERM to the group ``pid`` leads, SIGKILL after STOP_GRACE, then reap the leader."""
        for sig, wait in ((signal.SIGTERM, STOP_GRACE), (signal.SIGKILL, STOP_GRACE)):
            try:
                os.killpg(self.pid, sig)
            except ProcessLookupError:
                break
            try:
                self.popen.wait(timeout=wait)
            except subprocess.TimeoutExpired:
                continue
            # The leader is gone; anything else left in its group gets the same signal next round.
            if not _group_alive(self.pid):
                break
        if self.popen.poll() is None:
            self.popen.kill()
            self.popen.wait(timeout=STOP_GRACE)
        self._log.close()


def _group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def wait_for(what: str, probe: Callable[[], T | None], timeout: float, host: HostProcess | None = None) -> T:
    """Call ``probe`` until it returns something other than None; after ``timeout``, fail with the log."""
    deadline = time.monotonic() + timeout
    while True:
        if host is not None:
            host.require_running()
        result = probe()
        if result is not None:
            return result
        if time.monotonic() > deadline:
            log = f"\n{host.name}'s log:\n{host.log_tail()}" if host is not None else ""
            raise AssertionError(f"{what}: not within {timeout:.0f} s{log}")
        time.sleep(0.2)


def wait_for_port(port: int, host: HostProcess, timeout: float = START_TIMEOUT) -> None:
    def accepts() -> bool | None:
        try:
            with socket.create_connection((LOCALHOST, port), timeout=1):
                return True
        except OSError:
            return None

    wait_for(f"{host.name} listening on {LOCALHOST}:{port}", accepts, timeout, host)


# --- processes, read from /proc (Linux) ------------------------------------------------------


def _proc_stat(pid: int) -> tuple[str, int] | None:
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = text[text.rfind(")") + 2 :].split()  # the command name may hold spaces and ')'
    return fields[0], int(fields[1])


def _live_pids() -> dict[int, int]:
    """pid -> parent pid of every process that is not a zombie."""
    found: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            stat = _proc_stat(int(entry.name))
            if stat is not None and stat[0] not in ("Z", "X"):
                found[int(entry.name)] = stat[1]
    return found


def descendants(pid: int) -> set[int]:
    """Every live process below ``pid``."""
    parents = _live_pids()
    found: set[int] = set()
    frontier = {pid}
    while frontier:
        children = {child for child, parent in parents.items() if parent in frontier} - found
        found |= children
        frontier = children
    return found


def processes_with_marker(marker: str) -> set[int]:
    """Live processes whose command line holds ``marker`` (wherever they were reparented to)."""
    found: set[int] = set()
    for pid in _live_pids():
        try:
            cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
        except OSError:
            continue
        if marker.encode() in cmdline and pid != os.getpid():
            found.add(pid)
    return found
