"""The package's public names are pinned: a change here is a change for every user."""

from __future__ import annotations

import subprocess
import sys

import ovos_agentic_loop


def test_public_names_are_pinned_and_resolve() -> None:
    assert ovos_agentic_loop.__all__ == [
        "AgentLoopEngine",
        "BrainError",
        "BrainReply",
        "ConfigError",
        "LoopConfig",
        "NativeToolCallEngine",
        "OpenAIBrain",
        "PluginNotFound",
        "ReActLoopEngine",
        "ScriptedBrain",
        "StepEvent",
        "function_toolbox",
        "toolbox_from_functions",
    ]
    for name in ovos_agentic_loop.__all__:
        assert getattr(ovos_agentic_loop, name).__name__ == name


def test_importing_the_package_imports_nothing_heavy() -> None:
    code = (
        "import sys, ovos_agentic_loop; "
        "print(sorted(m for m in sys.modules if m.startswith(('openai', 'ovos_plugin_manager'))))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"
