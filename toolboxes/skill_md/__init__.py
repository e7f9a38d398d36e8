"""SKILL.md skills as agent tools (entry point ``ovos-skill-md-toolbox``).

``parser`` reads one SKILL.md, ``discovery`` finds and caches skill folders, ``scripts`` runs an
executable skill's scripts through ``ovos_agentic_loop_toolboxes._process``, ``toolbox``
exposes it all to OPM.
"""

from __future__ import annotations

import os

from ovos_agentic_loop_toolboxes.skill_md.toolbox import SkillMDToolBox

__all__ = ["EXAMPLES_DIR", "SkillMDToolBox"]

# Registered in the entry-point group ``opm.agents.skill_md`` by this package's pyproject.
EXAMPLES_DIR = os.path.join(os.path.dirname(os.path.abspath(__file__)), "examples")
