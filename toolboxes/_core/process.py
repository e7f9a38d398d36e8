"""A bounded subprocess runner shared by the shell and SKILL.md toolboxes.

What it guarantees, and why:

- **No shell.** It takes an argv list; whoever calls it decides whether that list starts with
  ``/bin/sh -c``. Nothing here re-parses a string.
- **Reduced environment.** :func:`build_env` keeps only an allowlist of variable names, so API keys
  and tokens in the host's environment never reach a model-chosen program.
- **No stdin.** The child reads ``/dev/null``: a program waiting for input ends instead of hanging.
- **Own process group.** ``start_new_session=True`` puts the child and everything it forks into one
  group. The whole group is SIGKILLed on timeout AND after a normal exit, so a background child
  (``sleep 100 &``) never outlives the call.
- **Marked processes.** A program that calls ``setsid()`` itself (``setsid sleep 100``, a daemon)
  leaves the group. Every child therefore also gets ``OVOS_AGENT_RUN_ID=<fresh token>`` in its
  environment, which its descendants inherit, and whenever the group is killed ``/proc/*/environ``
  is scanned and every process carrying the token is SIGKILLed too (through a pidfd, so a recycled
  pid is never hit). What still escapes: a descendant that replaces its environment on ``exec``
  (``env -i``, ``execve`` with a new env) or runs as another user. Only cgroups (a systemd scope,
  a container) contain those; ``RLIMIT_NPROC`` (off by default, it counts every process of the
  user) at least bounds their number.
- **Bounded output.** stdout and stderr are read as they arrive into :class:`CappedBuffer`, which
  keeps a head and a tail and counts the rest, so ``yes`` for minutes costs a few hundred KiB.
- **Resource limits, death signal, kernel sandbox.** A small launcher (``_launcher.py``, run by the
  same Python with ``-S -E -s``) sets ``RLIMIT_AS`` / ``RLIMIT_FSIZE`` / ``RLIMIT_NPROC``, asks the
  kernel to SIGKILL it if the assistant dies (``PR_SET_PDEATHSIG``), applies the Landlock policy
  (see ``kernel``) and then ``exec``s the target, so the program itself carries all of it. This
  avoids ``preexec_fn``, which is not safe when the host process has threads (the assistant has).
- **Nothing outlives the assistant.** At interpreter exit every run still going is killed (its
  group and marked processes); on SIGKILL of the assistant the death signal kills each run's
  program (what that program started in turn is then only reached by the next sweep of a marker,
  which no longer happens: run the assistant in a systemd unit or container to cover that case).
- **Honest timeouts.** ``timed_out`` is set only after the group was SIGKILLed and the leader
  reaped: when a result says a command was stopped, it was.
"""

from __future__ import annotations

import atexit
import contextlib
import json
import os
import secrets
import selectors
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import IO

from ovos_utils.log import LOG

from ovos_agentic_loop_toolboxes._core.errors import ToolCallError

__all__ = [
    "DEFAULT_ENV_NAMES",
    "RUN_MARKER",
    "CappedBuffer",
    "Limits",
    "ProcessResult",
    "ToolCallError",
    "build_env",
    "is_dangerous_env_name",
    "kill_active_runs",
    "kill_marked",
    "resolve_executable",
    "run_process",
    "warn_dangerous_env_names",
]


# Names always passed through. LC_* is matched as a prefix in build_env.
DEFAULT_ENV_NAMES: tuple[str, ...] = ("PATH", "HOME", "LANG", "LANGUAGE", "TZ", "TERM", "TMPDIR", "USER")

# Variables that change which program runs or what code it loads: never settable by a model.
# PATH is one of them: with PATH pointing at a folder the model can write to, every program a
# script calls by name ('ls', 'python3') is the model's choice.
_DANGEROUS_ENV = frozenset(
    {
        "LD_PRELOAD", "LD_LIBRARY_PATH", "LD_AUDIT", "BASH_ENV", "ENV", "IFS", "SHELLOPTS", "BASHOPTS",
        "PATH", "CDPATH", "GLOBIGNORE", "PS4", "PROMPT_COMMAND", "SKILL_DIR", "GCONV_PATH",
        "GLIBC_TUNABLES", "HOSTALIASES", "LOCPATH", "NLSPATH", "PERL5LIB", "PERL5OPT", "PERLLIB",
        "RUBYLIB", "RUBYOPT", "NODE_OPTIONS", "NODE_PATH",
    }
)  # fmt: skip
_DANGEROUS_PREFIXES = ("LD_", "PYTHON", "BASH_FUNC_", "DYLD_", "GIT_", "OVOS_AGENT_")

