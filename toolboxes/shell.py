"""ovos-shell-tools: one tool, ``run_command``, that runs a program for the model.

Off unless the operator sets ``allow_shell: true``. When on, a command line is split with
``shlex`` into an argv and executed WITHOUT a shell, so ``;``, ``&&``, ``|``, ``$(...)``, backticks
and redirections reach the program as plain arguments and cannot start a second program behind
the allowlist's back. The allowlist is checked on the parsed ``argv[0]``, by name AND by the real
path of the program that would run, so ``/tmp/evil/ls`` is not ``ls``.

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
- Arguments are not confined: ``root_path`` confines the working folder only, so an allowed
  ``cat`` reads ``/etc/passwd`` or ``~/.ssh/id_rsa`` like any other file the user can read. Run
  the assistant as a user that may read only what the model may see.
- ``allow_shell_syntax`` [false]: run the line with ``/bin/sh -c`` so pipes and ``&&`` work. A
  shell line can start any program, so this cannot be combined with ``allowed_commands``: the
  toolbox refuses to start with both (a ``ValueError`` naming the keys).
- ``root_path`` [the process working directory]: ``cwd`` must resolve inside it.
- ``max_timeout`` [120]: cap in seconds on the model's ``timeout`` (default 30).
- ``env_allowlist`` [[]]: extra environment variable names passed through, on top of PATH, HOME,
  LANG, LANGUAGE, LC_*, TZ, TERM, TMPDIR and USER. Everything else (API keys!) is dropped. The
  values come from the assistant's own environment, never from the model; names that steer code
  loading (``LD_PRELOAD``, ``PYTHONPATH``...) are passed as configured but logged as a warning.
- Processes that leave the command's process group with ``setsid()`` are found and killed by a
  marker in their environment (see ``_process``); one that also replaces its environment escapes.
- ``max_output_bytes`` [32768]: per stream; the head and tail are kept, the full size reported.
- ``max_memory_mb`` [2048] / ``max_file_size_mb`` [256] / ``max_processes`` [null]: RLIMIT_AS,
  RLIMIT_FSIZE and RLIMIT_NPROC for the command (null or 0: not limited).
"""

from __future__ import annotations

import os
import shlex
from dataclasses import dataclass
from typing import Any

from ovos_plugin_manager.templates.agent_tools import AgentTool, ToolArguments, ToolBox, ToolOutput
from ovos_utils.log import LOG
from pydantic import ConfigDict, Field

from ovos_agentic_loop_toolboxes._process import (
    Limits,
    ToolCallError,
    build_env,
    resolve_executable,
    run_process,
    warn_dangerous_env_names,
)

__all__ = ["RunCommandArgs", "RunCommandOutput", "ShellToolBox"]

TOOLBOX_ID = "ovos-shell-tools"
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

    command: str = Field(..., description="Program and arguments, e.g. 'ls -la docs'. No pipes or ';'.")
    cwd: str = Field(".", description="Working folder, relative to the allowed root.")
    timeout: int = Field(30, description="Seconds before the command is killed.")


class RunCommandOutput(ToolOutput):
    returncode: int = Field(..., description="Exit code; negative means killed by that signal.")
    stdout: str = Field(..., description="Standard output (head and tail if truncated).")
    stderr: str = Field(..., description="Standard error (head and tail if truncated).")
    timed_out: bool = Field(..., description="True if the command was killed at the timeout.")
    truncated: bool = Field(..., description="True if output was cut; the sizes give the full length.")
    stdout_bytes: int = Field(..., description="Full size of stdout in bytes.")
    stderr_bytes: int = Field(..., description="Full size of stderr in bytes.")
    success: bool = Field(..., description="True if the exit code is 0.")


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


@dataclass(frozen=True)
class ShellSettings:
    """The toolbox config, parsed once."""

    enabled: bool
    shell_syntax: bool
    allowed: tuple[_Allowed, ...]
    root: str
    max_timeout: int
    env_names: tuple[str, ...]
    max_output_bytes: int
    limits: Limits

    @classmethod
    def from_config(cls, config: dict[str, Any]) -> ShellSettings:
        root = os.path.realpath(os.path.expanduser(str(config.get("root_path") or os.getcwd())))
        raw_allowed = config.get("allowed_commands") or []
        if isinstance(raw_allowed, str) or not all(isinstance(e, str) for e in raw_allowed):
            raise ValueError(f"{TOOLBOX_ID}: allowed_commands must be a list of strings, got {raw_allowed!r}")
        shell_syntax = bool(config.get("allow_shell_syntax", False))
        if shell_syntax and raw_allowed:
            raise ValueError(
                f"{TOOLBOX_ID}: allow_shell_syntax cannot be combined with allowed_commands, because a "
                "shell line can start any program; remove one of the two keys"
            )
        path = build_env().get("PATH", os.defpath)
        allowed = tuple(_parse_allowed(e, path, root) for e in raw_allowed)
        env_names = tuple(config.get("env_allowlist") or ())
        warn_dangerous_env_names(env_names, TOOLBOX_ID)
        return cls(
            enabled=bool(config.get("allow_shell", False)),
            shell_syntax=shell_syntax,
            allowed=allowed,
            root=root,
            max_timeout=max(1, int(config.get("max_timeout", 120))),
            env_names=env_names,
            max_output_bytes=max(256, int(config.get("max_output_bytes", 32768))),
            limits=Limits(
                address_space_mb=config.get("max_memory_mb", 2048),
                file_size_mb=config.get("max_file_size_mb", 256),
                processes=config.get("max_processes"),
            ),
        )


