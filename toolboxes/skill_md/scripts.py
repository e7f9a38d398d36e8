"""Executable skills: an argument model from ``## Parameters``, the argv, and the run itself.

Argument passing, and why:

- Positionals go in position order. A value starting with '-' is REFUSED for positionals and
  for named options: scripts parse their argv with argparse or plain ``$1``, and a leading '-'
  would turn data into an option (``--output=/etc/x``). Putting positionals after ``--`` is not
  an option, because a ``$1``-style bash script would receive the ``--`` itself. Negative numbers
  are fine: ``int``/``float`` parameters are validated as numbers first.
- An optional positional cannot be skipped when a later one is given (argv has no holes).
- Named options are ``--name VALUE``; flags are ``--name`` when true; env parameters become
  environment variables (never ``PATH``, ``LD_*``, ``PYTHON*``, ``GIT_*`` and the other names of
  ``_core.process.is_dangerous_env_name``: refused when the file is parsed).
- No shell is involved, so ``;``, ``$(...)`` and backticks in a value are just characters.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
import threading
from dataclasses import dataclass, field
from typing import Any

from ovos_plugin_manager.templates.agent_tools import ToolArguments, ToolOutput
from ovos_utils.log import LOG
from pydantic import BaseModel, ConfigDict, Field, create_model

from ovos_agentic_loop_toolboxes._core.errors import ToolCallError
from ovos_agentic_loop_toolboxes._core.kernel import KernelSandbox
from ovos_agentic_loop_toolboxes._core.paths import Sandbox
from ovos_agentic_loop_toolboxes._core.process import Limits, build_env, resolve_executable, run_process
from ovos_agentic_loop_toolboxes._core.runner import RunPolicy, run_sandboxed
from ovos_agentic_loop_toolboxes._core.settings import MAX_COMMAND_CHARS
from ovos_agentic_loop_toolboxes.skill_md.parser import Param, Skill

__all__ = ["ScriptSettings", "SkillScriptOutput", "args_model", "build_argv", "run_script"]

_PY_TYPES: dict[str, Any] = {"str": str, "int": int, "float": float, "bool": bool, "list": list[str]}


class SkillScriptOutput(ToolOutput):
    skill: str = Field(..., description="The skill that ran.")
    returncode: int = Field(..., description="Exit code of the script (0 = success).")
    result: Any = Field(None, description="The script's JSON output, parsed; null if it printed text.")
    stdout: str = Field("", description="The script's text output when it was not JSON.")
    stderr: str = Field("", description="Warnings the script printed.")
    truncated: bool = Field(False, description="True if output was cut.")


@dataclass(frozen=True)
class ScriptSettings:
    """How scripts run; parsed once from the toolbox config (see the toolbox docstring)."""

    root_path: str | None = None
    default_timeout: float = 20.0
    max_timeout: float = 25.0
    install_deps: bool = False
    deps_timeout: float = 300.0
    policy: RunPolicy = field(default_factory=lambda: RunPolicy(KernelSandbox("ovos-skill-md-toolbox")))


def args_model(skill: Skill, tool_name: str) -> type[BaseModel]:
    """A pydantic model of the script's parameters (field aliases keep names like ``json`` safe)."""
    fields: dict[str, Any] = {}
    for param in skill.params:
        annotation = _PY_TYPES[param.type]
        description = param.description or param.name
        if param.required:
            fields[f"p_{param.key}"] = (annotation, Field(..., alias=param.key, description=description))
        elif param.default is not None:
            fields[f"p_{param.key}"] = (
                annotation,
                Field(param.default, alias=param.key, description=description),
            )
        else:
            fields[f"p_{param.key}"] = (
                annotation | None,
                Field(param.default, alias=param.key, description=description),
            )
    model_name = "".join(part.title() for part in tool_name.split("_")) + "Args"
    return create_model(
        model_name,
        __base__=_ScriptArgs,
        **fields,
    )


class _ScriptArgs(ToolArguments):
    model_config = ConfigDict(extra="forbid", populate_by_name=True)


def build_argv(skill: Skill, values: dict[str, Any]) -> tuple[list[str], dict[str, str]]:
    """The arguments after the script path and the env parameters, from validated values."""
    argv: list[str] = []
    env: dict[str, str] = {}
    missing_before: Param | None = None
    tail: list[str] = []
    for param in skill.params:
        value = values.get(param.key)
        if param.kind == "positional":
            if value is None or value == [] or (param.subcommand and not value):
                missing_before = missing_before or param
                continue
            if missing_before is not None:
                raise ToolCallError(
                    f"'{param.key}' comes after '{missing_before.key}' on the command line; "
                    f"give '{missing_before.key}' too"
                )
            items = [_text(param, v) for v in value] if isinstance(value, list) else [_text(param, value)]
            (tail if param.variadic else argv).extend(items)
        elif param.kind == "flag":
            if value:
                argv.append(param.name)
        elif param.kind == "named":
            if value is not None:
                argv += [param.name, _text(param, value)]
        elif value is not None:  # env
            env[param.name] = _text(param, value, allow_dash=True)
    return argv + tail, env


