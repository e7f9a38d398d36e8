"""The toolboxes bundled with ovos-agentic-loop (entry-point group ``opm.agents.toolbox``)."""
