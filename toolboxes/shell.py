"""ovos-shell-tools: ``run_command``, that runs a program for the model, and ``get_system_info``,
the facts about this computer a voice is asked for most (the user's name, the computer's name, the
operating system and kernel, how long it has been on), read by Python without starting a program.

``get_system_info`` is there whatever the settings: it reads what any program of the assistant's
user can read and changes nothing. Offered only ``run_command`` and its allowed programs (``whoami
(your user name)`` in its description), the bundled model answered "whats my user name on this
computer" by asking for the date and time, four runs of four; offered a tool named for the facts,
it called it.

``run_command`` is off unless the operator sets ``allow_shell: true``. When on, a command line is split with
``shlex`` into an argv and executed WITHOUT a shell. Shell syntax outside quotes (``|``, ``;``,
``&&``, ``||``, ``&``, ``<``, ``>``, backticks, ``$(``, a second line) is refused with a message
telling the model to run one program per call; quoted, such characters are plain text. The
allowlist is checked on the parsed ``argv[0]``, by name AND by the real path of the program that
would run, so ``/tmp/evil/ls`` is not ``ls``.

Config keys (defaults in brackets):

- ``allow_shell`` [false]: the master switch; while false every call is refused.
- ``allowed_commands`` [[] = any program]: programs the model may run. An entry is a name
  (``"ls"``), an absolute path (``"/usr/bin/git"``) or a name with leading arguments
  (``"git status"``: only ``git status ...``). Do not list launchers (``sh``, ``bash``, ``env``,
  ``xargs``, ``python``, ``find``...): they run anything they are given. Many ordinary tools are
  launchers through an option, and the allowlist checks only the program, never its arguments:
  ``find -exec``, ``awk 'BEGIN{system(...)}'``, ``sed 'e ...'``, ``tar --to-command``,
  ``rsync -e``, ``zip -TT``, ``less``/``man``/``vi`` (``!cmd``), ``make``, ``timeout``/``nice``/
  ``nohup``/``setsid``/``stdbuf``, and ``git`` (``-c core.pager=...``, aliases, and hooks or
  ``core.fsmonitor`` in a ``.git/config`` the model can WRITE with ovos-filesystem-tools, so even
  ``"git status"`` runs arbitrary code in a writable root). The toolbox warns about the best
  known of them; pin such programs with leading arguments or leave them out.
- Arguments are confined by the kernel, not by this code: with the Landlock sandbox (``sandbox``
  [true], see ``_core.kernel``) an allowed ``cat`` cannot read ``~/.ssh/id_rsa`` or write outside
  ``root_path``. Where the kernel has no Landlock, ``root_path`` confines the working folder only:
  the toolbox logs that once, ``diagnostics()`` reports it and ``require_sandbox: true`` refuses to
  start instead.
- ``sandbox`` [true] / ``require_sandbox`` [false] / ``allow_network`` [false]: the kernel sandbox,
  whether its absence is fatal, and whether sandboxed programs may open TCP connections.
- ``allow_shell_syntax`` [false]: run the line with ``/bin/sh -c`` so pipes and ``&&`` work. A
  shell line can start any program, so this cannot be combined with ``allowed_commands``: the
  toolbox refuses to start with both (a ``ValueError`` naming the keys).
- ``root_path`` [the project's own folder, ``$XDG_DATA_HOME/ovos-agentic-loop/files``, made on first
  use and shared with ovos-filesystem-tools; never the host's working folder unless it says ``"."``]:
  ``cwd`` must resolve inside it (the same rule as ovos-filesystem-tools: relative or absolute
  inside the root, no ``~``), and it is the one folder commands may write.
- ``max_timeout`` [25]: cap in seconds on the model's ``timeout`` (default 20). Keep it below the
  loop's ``tool_timeout`` (30 by default): the loop stops waiting then, and only this toolbox can
  kill the program, so a longer cap would let a command run on unseen after the model was told.
- ``env_allowlist`` [[]]: extra environment variable names passed through, on top of PATH, HOME,
  LANG, LANGUAGE, LC_*, TZ, TERM, TMPDIR and USER. Everything else (API keys!) is dropped. The
  values come from the assistant's own environment, never from the model; names that steer code
  loading (``LD_PRELOAD``, ``PYTHONPATH``...) are passed as configured but logged as a warning.
- Processes that leave the command's process group with ``setsid()`` are found and killed by a
  marker in their environment (see ``_core.process``); one that also replaces its environment escapes.
- ``max_output_bytes`` [32768]: per stream; the head and tail are kept, the full size reported.
- ``max_memory_mb`` [2048] / ``max_file_size_mb`` [256] / ``max_processes`` [null]: RLIMIT_AS,
  RLIMIT_FSIZE and RLIMIT_NPROC for the command (null or 0: not limited).

Every key is type-checked strictly (``"allow_shell": "false"`` is an error naming the key) and
unknown keys are logged by name. Commands longer than 8192 characters are refused before any work.
"""