# The variable that marks every process started for one run (see the module docstring).
RUN_MARKER = "OVOS_AGENT_RUN_ID"
# Sweeps for marked processes: each round catches what the previous one's victims forked meanwhile.
_MARKER_ROUNDS = 5

_READ_CHUNK = 65536
# After the leader exits, stragglers holding the pipes get this long before the group is killed.
_EXIT_GRACE = 0.2
# After a kill, pipes are drained for at most this long (a setsid'ed grandchild may hold them).
_DRAIN_AFTER_KILL = 1.0


def is_dangerous_env_name(name: str) -> bool:
    """Whether setting ``name`` could redirect code loading (``LD_PRELOAD``, ``PYTHONPATH``...)."""
    upper = name.upper()
    return upper in _DANGEROUS_ENV or upper.startswith(_DANGEROUS_PREFIXES)


def warn_dangerous_env_names(names: Iterable[str], owner: str) -> None:
    """Log the ``env_allowlist`` names that steer code loading (their values come from the host)."""
    risky = sorted(
        n for n in names if isinstance(n, str) and n not in DEFAULT_ENV_NAMES and is_dangerous_env_name(n)
    )
    if risky:
        LOG.warning(
            f"{owner}: env_allowlist passes {risky} to every command; they change which code programs "
            "load, so remove them unless the programs need them"
        )


def build_env(
    extra_names: Iterable[str] = (),
    overrides: Mapping[str, str] | None = None,
    source: Mapping[str, str] | None = None,
) -> dict[str, str]:
    """The environment for a child: allowlisted names from ``source`` plus ``overrides``.

    ``source`` defaults to ``os.environ`` read at call time (tests patch it). Names in
    ``extra_names`` come from the operator's config, ``overrides`` from the caller.
    """
    src = os.environ if source is None else source
    allowed = set(DEFAULT_ENV_NAMES) | {n for n in extra_names if isinstance(n, str)}
    env = {k: v for k, v in src.items() if k in allowed or k.startswith("LC_")}
    env.setdefault("PATH", os.defpath)
    if overrides:
        env.update(overrides)
    return env


def resolve_executable(name: str, path: str, cwd: str) -> str | None:
    """The real (symlink-resolved) path of the program ``name`` would run, or None.

    A name with a '/' is a path (relative to ``cwd``); a bare name is looked up in ``path``,
    the child's PATH, exactly as ``execvp`` would.
    """
    if "/" in name:
        candidate = name if os.path.isabs(name) else os.path.join(cwd, name)
        if not (os.path.isfile(candidate) and os.access(candidate, os.X_OK)):
            return None
    else:
        found = shutil.which(name, path=path)
        if found is None:
            return None
        candidate = found if os.path.isabs(found) else os.path.join(cwd, found)
    return os.path.realpath(candidate)


@dataclass(frozen=True)
class Limits:
    """Kernel resource limits for the child; ``None`` leaves a limit as inherited.

    ``address_space_mb`` caps virtual memory (RLIMIT_AS), ``file_size_mb`` the size of any file
    the child writes (RLIMIT_FSIZE), ``processes`` the number of processes of the USER
    (RLIMIT_NPROC, so it counts the host's processes too; keep it off unless the user is dedicated).
    """

    address_space_mb: int | None = 2048
    file_size_mb: int | None = 256
    processes: int | None = None

    def as_rlimits(self) -> dict[str, int]:
        mib = 1024 * 1024
        out: dict[str, int] = {}
        if self.address_space_mb:
            out["RLIMIT_AS"] = int(self.address_space_mb) * mib
        if self.file_size_mb:
            out["RLIMIT_FSIZE"] = int(self.file_size_mb) * mib
        if self.processes:
            out["RLIMIT_NPROC"] = int(self.processes)
        return out


# The child side (limits, death signal, Landlock, then exec); see its docstring.
_LAUNCHER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "_launcher.py")
_LAUNCH_FAILED = 126
_LAUNCH_PREFIX = "ovos sandbox: "


