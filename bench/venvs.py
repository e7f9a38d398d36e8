"""One virtual environment per benchmarked framework, cached under ``bench/.venvs/<name>``.

Each framework gets its own venv so that its dependencies (and their import cost) are
exactly what a user of that framework would install. A venv is rebuilt only when its
requirements file (plus, for this project, ``pyproject.toml``) changed: the hash of
those inputs is stored in ``.bench-hash`` inside the venv.

Stdlib only: the orchestrator runs on any ``python3``.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import venv
from pathlib import Path

BENCH_DIR = Path(__file__).resolve().parent
REPO_DIR = BENCH_DIR.parent
VENVS_DIR = BENCH_DIR / ".venvs"

# name -> requirements file; "bench" is the orchestrator's own (matplotlib for the chart).
REQUIREMENTS = {
    "bench": "requirements-bench.txt",
    "floor": "requirements-floor.txt",
    "ours": "requirements-ours.txt",
    "upstream": "requirements-upstream.txt",
    # Figure 10: the same two projects with an MCP host beside them (the decoy home-automation server).
    "ours-mcp": "requirements-ours-mcp.txt",
    "upstream-mcp": "requirements-upstream-mcp.txt",
    "smolagents": "requirements-smolagents.txt",
    "openai-agents": "requirements-openai-agents.txt",
    "pydantic-ai": "requirements-pydantic-ai.txt",
    "bfcl": "requirements-bfcl.txt",
}
# Installed without their dependencies: bfcl-eval pulls every provider's SDK, vllm-sized extras and
# sentence-transformers, none of which its data and AST checker (all figure 9 uses) import.
NO_DEPS = {"bfcl"}


def _inputs_hash(name: str) -> str:
    digest = hashlib.sha256()
    digest.update((BENCH_DIR / REQUIREMENTS[name]).read_bytes())
    if name in ("ours", "ours-mcp"):
        # An editable install follows the code, but not new dependencies: rebuild on those.
        digest.update((REPO_DIR / "pyproject.toml").read_bytes())
    digest.update(sys.version.encode())
    return digest.hexdigest()


def python_of(name: str) -> Path:
    return VENVS_DIR / name / "bin" / "python"


def ensure(name: str, *, log=print) -> Path:
    """Create (or reuse) the venv for ``name`` and return its python executable."""
    target = VENVS_DIR / name
    stamp = target / ".bench-hash"
    wanted = _inputs_hash(name)
    if stamp.exists() and stamp.read_text().strip() == wanted and python_of(name).exists():
        return python_of(name)
    log(f"[venv] building {name} in {target} (first run or requirements changed)")
    venv.EnvBuilder(clear=True, with_pip=True, symlinks=True).create(target)
    env = dict(os.environ, BENCH_REPO=str(REPO_DIR), PIP_DISABLE_PIP_VERSION_CHECK="1")
    cmd = [str(python_of(name)), "-m", "pip", "install", "-q", "-r", str(BENCH_DIR / REQUIREMENTS[name])]
    if name in NO_DEPS:
        cmd.append("--no-deps")
    result = subprocess.run(cmd, env=env, capture_output=True, text=True)
    if result.returncode != 0:
        raise RuntimeError(
            f"installing {name} failed (exit {result.returncode}):\n"
            f"{result.stdout[-2000:]}\n{result.stderr[-4000:]}"
        )
    stamp.write_text(wanted)
    return python_of(name)


def installed_version(name: str, dist: str) -> str:
    """The installed version of distribution ``dist`` inside venv ``name`` ('?' when unknown)."""
    code = f"import importlib.metadata as m; print(m.version({dist!r}))"
    if not python_of(name).exists():  # a figure that needs only some venvs builds only those
        return "?"
    # -I: not the current directory, whose *.egg-info would answer for the editable project.
    out = subprocess.run([str(python_of(name)), "-I", "-c", code], capture_output=True, text=True)
    return out.stdout.strip() or "?"


if __name__ == "__main__":
    for arg in sys.argv[1:] or list(REQUIREMENTS):
        print(arg, ensure(arg))