def _parse_allowed(entry: str, path: str, root: str) -> _Allowed:
    words = shlex.split(entry)
    if not words:
        raise ValueError(f"{TOOLBOX_ID}: empty entry in allowed_commands")
    name = os.path.basename(words[0])
    if name in _LAUNCHERS:
        LOG.warning(f"{TOOLBOX_ID}: allowed_commands lists {name!r}, which can run any other program")
    real = resolve_executable(words[0], path, root)
    if real is None:
        LOG.warning(f"{TOOLBOX_ID}: allowed command {entry!r} was not found on PATH; it will never match")
    return _Allowed(entry=entry, name=name, real=real, args=tuple(words[1:]))


class ShellToolBox(ToolBox):
    """Runs one program per call, confined as described in the module docstring."""

    def __init__(self, config: dict[str, Any] | None = None, bus: Any = None) -> None:
        # Parsed before super().__init__: ToolBox.__init__ calls discover_tools and hides its errors.
        self.settings = ShellSettings.from_config(config or {})
        super().__init__(TOOLBOX_ID, config, bus)

    def discover_tools(self) -> list[AgentTool]:
        return [
            AgentTool(
                name="run_command",
                description=self._description(),
                argument_schema=RunCommandArgs,
                output_schema=RunCommandOutput,
                tool_call=self.run_command,
            )
        ]

    def _description(self) -> str:
        text = "Run one program and return its exit code and output."
        if self.settings.allowed:
            names = ", ".join(a.entry for a in self.settings.allowed)
            text += f" Allowed programs: {names}."
        if not self.settings.shell_syntax:
            text += " No shell: pipes, ';', '&&' and redirections do not work."
        return text

    # -- the tool -----------------------------------------------------------
    def run_command(self, args: RunCommandArgs) -> RunCommandOutput:
        s = self.settings
        if not s.enabled:
            raise ToolCallError(
                "run_command is disabled on this assistant (allow_shell is off); "
                "answer without running commands"
            )
        cwd = self._resolve_cwd(args.cwd)
        env = build_env(s.env_names)
        if s.shell_syntax:
            if not args.command.strip():
                raise ToolCallError("command is empty; give a program and its arguments")
            program, argv = "/bin/sh", ["/bin/sh", "-c", args.command]
        else:
            program, argv = self._checked_argv(args.command, env["PATH"], cwd)
        timeout = min(max(args.timeout, 1), s.max_timeout)
        LOG.info(f"{TOOLBOX_ID}: running {argv!r} in {cwd} (timeout {timeout}s)")
        try:
            result = run_process(
                argv,
                cwd=cwd,
                env=env,
                timeout=timeout,
                max_output_bytes=s.max_output_bytes,
                limits=s.limits,
                executable=program,
            )
        except OSError as exc:
            raise ToolCallError(f"could not start {argv[0]!r}: {exc.strerror or exc}") from exc
        return RunCommandOutput(
            returncode=result.returncode,
            stdout=result.stdout,
            stderr=result.stderr,
            timed_out=result.timed_out,
            truncated=result.truncated,
            stdout_bytes=result.stdout_bytes,
            stderr_bytes=result.stderr_bytes,
            success=result.returncode == 0 and not result.timed_out,
        )

    def _resolve_cwd(self, cwd: str) -> str:
        root = self.settings.root
        if "\x00" in cwd:
            raise ToolCallError("cwd contains a NUL byte; give a folder path relative to the root")
        joined = os.path.join(root, os.path.expanduser(cwd) if cwd.startswith("~") else cwd or ".")
        real = os.path.realpath(joined)
        if real != root and not real.startswith(root.rstrip(os.sep) + os.sep):
            raise ToolCallError(
                f"cwd {cwd!r} is outside the allowed folder {root}; use '.' or a folder inside it"
            )
        if not os.path.isdir(real):
            raise ToolCallError(f"cwd {cwd!r} is not an existing folder; use '.' or an existing folder")
        return real

    def _checked_argv(self, command: str, path: str, cwd: str) -> tuple[str, list[str]]:
        """The real path of the program to run and the argv, after the allowlist check."""
        if "\x00" in command:
            raise ToolCallError("command contains a NUL byte; remove control characters")
        try:
            argv = shlex.split(command)
        except ValueError as exc:
            raise ToolCallError(f"could not split the command line ({exc}); check the quotes") from exc
        if not argv:
            raise ToolCallError("command is empty; give a program and its arguments")
        real = resolve_executable(argv[0], path, cwd)
        allowed = self.settings.allowed
        if allowed and (real is None or not any(a.matches(argv, real) for a in allowed)):
            names = ", ".join(a.entry for a in allowed)
            raise ToolCallError(f"{argv[0]!r} is not an allowed program here; allowed: {names}")
        if real is None:
            raise ToolCallError(f"program {argv[0]!r} was not found; check its name")
        # Run the exact file that was checked, so a PATH lookup cannot pick a different one later.
        return real, argv
