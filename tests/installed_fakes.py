"""Fake installed toolbox plugins for tests (a module of its own: tests/real has a conftest too)."""

from __future__ import annotations

import pytest


def install_toolboxes(monkeypatch: pytest.MonkeyPatch, fakes: dict[str, type]) -> None:
    """Make ``fakes`` (entry-point name -> ToolBox class) look installed, beside the real ones,
    to the loop (``_loading.installed_toolboxes``) and to OPM's own ``find_toolbox_plugins``."""
    from ovos_plugin_manager import persona as opm_persona

    from ovos_agentic_loop._runtime import loading as _loading

    real_installed, real_opm = _loading.installed_toolboxes, opm_persona.find_toolbox_plugins
    monkeypatch.setattr(_loading, "installed_toolboxes", lambda: {**dict(real_installed()), **fakes})
    monkeypatch.setattr(opm_persona, "find_toolbox_plugins", lambda: {**real_opm(), **fakes})
