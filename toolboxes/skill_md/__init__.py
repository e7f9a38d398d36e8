"""SKILL.md skills as agent tools (entry point ``ovos-skill-md-toolbox``).

``parser`` reads one SKILL.md, ``discovery`` finds and caches skill folders, ``scripts`` runs an
executable skill's scripts through ``ovos_agentic_loop_toolboxes._core.process``, ``toolbox``
exposes it all to OPM.
"""

from __future__ import annotations

from ovos_agentic_loop_toolboxes.skill_md.discovery import EXAMPLES_DIR
from ovos_agentic_loop_toolboxes.skill_md.toolbox import SkillMDToolBox

__all__ = ["EXAMPLES_DIR", "SkillMDToolBox"]
