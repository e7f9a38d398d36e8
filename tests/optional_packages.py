"""The optional packages some tests need, and what a test does when one is missing.

A plain ``pip install -e '.[test]'`` has none of them: a test that needs one is skipped with a reason
that names the package and how to install it. ``scripts/check`` installs them all (``scripts/bootstrap``)
and sets ``OVOS_AGENTIC_LOOP_TESTS_NEED_ALL=1``: there a missing package fails the test instead, so the
full run can never pass by skipping.

Use ``@pytest.mark.needs_package("trafilatura")`` on a test (handled in ``tests/conftest.py``), or
``require("fastapi")`` at the top of a module or in a fixture, which returns the module.
"""

from __future__ import annotations

import importlib.util
import os
from types import ModuleType

import pytest

#: The environment variable under which a missing optional package fails instead of skipping.
NEED_ALL = "OVOS_AGENTIC_LOOP_TESTS_NEED_ALL"

_WEB = "the web extra: pip install -e '.[web]'"
_BOOTSTRAP = "installed by scripts/bootstrap in a second step (no extra: it pins ovos-plugin-manager<3)"

#: Import name -> the distribution that provides it and how to install it.
OPTIONAL: dict[str, str] = {
    "ddgs": f"ddgs, {_WEB}",
    "trafilatura": f"trafilatura, {_WEB}",
    "gguf": "gguf, the local extra: pip install -e '.[local]' (or pip install gguf)",
    "xllamacpp": "xllamacpp (the prebuilt llama.cpp server), the local extra: pip install -e '.[local]'",
    "fastapi": f"fastapi, a dependency of ovos-persona-server, {_BOOTSTRAP}",
    "ovos_persona_server": f"ovos-persona-server, {_BOOTSTRAP}",
    "ovos_persona": f"ovos-persona, {_BOOTSTRAP}",
    "ovos_yes_no": f"ovos-yes-no-plugin (the yes/no engine confirmations load), {_BOOTSTRAP}",
    "ovos_openai_plugin": f"ovos-openai-plugin (the brain ovos-chat-openai-plugin), {_BOOTSTRAP}",
    "redis": "redis (the conversation memory's Redis client), the test extra: pip install -e '.[test]'",
}


def missing_reason(module: str) -> str | None:
    """Why a test needing ``module`` cannot run here, or ``None`` when it is importable."""
    if module not in OPTIONAL:
        raise KeyError(
            f"{module!r} is not in tests/optional_packages.OPTIONAL; add it with how to install it"
        )
    if importlib.util.find_spec(module) is not None:
        return None
    return f"needs {OPTIONAL[module]} ({module!r} is not importable)"


def need_all() -> bool:
    """Whether a missing optional package fails a test (``scripts/check``) instead of skipping it."""
    return os.environ.get(NEED_ALL) == "1"


def skip_unless_installed(module: str) -> None:
    """Skip the running test (or module) when ``module`` is missing; fail instead under ``NEED_ALL``."""
    __tracebackhide__ = True  # the skip is reported at the test that needs the package, not here
    reason = missing_reason(module)
    if reason is None:
        return
    if need_all():
        pytest.fail(f"{reason}; {NEED_ALL}=1 asks for every optional package", pytrace=False)
    pytest.skip(reason, allow_module_level=True)


def require(module: str) -> ModuleType:
    """``module`` imported, or the test (module) skipped with the package's name and how to install it."""
    __tracebackhide__ = True
    skip_unless_installed(module)
    return importlib.import_module(module)