def _text(param: Param, value: Any, allow_dash: bool = False) -> str:
    if param.subcommand:
        return param.name if value else ""
    if isinstance(value, bool):
        text = "true" if value else "false"
    elif isinstance(value, (int, float)):
        return str(value)  # Numbers were validated: a leading '-' is a sign here.
    else:
        text = str(value)
    if "\x00" in text:
        raise ToolCallError(f"'{param.key}' contains a NUL byte; send plain text")
    if len(text) > MAX_COMMAND_CHARS:
        raise ToolCallError(
            f"'{param.key}' is {len(text)} characters long; the limit is {MAX_COMMAND_CHARS}: "
            "send a shorter value"
        )
    if text.startswith("-") and not allow_dash:
        raise ToolCallError(
            f"'{param.key}' may not start with '-' (it would be read as an option); "
            "remove the dash or rephrase the value"
        )
    return text


def run_script(skill: Skill, script: str, tool_name: str, values: dict[str, Any], s: ScriptSettings) -> Any:
    """Run one script of ``skill``; the parsed JSON or the text, or a ToolCallError for the model."""
    if skill.param_error:
        raise ToolCallError(f"skill {skill.name!r} is misconfigured ({skill.param_error}); use another tool")
    args, env_params = build_argv(skill, values)
    args = [a for a in args if a != ""]
    if not _inside_folder(skill.folder, script):
        # Checked when the skill was read; a link swapped in since then must not run.
        raise ToolCallError(f"{tool_name}: the script now leaves the skill folder; use another tool")
    host_env = s.policy.env()
    env = {**host_env, **env_params, "SKILL_DIR": skill.folder}
    if script.endswith(".py"):
        program = sys.executable
        argv = [program, "-E", "-s", script, *args]
    else:
        # Looked up in the host's PATH, never in one a parameter could have set.
        program = resolve_executable("bash", host_env["PATH"], skill.folder) or ""
        if not program:
            raise ToolCallError(f"{tool_name} needs bash, which is not installed here; use another tool")
        argv = ["bash", script, *args]
    ensure_deps(skill, s)
    timeout = min(skill.timeout or s.default_timeout, s.max_timeout)
    LOG.info(f"skill {skill.name!r}: running {argv!r} (timeout {timeout:g}s)")
    result = run_sandboxed(
        s.policy,
        argv,
        executable=program,
        env=env,
        timeout=timeout,
        cwd=s.root_path,
        readable=[skill.folder],
        what=tool_name,
    )
    if result.timed_out:
        # run_process reports a timeout only after the process group was killed and reaped.
        raise ToolCallError(
            f"{tool_name} did not finish within {timeout:g} seconds and was killed; try a smaller input"
        )
    if result.returncode != 0:
        tail = result.stderr.strip()[-600:] or result.stdout.strip()[-600:] or "(no output)"
        raise ToolCallError(f"{tool_name} failed with exit code {result.returncode}: {tail}")
    parsed: Any = None
    text = result.stdout.strip()
    if text[:1] in ("{", "[") and not result.truncated:
        with contextlib.suppress(ValueError):
            parsed = json.loads(text)
    return SkillScriptOutput(
        skill=skill.name,
        returncode=result.returncode,
        result=parsed,
        stdout="" if parsed is not None else result.stdout,
        stderr=result.stderr[-2000:],
        truncated=result.truncated,
    )


def _inside_folder(folder: str, path: str) -> bool:
    """Whether ``path`` still resolves inside the skill ``folder`` (False when the folder is gone)."""
    try:
        return Sandbox(folder).contains_real(path)
    except ValueError:
        return False


_deps_lock = threading.Lock()
_deps_done: dict[tuple[str, int], bool] = {}


def ensure_deps(skill: Skill, s: ScriptSettings) -> None:
    """Run ``deps/install.sh`` once per process (and per version of the file) when allowed."""
    installer = os.path.join(skill.folder, "deps", "install.sh")
    if not os.path.isfile(installer):
        return
    if not s.install_deps:
        LOG.debug(f"skill {skill.name!r}: {installer} not run (install_deps is false)")
        return
    key = (installer, os.stat(installer).st_mtime_ns)
    with _deps_lock:
        if key in _deps_done:
            ok = _deps_done[key]
        else:
            bash = resolve_executable("bash", build_env().get("PATH", os.defpath), skill.folder)
            if bash is None:
                raise ToolCallError(f"skill {skill.name!r} needs bash to install its dependencies")
            LOG.info(f"skill {skill.name!r}: running {installer} (timeout {s.deps_timeout:g}s)")
            result = run_process(
                ["bash", installer],
                executable=bash,
                cwd=os.path.dirname(installer),
                env=s.policy.env({"SKILL_DIR": skill.folder}),
                timeout=s.deps_timeout,
                max_output_bytes=s.policy.max_output_bytes,
                limits=Limits(address_space_mb=None, file_size_mb=None),
            )
            ok = result.returncode == 0 and not result.timed_out
            log = LOG.info if ok else LOG.warning
            log(
                f"skill {skill.name!r}: {installer} exited {result.returncode}"
                f"{' (timed out)' if result.timed_out else ''}; output tail: {result.stdout[-500:]!r} "
                f"{result.stderr[-500:]!r}"
            )
            _deps_done[key] = ok
    if not ok:
        raise ToolCallError(f"skill {skill.name!r} could not install its dependencies; use another tool")
