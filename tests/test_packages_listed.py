"""Every Python package of the checkout is in the wheel: setuptools is given an explicit list
(pyproject's ``packages``), and a new subpackage left out of it imports from a checkout but not
from a wheel install (``ovos_agentic_loop._confirmation`` was, and every turn failed there)."""

from __future__ import annotations

from pathlib import Path

import pytest

tomllib = pytest.importorskip("tomllib")  # Python 3.11+; CI runs 3.11

ROOT = Path(__file__).resolve().parent.parent
INSTALLED_AS = {"ovos_agentic_loop": "ovos_agentic_loop", "toolboxes": "ovos_agentic_loop_toolboxes"}


def test_every_package_folder_is_listed_in_pyproject() -> None:
    listed = set(tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"])
    found = set()
    for folder, name in INSTALLED_AS.items():
        for init in (ROOT / folder).rglob("__init__.py"):
            relative = init.parent.relative_to(ROOT / folder)
            if "examples" in relative.parts or "__pycache__" in relative.parts:
                continue  # SKILL.md examples are data, shipped as package data
            found.add(".".join([name, *relative.parts]))
    assert found - listed == set(), "add these to [tool.setuptools] packages in pyproject.toml"
