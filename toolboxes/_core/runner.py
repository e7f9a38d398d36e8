"""The ONE sandboxed program run of the toolboxes: shell commands and SKILL.md scripts both go here.

A toolbox decides WHAT may run (its policy: the shell's switch and allowlist, a skill's argv
rules); this module decides HOW it runs, the same way for both: a private temp folder
(``run_folders``), the Landlock rules of the run (``KernelSandbox.policy_json``), the resource
limits and the bounded, killable process (``process.run_process``). A program that cannot be
started at all becomes a :class:`ToolCallError` for the model.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from ovos_agentic_loop_toolboxes._core.errors import ToolCallError
from ovos_agentic_loop_toolboxes._core.kernel import KernelSandbox, run_folders
from ovos_agentic_loop_toolboxes._core.process import Limits, ProcessResult, build_env, run_process

__all__ = ["RunPolicy", "run_sandboxed"]


@dataclass(frozen=True)
class RunPolicy:
    """How one toolbox's programs run: its kernel sandbox, resource limits, output cap and env names."""

    kernel: KernelSandbox
    limits: Limits = field(default_factory=Limits)
    max_output_bytes: int = 32768
    env_names: tuple[str, ...] = ()

    def env(self, overrides: Mapping[str, str] | None = None) -> dict[str, str]:
        """The reduced environment of a run: the allowlisted host names plus ``overrides``."""
        return build_env(self.env_names, overrides)


def run_sandboxed(
    policy: RunPolicy,
    argv: list[str],
    *,
    executable: str,
    env: Mapping[str, str],
    timeout: float,
    cwd: str | None,
    writable: str | None = None,
    readable: Sequence[str] = (),
    what: str,
) -> ProcessResult:
    """Run ``executable`` (an absolute, already checked path) as ``argv`` under ``policy``.

    ``cwd`` is where the program starts (None: its private temp folder); ``writable`` the one
    folder it may write besides that temp folder (default: ``cwd``); ``readable`` extra folders
    it may read (a skill's own folder). ``what`` names the program in the error for the model.
    """
    with run_folders(cwd, dict(env), policy.kernel.active) as run:
        try:
            return run_process(
                argv,
                cwd=run.cwd,
                env=run.env,
                timeout=timeout,
                max_output_bytes=policy.max_output_bytes,
                limits=policy.limits,
                executable=executable,
                landlock=policy.kernel.policy_json([writable or run.cwd, run.temp], list(readable)),
            )
        except OSError as exc:
            raise ToolCallError(
                f"{what} could not be started ({exc.strerror or exc}); use another tool or program"
            ) from exc
