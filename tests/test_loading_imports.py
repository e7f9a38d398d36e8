"""Loading a persona imports the plugins it names, not every installed one (cold-start cost)."""

from __future__ import annotations

import subprocess
import sys
from importlib.metadata import EntryPoint

import pytest

from ovos_agentic_loop._runtime.loading import ToolboxNotLoaded, _Installed, load_toolbox


def test_a_persona_imports_only_the_toolboxes_it_names() -> None:
    code = (
        "import sys\n"
        "from ovos_agentic_loop._runtime.loading import load_toolboxes\n"
        "from ovos_agentic_loop.personas import ToolboxSection\n"
        "source = ToolboxSection('ovos-clock-tools', {}, 'none', 'ovos-react-loop', False)\n"
        "boxes = [b.toolbox for b in load_toolboxes([source], engine_name='test')]\n"
        "assert [type(b).__name__ for b in boxes] and boxes[0].tools\n"
        "others = sorted(m for m in sys.modules if m.startswith('ovos_agentic_loop_toolboxes.')\n"
        "                and m.split('.')[1] in ('web_search', 'skill_md', 'shell'))\n"
        "assert not others, others\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=120)


def test_a_toolbox_that_does_not_import_is_named_with_the_reason(monkeypatch: pytest.MonkeyPatch) -> None:
    available = _Installed("opm.agents.toolbox")
    broken = EntryPoint("broken-tools", "no_such_module_anywhere:Box", "opm.agents.toolbox")
    monkeypatch.setitem(available._entry_points, "broken-tools", broken)
    with pytest.raises(ToolboxNotLoaded, match=r"'broken-tools' failed to import: ModuleNotFoundError"):
        load_toolbox("broken-tools", {}, available=available)
    with pytest.raises(ToolboxNotLoaded, match="is not installed"):
        load_toolbox("no-such-tools", {}, available=available)
