"""The prompt for tools, smaller at the same accuracy: bounds the toolbox enforces itself
are not sent, and the tool list of the bundled toolboxes stays within its measured size."""

from __future__ import annotations

import json
from pathlib import Path

from ovos_plugin_manager.persona import find_toolbox_plugins

from ovos_agentic_loop._text.protocol import NATIVE_GUIDANCE
from ovos_agentic_loop._tools.toolset import PersonaTools, slim_schema

#: Upstream's 11 tools, the set compared with upstream's prompt: about 5,760 characters with the
#: guidance, under half of upstream's ReAct prompt. A growth past this bound must be paid
#: for by an accuracy gain on the task suite (bench/README.md). The guidance has no clause for
#: chains ("get each value with its tool before calculating", 5,818 characters): the held-out
#: half scored 76% with it, 86% without (README "Small-model accuracy").
UPSTREAMS_TOOLS = [
    "evaluate_expression",
    "unit_convert",
    "statistics_summary",
    "solve_equation",
    "get_current_datetime",
    "read_file",
    "write_file",
    "list_directory",
    "search_in_files",
    "find_files",
    "run_command",
]
BUDGET_CHARS = 5_800


def test_bounds_and_closed_objects_are_not_sent_but_arguments_with_those_names_are() -> None:
    schema = {
        "type": "object",
        "additionalProperties": False,
        "properties": {
            "offset": {"type": "integer", "minimum": 0, "default": 0},
            "limit": {"type": "integer", "exclusiveMinimum": 0, "maximum": 10},
            "name": {"type": "string", "minLength": 1, "maxLength": 80},
            "items": {"type": "array", "items": {"type": "number"}, "minItems": 1, "maxItems": 9},
            "minimum": {"type": "number", "description": "an argument called minimum"},
        },
    }
    assert slim_schema(schema) == {
        "type": "object",
        "properties": {
            "offset": {"type": "integer", "default": 0},
            "limit": {"type": "integer"},
            "name": {"type": "string"},
            "items": {"type": "array", "items": {"type": "number"}},
            "minimum": {"type": "number", "description": "an argument called minimum"},
        },
    }


def test_upstreams_tools_fit_the_measured_budget(tmp_path: Path) -> None:
    sections = {
        "ovos-filesystem-tools": {"root_path": str(tmp_path), "allow_write": True},
        "ovos-shell-tools": {"allow_shell": True, "root_path": str(tmp_path)},
    }
    plugins = find_toolbox_plugins()
    toolboxes = []
    for name in ("ovos-math-tools", "ovos-clock-tools", "ovos-filesystem-tools", "ovos-shell-tools"):
        toolbox = plugins[name](config=sections.get(name, {}))
        toolbox.tools = {n: t for n, t in toolbox.tools.items() if n in UPSTREAMS_TOOLS}
        toolboxes.append(toolbox)
    specs = PersonaTools(toolboxes, engine_name="test").current().wire_specs
    assert sorted(s["function"]["name"] for s in specs) == sorted(UPSTREAMS_TOOLS)
    size = len(json.dumps(specs, ensure_ascii=False)) + len(NATIVE_GUIDANCE)
    assert size <= BUDGET_CHARS, f"tool list + guidance is {size} characters"