class CappedBuffer:
    """Keeps the first and last ``limit // 2`` bytes of a stream and counts all of it."""

    def __init__(self, limit: int) -> None:
        self.head_limit = max(limit // 2, 1)
        self.tail_limit = max(limit - self.head_limit, 1)
        self.head = bytearray()
        self.tail = bytearray()
        self.total = 0

    def feed(self, data: bytes) -> None:
        self.total += len(data)
        room = self.head_limit - len(self.head)
        if room > 0:
            self.head += data[:room]
            data = data[room:]
        if data:
            self.tail += data
            excess = len(self.tail) - self.tail_limit
            if excess > 0:
                del self.tail[:excess]

    @property
    def truncated(self) -> bool:
        return self.total > len(self.head) + len(self.tail)

    def text(self) -> str:
        head = self.head.decode("utf-8", errors="replace")
        tail = self.tail.decode("utf-8", errors="replace")
        if not self.truncated:
            return head + tail
        omitted = self.total - len(self.head) - len(self.tail)
        return f"{head}\n[... {omitted} bytes omitted, {self.total} bytes in total ...]\n{tail}"


@dataclass(frozen=True)
class ProcessResult:
    """What a finished (or killed) child left behind. ``returncode`` < 0 means killed by a signal."""

    returncode: int
    stdout: str
    stderr: str
    stdout_bytes: int
    stderr_bytes: int
    timed_out: bool
    truncated: bool
    duration: float


def run_process(
    argv: list[str],
    *,
    cwd: str,
    env: Mapping[str, str],
    timeout: float,
    max_output_bytes: int = 65536,
    limits: Limits | None = None,
    executable: str | None = None,
    landlock: Mapping[str, object] | None = None,
) -> ProcessResult:
    """Run a program with the guarantees listed in the module docstring.

    ``executable`` is the absolute path of the file to run (default ``argv[0]``); ``argv[0]`` may
    then stay the name the program was called by (multi-call binaries such as busybox need it).
    ``landlock`` is a :class:`~._core.landlock.Policy` as a dict (see ``kernel.KernelSandbox``);
    None runs the program unconfined. Raises ``OSError`` if the program cannot be started at all
    (including when the sandbox cannot be applied: the program then never runs).
    """
    program = executable or (argv[0] if argv else "")
    if not argv or not os.path.isabs(program):
        raise ValueError("run_process needs a non-empty argv and an absolute path to the program")
    spec = {"parent": os.getpid(), "rlimits": (limits or Limits()).as_rlimits(), "landlock": landlock}
    real_argv = [sys.executable, "-S", "-E", "-s", _LAUNCHER, json.dumps(spec), program, *argv]
    token = secrets.token_hex(16)
    start = time.monotonic()
    proc = subprocess.Popen(
        real_argv,
        executable=sys.executable,
        cwd=cwd,
        env={**env, RUN_MARKER: token},
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
        close_fds=True,
    )
    with _active_lock:
        _active[proc.pid] = (token, threading.get_ident())
    out, err = CappedBuffer(max_output_bytes), CappedBuffer(max_output_bytes)
    try:
        timed_out = _pump(proc, {proc.stdout: out, proc.stderr: err}, start + timeout, token)
    finally:
        # Kill the group while the leader is (at worst) an unreaped zombie, so its id still names
        # this group: this removes background children on every path, including exceptions.
        _kill_run(proc.pid, token)
        proc.wait()
        _await_group_exit(proc.pid, _DRAIN_AFTER_KILL)
        with _active_lock:
            _active.pop(proc.pid, None)
        for pipe in (proc.stdout, proc.stderr):
            if pipe is not None:
                pipe.close()
    stderr = err.text()
    if proc.returncode == _LAUNCH_FAILED and stderr.startswith(_LAUNCH_PREFIX):
        raise OSError(stderr[len(_LAUNCH_PREFIX) :].strip())
    return ProcessResult(
        returncode=proc.returncode,
        stdout=out.text(),
        stderr=stderr,
        stdout_bytes=out.total,
        stderr_bytes=err.total,
        timed_out=timed_out,
        truncated=out.truncated or err.truncated,
        duration=time.monotonic() - start,
    )


# Runs still going, pid -> marker: killed at interpreter exit. Tool calls run in daemon threads
# that the interpreter abandons at exit; the death signal (see _launcher) kills each run's first
# process then, and this kills what it started (its group and marked processes).
_active: dict[int, tuple[str, int]] = {}  # pid -> (marker, id of the thread waiting for it)
_active_lock = threading.Lock()


def kill_active_runs(thread_id: int | None = None) -> int:
    """SIGKILL the runs still going (their groups and marked processes); returns how many.

    With ``thread_id``, only the runs that thread waits for: the caller that gave up on a tool
    call stops exactly that call's programs, not those of other sessions.
    """
    with _active_lock:
        runs = [(pid, token) for pid, (token, owner) in _active.items() if thread_id in (None, owner)]
    for pid, token in runs:
        _kill_run(pid, token)
    return len(runs)


def _kill_all_at_exit() -> None:
    kill_active_runs()


atexit.register(_kill_all_at_exit)


def _pump(
    proc: subprocess.Popen[bytes], buffers: dict[IO[bytes] | None, CappedBuffer], deadline: float, token: str
) -> bool:
    """Read both pipes until the leader has exited and the pipes are drained, or the deadline.

    Returns True when the deadline was hit (the group is then already killed).
    """
    selector = selectors.DefaultSelector()
    for pipe, buf in buffers.items():
        if pipe is not None:
            selector.register(pipe, selectors.EVENT_READ, buf)
    exited_at: float | None = None
    kill_deadline: float | None = None
    timed_out = False
    try:
        while selector.get_map():
            now = time.monotonic()
            if kill_deadline is not None:
                if now >= kill_deadline:
                    break  # Someone outside the group still holds a pipe; stop waiting for it.
            elif now >= deadline:
                timed_out = True
                _kill_run(proc.pid, token)
                kill_deadline = now + _DRAIN_AFTER_KILL
            elif exited_at is None and _leader_exited(proc.pid):
                exited_at = now
            elif exited_at is not None and now - exited_at >= _EXIT_GRACE:
                # The leader is gone but a background child keeps the pipes open: end it.
                _kill_run(proc.pid, token)
                kill_deadline = now + _DRAIN_AFTER_KILL
            wait = min(0.05, max(deadline - now, 0.0)) if kill_deadline is None else 0.05
            for key, _ in selector.select(timeout=wait):
                data = os.read(key.fd, _READ_CHUNK)
                if data:
                    key.data.feed(data)
                else:
                    selector.unregister(key.fileobj)
        # Pipes closed; the leader may still run (it closed its own stdout). Wait within the deadline.
        while not timed_out and not _leader_exited(proc.pid):
            if time.monotonic() >= deadline:
                timed_out = True
                break
            time.sleep(0.01)
    finally:
        selector.close()
    return timed_out


def _leader_exited(pid: int) -> bool:
    """Whether the child has exited, WITHOUT reaping it (so its pid keeps naming the group)."""
    try:
        info = os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)
    except ChildProcessError:
        return True
    return info is not None