from __future__ import annotations

import getpass
import os
import platform
import shlex
import socket
from dataclasses import dataclass
from typing import Annotated, Any

from ovos_plugin_manager.templates.agent_tools import AgentTool, ToolArguments, ToolOutput
from ovos_utils.log import LOG
from pydantic import ConfigDict, Field

from ovos_agentic_loop_toolboxes._core.errors import ToolboxConfigError, ToolCallError
from ovos_agentic_loop_toolboxes._core.folders import RootFolder
from ovos_agentic_loop_toolboxes._core.process import build_env, kill_active_runs, resolve_executable
from ovos_agentic_loop_toolboxes._core.runner import run_sandboxed
from ovos_agentic_loop_toolboxes._core.settings import (
    MAX_COMMAND_CHARS,
    MAX_PATH_CHARS,
    ProcessSettings,
    max_chars,
    parse_settings,
)
from ovos_agentic_loop_toolboxes._core.toolbox import BundledToolBox

__all__ = [
    "RunCommandArgs",
    "RunCommandOutput",
    "ShellSettings",
    "ShellToolBox",
    "SystemInfoArgs",
    "SystemInfoOutput",
    "shell_syntax_in",
]

TOOLBOX_ID = "ovos-shell-tools"
DEFAULT_TIMEOUT = 20
# Programs that run other programs (directly or through an option); listing one is warned about.
_LAUNCHERS = frozenset(
    {
        "sh", "bash", "dash", "zsh", "ksh", "fish", "busybox", "env", "xargs", "parallel", "python",
        "python3", "perl", "ruby", "node", "php", "lua", "find", "sudo", "doas", "su", "awk", "gawk",
        "mawk", "sed", "tar", "rsync", "ssh", "zip", "git", "make", "less", "more", "man", "vi", "vim",
        "nvim", "emacs", "timeout", "nice", "nohup", "setsid", "stdbuf", "strace", "gdb", "watch",
        "flock", "script", "expect", "pip", "npm", "npx",
    }
)  # fmt: skip


class RunCommandArgs(ToolArguments):
    model_config = ConfigDict(extra="forbid")

    command: Annotated[
        str,
        max_chars(MAX_COMMAND_CHARS, "command", "run a shorter command; put long input in a file first"),
    ] = Field(..., description="Program and arguments, such as 'ls -la docs'.")
    cwd: Annotated[str, max_chars(MAX_PATH_CHARS, "cwd", "give a shorter folder path")] = Field(
        ".", description="Working folder, relative to the allowed root."
    )
    timeout: int = Field(DEFAULT_TIMEOUT, description="Seconds before the command is killed.")


class RunCommandOutput(ToolOutput):
    returncode: int = Field(..., description="Exit code; negative means killed by that signal.")
    stdout: str = Field(..., description="Standard output (head and tail if truncated).")
    stderr: str = Field(..., description="Standard error (head and tail if truncated).")
    timed_out: bool = Field(..., description="True if the command was killed at the timeout.")
    truncated: bool = Field(..., description="True if output was cut; the sizes give the full length.")
    stdout_bytes: int = Field(..., description="Full size of stdout in bytes.")
    stderr_bytes: int = Field(..., description="Full size of stderr in bytes.")
    success: bool = Field(..., description="True if the exit code is 0.")
    note: str = Field("", description="What happened beyond the exit code (timeout, capped timeout).")


class SystemInfoArgs(ToolArguments):
    model_config = ConfigDict(extra="ignore")  # a model may pass what it wants to know: all is returned


class SystemInfoOutput(ToolOutput):
    user: str = Field(..., description="The name of the user the assistant runs as ('' if unknown).")
    computer_name: str = Field(..., description="This computer's name on the network (its hostname).")
    operating_system: str = Field(..., description="The operating system, as its release names itself.")
    kernel: str = Field(..., description="The kernel and its version.")
    architecture: str = Field(..., description="The processor architecture, such as x86_64.")
    processors: int = Field(..., description="How many processors (cores) the system reports.")
    uptime: str = Field("", description="How long the computer has been on, in words ('' if unknown).")


def _uptime_seconds() -> float | None:
    try:
        with open("/proc/uptime", encoding="ascii") as f:
            return float(f.read().split()[0])
    except (OSError, ValueError, IndexError):
        return None


def _in_words(seconds: float) -> str:
    """A span as a voice says it, to the minute ("three hours twelve minutes")."""
    from ovos_date_parser import nice_duration

    return str(
        nice_duration(int(seconds // 60) * 60 if seconds >= 60 else int(seconds), lang="en-us", speech=True)
    )


def _user() -> str:
    """The user the assistant runs as; '' where neither the environment nor the password database
    names one (a container started with a bare numeric uid): the model then says it cannot tell."""
    try:
        return getpass.getuser()
    except (KeyError, OSError):
        return ""


def _operating_system() -> str:
    try:
        return platform.freedesktop_os_release().get("PRETTY_NAME") or platform.platform()
    except OSError:  # no os-release file: not a freedesktop system (macOS, Windows)
        return platform.platform()


class ShellSettings(ProcessSettings):
    """The ``ovos-shell-tools`` section (see the module docstring for every key)."""

    allow_shell: bool = Field(False, description="Master switch; while false every call is refused.")
    allow_shell_syntax: bool = Field(False, description="Run the line with /bin/sh -c (pipes, &&).")
    allowed_commands: list[str] = Field(default_factory=list, description="Programs the model may run.")
    root_path: str | None = Field(
        None,
        description="Folder the working folder must lie in and the sandbox's writable folder. Default: "
        "the project's own folder ($XDG_DATA_HOME/ovos-agentic-loop/files, shared with "
        "ovos-filesystem-tools), never the host's working folder; '.' is the working folder.",
    )


@dataclass(frozen=True)
class _Allowed:
    """One ``allowed_commands`` entry, resolved once: the name, the real path and leading args."""

    entry: str
    name: str
    real: str | None
    args: tuple[str, ...]

    def matches(self, argv: list[str], real: str) -> bool:
        return (
            os.path.basename(argv[0]) == self.name
            and self.real == real
            and tuple(argv[1 : 1 + len(self.args)]) == self.args
        )


def _parse_allowed(entry: str, path: str, root: str) -> _Allowed:
    try:
        words = shlex.split(entry)
    except ValueError as exc:
        raise ToolboxConfigError(f"{TOOLBOX_ID}: allowed_commands entry {entry!r}: {exc}") from None
    if not words:
        raise ToolboxConfigError(f"{TOOLBOX_ID}: empty entry in allowed_commands; remove it")
    name = os.path.basename(words[0])
    if name in _LAUNCHERS:
        LOG.warning(f"{TOOLBOX_ID}: allowed_commands lists {name!r}, which can run any other program")
    real = resolve_executable(words[0], path, root)
    if real is None:
        LOG.warning(f"{TOOLBOX_ID}: allowed command {entry!r} was not found on PATH; it will never match")
    return _Allowed(entry=entry, name=name, real=real, args=tuple(words[1:]))


# Shell operators outside quotes. '$(' and backticks also work inside double quotes in sh.
_OPERATORS = ("&&", "||", "|", ";", "&", "<", ">", "\n")


def shell_syntax_in(command: str) -> str | None:
    """The first shell operator written outside quotes in ``command`` (one linear scan), or None."""
    quote = ""
    i, n = 0, len(command)
    while i < n:
        char = command[i]
        if char == "\\" and quote != "'":
            i += 2
            continue
        if quote == "'":
            quote = "" if char == "'" else quote
        elif char == "`" or command.startswith("$(", i):
            return char if char == "`" else "$("
        elif quote == '"':
            quote = "" if char == '"' else quote
        elif char in ("'", '"'):
            quote = char
        else:
            for op in _OPERATORS:
                if command.startswith(op, i):
                    return "a line break" if op == "\n" else op
        i += 1
    return None


# What a well-known program tells, said beside its name in the tool's description. Asked "whats my
# user name on this computer" with whoami allowed, the bundled model called the clock four times:
# it matches the question's words to the descriptions, and "whoami" holds none of them.
_GLOSSES = {
    "whoami": "your user name",
    "hostname": "this computer's name",
    "uptime": "how long the computer has been on",
    "df": "free disk space",
    "free": "free memory",
    "uname": "the operating system and kernel",
    "nproc": "the number of processors",
    "lsblk": "the disks",
    "ip": "the network addresses",
}


def _glossed(program: str) -> str:
    gloss = _GLOSSES.get(program)
    return f"{program} ({gloss})" if gloss else program


class ShellToolBox(BundledToolBox):
    """Runs one program per call, confined as described in the module docstring."""

    def __init__(self, config: dict[str, Any] | None = None, bus: Any = None) -> None:
        # Parsed before super().__init__: ToolBox.__init__ calls discover_tools and hides its errors.
        self.settings = parse_settings(ShellSettings, TOOLBOX_ID, config)
        s = self.settings
        if s.allow_shell_syntax and s.allowed_commands:
            raise ToolboxConfigError(
                f"{TOOLBOX_ID}: allow_shell_syntax cannot be combined with allowed_commands, because a "
                "shell line can start any program; remove one of the two keys"
            )
        self.root = RootFolder(TOOLBOX_ID, s.root_path)
        self.policy = s.run_policy(TOOLBOX_ID, starts_programs=s.allow_shell)
        self.kernel = self.policy.kernel
        path = build_env().get("PATH", os.defpath)
        self.allowed = tuple(_parse_allowed(e, path, self.root.path) for e in s.allowed_commands)
        LOG.info(f"{TOOLBOX_ID}: {self.diagnostics()[0]}")
        super().__init__(TOOLBOX_ID, config, bus)

    def stop_calls(self, thread_id: int) -> int:
        """Kill the programs a call running in thread ``thread_id`` started; returns how many runs.

        For a caller that stops waiting for a tool call (the loop at ``tool_timeout``): it can end
        the call's programs at once instead of leaving them to ``max_timeout``, and tell the model
        "stopped" only when this returned more than 0.
        """
        return kill_active_runs(thread_id)

    def role(self, name: str) -> dict[str, Any] | None:
        """run_command is the command runner: its command line, and the programs it allows (none
        listed: any program installed)."""
        if name != "run_command":
            return None
        role: dict[str, Any] = {"kind": "runner", "argument": "command"}
        if self.allowed:
            role["programs"] = sorted({a.name for a in self.allowed})
        return role

    def has_side_effects(self, name: str) -> bool:
        """Writes (a file, or whatever a program does): asked first where a loop confirms side effects."""
        return name == "run_command"

    def diagnostics(self) -> list[str]:
        """Status lines for ``doctor``: the switch, the kill deadline and the kernel sandbox."""
        s = self.settings
        if not s.allow_shell:
            return ["run_command: OFF (allow_shell is false)"]
        mode = "shell syntax" if s.allow_shell_syntax else "one program per call, no shell"
        programs = ", ".join(a.entry for a in self.allowed) or "any program"
        return [
            f"run_command: ON ({mode}; {programs}) in {self.root.describe()}",
            f"commands are killed after at most {s.max_timeout:g} s; keep the loop's tool_timeout above that",
            self.kernel.status(),
        ]

    def discover_tools(self) -> list[AgentTool]:
        return [
            AgentTool(
                name="run_command",
                description=self._description(),
                argument_schema=RunCommandArgs,
                output_schema=RunCommandOutput,
                tool_call=self.run_command,
            ),
            AgentTool(
                name="get_system_info",
                description="Facts about this computer: the user name, the computer's name (hostname), "
                "the operating system and kernel, the processors, and how long it has been on.",
                argument_schema=SystemInfoArgs,
                output_schema=SystemInfoOutput,
                tool_call=self.get_system_info,
            ),
        ]

    def _description(self) -> str:
        text = "Run one program and return its exit code and output."
        if self.allowed:
            names = ", ".join(_glossed(a.entry) for a in self.allowed)
            text += f" Allowed programs: {names}."
        if not self.settings.allow_shell_syntax:
            text += " No shell: pipes, ';', '&&' and redirections do not work."
        return text

    # -- the tools ----------------------------------------------------------
    def get_system_info(self, args: SystemInfoArgs) -> SystemInfoOutput:
        """Read by Python (no program started): the same answer with ``allow_shell`` on or off."""
        up = _uptime_seconds()
        return SystemInfoOutput(
            user=_user(),
            computer_name=socket.gethostname(),
            operating_system=_operating_system(),
            kernel=f"{platform.system()} {platform.release()}".strip(),
            architecture=platform.machine(),
            processors=os.cpu_count() or 1,
            uptime=_in_words(up) if up is not None else "",
        )

    def run_command(self, args: RunCommandArgs) -> RunCommandOutput:
        s = self.settings
        if not s.allow_shell:
            raise ToolCallError(
                "run_command is disabled on this assistant (allow_shell is off); "
                "answer without running commands"
            )
        cwd = self._resolve_cwd(args.cwd)
        env = self.policy.env()
        if s.allow_shell_syntax:
            if not args.command.strip():
                raise ToolCallError("command is empty; give a program and its arguments")
            program, argv = "/bin/sh", ["/bin/sh", "-c", args.command]
        else:
            program, argv = self._checked_argv(args.command, env["PATH"], cwd)
        if not self.kernel.can_run(program, [self.root.path], []):
            raise ToolCallError(
                f"{argv[0]!r} ({program}) lies outside the folders the sandbox runs programs from "
                "(/usr, /bin, /lib and the root folder); use a system program"
            )
        timeout = min(max(args.timeout, 1), s.max_timeout)
        LOG.info(f"{TOOLBOX_ID}: running {argv[:20]!r} in {cwd} (timeout {timeout:g}s)")
        sandboxed = self.kernel.active
        result = run_sandboxed(
            self.policy,
            argv,
            executable=program,
            env=env,
            timeout=timeout,
            cwd=cwd,
            writable=self.root.path,
            what=repr(argv[0]),
        )
        notes = []
        if result.timed_out:
            notes.append(
                f"killed after {timeout:g} seconds, with every process it started; "
                "run something quicker or on less input"
            )
        if sandboxed and result.returncode != 0 and "Permission denied" in result.stderr:
            notes.append(
                "the sandbox lets programs read only the root folder and system folders, write only "
                "the root folder, and (unless allowed) open no network connections"
            )
        if args.timeout > s.max_timeout:
            notes.append(f"the timeout was capped at {s.max_timeout:g} seconds (the most allowed here)")
        return RunCommandOutput(
            returncode=result.returncode,
            stdout=result.stdout,
            stderr=result.stderr,
            timed_out=result.timed_out,
            truncated=result.truncated,
            stdout_bytes=result.stdout_bytes,
            stderr_bytes=result.stderr_bytes,
            success=result.returncode == 0 and not result.timed_out,
            note="; ".join(notes),
        )

    def _resolve_cwd(self, cwd: str) -> str:
        try:
            folder = self.root.sandbox.resolve(cwd or ".", "cwd")
        except (PermissionError, ValueError) as exc:
            raise ToolCallError(f"{exc}; use '.' or a folder inside it") from None
        if not os.path.isdir(folder.real):
            raise ToolCallError(f"cwd {cwd!r} is not an existing folder; use '.' or an existing folder")
        return folder.real

    def _checked_argv(self, command: str, path: str, cwd: str) -> tuple[str, list[str]]:
        """The real path of the program to run and the argv, after the syntax and allowlist checks."""
        if "\x00" in command:
            raise ToolCallError("command contains a NUL byte; remove control characters")
        operator = shell_syntax_in(command)
        if operator is not None:
            raise ToolCallError(
                f"pipes, redirects and command chaining are not available here (the command has "
                f"{operator!r} outside quotes, and no shell runs it): run one program per call, use its "
                "own options to filter or write output, or quote the character if it is plain text"
            )
        try:
            argv = shlex.split(command)
        except ValueError as exc:
            raise ToolCallError(f"could not split the command line ({exc}); check the quotes") from exc
        if not argv:
            raise ToolCallError("command is empty; give a program and its arguments")
        real = resolve_executable(argv[0], path, cwd)
        if self.allowed and (real is None or not any(a.matches(argv, real) for a in self.allowed)):
            names = ", ".join(a.entry for a in self.allowed)
            raise ToolCallError(f"{argv[0]!r} is not an allowed program here; allowed: {names}")
        if real is None:
            raise ToolCallError(f"program {argv[0]!r} was not found; check its name")
        # Run the exact file that was checked, so a PATH lookup cannot pick a different one later.
        return real, argv