def _await_group_exit(pgid: int, timeout: float) -> None:
    """Wait until no live process is left in the group: SIGKILL is delivered asynchronously.

    Members killed while the host's init does not reap orphans stay zombies forever; they hold
    no resources but keep the group id alive, so liveness is read from /proc, not from kill(0).
    """
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            os.killpg(pgid, 0)
        except (ProcessLookupError, PermissionError):
            return
        if not _live_members(pgid):
            return
        time.sleep(0.005)
    LOG.warning(f"process group {pgid} still has live members after SIGKILL")


def _live_members(pgid: int) -> bool:
    """Whether /proc shows a non-zombie process in group ``pgid`` (True when /proc is missing)."""
    try:
        entries = os.listdir("/proc")
    except OSError:
        return True
    for entry in entries:
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as fh:
                fields = fh.read().rsplit(b")", 1)[1].split()
        except OSError:
            continue
        # After the command name: state, ppid, pgrp.
        if int(fields[2]) == pgid and fields[0] not in (b"Z", b"X"):
            return True
    return False


def _kill_group(pgid: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, signal.SIGKILL)


def _kill_run(pgid: int, token: str) -> None:
    """SIGKILL the run's process group and every process that carries its marker."""
    _kill_group(pgid)
    kill_marked(token)


def kill_marked(token: str) -> int:
    """SIGKILL every process whose environment holds ``RUN_MARKER=token``; returns how many."""
    needle = f"{RUN_MARKER}={token}".encode()
    killed = 0
    for _ in range(_MARKER_ROUNDS):
        try:
            pids = [int(name) for name in os.listdir("/proc") if name.isdigit()]
        except OSError:
            return killed  # No /proc: nothing more can be done here.
        found = 0
        for pid in pids:
            if pid != os.getpid() and _signal_if_marked(pid, needle):
                found += 1
        killed += found
        if not found:
            break
    return killed


def _signal_if_marked(pid: int, needle: bytes) -> bool:
    handle: int | None = None
    try:
        # A pidfd pins the process: if the pid is recycled meanwhile, the kill fails instead of
        # hitting a stranger.
        handle = os.pidfd_open(pid) if hasattr(os, "pidfd_open") else None
        with open(f"/proc/{pid}/environ", "rb") as fh:
            marked = needle in fh.read().split(b"\0")
        if marked:
            if handle is not None:
                signal.pidfd_send_signal(handle, signal.SIGKILL)
            else:
                os.kill(pid, signal.SIGKILL)
        return marked
    except OSError:  # Gone, a zombie, or another user's process.
        return False
    finally:
        if handle is not None:
            os.close(handle)
