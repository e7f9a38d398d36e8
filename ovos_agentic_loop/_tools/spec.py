"""The loop's own type for one tool; the OpenAI tool dict exists only at the brain's edge."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal, get_args

from ovos_agentic_loop_settings import TOOL_ROLE_KEY

__all__ = ["RoleKind", "ToolRole", "ToolSpec"]

#: The roles a toolbox may declare for a tool (``ovos_agentic_loop_settings.TOOL_ROLE_KEY``).
RoleKind = Literal["calculator", "converter", "reader", "runner"]


@dataclass(frozen=True)
class ToolRole:
    """The role a tool's toolbox declared for it: what the rules may take it for.

    ``argument``: the one that holds the expression, the file's path, the command line, or (for a
    converter: a tool that gives a value in a unit, zone or place) the unit, zone or place;
    ``programs``: a runner's allowed programs (None: any installed one); ``functions``: what a
    calculator's expression may call."""

    kind: RoleKind
    argument: str
    programs: tuple[str, ...] | None = None
    functions: tuple[str, ...] = ()

    @classmethod
    def declared(cls, annotations: dict[str, Any]) -> ToolRole | None:
        """The role in a tool's annotations; None without one, or with one that is not well formed."""
        role = annotations.get(TOOL_ROLE_KEY)
        if not isinstance(role, dict) or role.get("kind") not in get_args(RoleKind):
            return None
        argument, programs, functions = role.get("argument"), role.get("programs"), role.get("functions", [])
        if not isinstance(argument, str) or not isinstance(functions, list):
            return None
        return cls(
            kind=role["kind"],
            argument=argument,
            programs=tuple(str(p) for p in programs) if isinstance(programs, list) else None,
            functions=tuple(str(f) for f in functions),
        )


@dataclass(frozen=True)
class ToolSpec:
    """One tool as the loop knows it: its name, description and argument schema.

    The loop's own type: the OpenAI tool dict (``{"type": "function", "function": {...}}``) exists
    only at the brain's edge (:attr:`ToolSet.wire_specs`) and where a caller hands tools in
    (:meth:`from_openai`)."""

    name: str
    description: str = ""
    parameters: dict[str, Any] = field(default_factory=dict)  # JSON schema of the arguments
    # A caller's own dict, passed on as it came (it may hold keys such as "strict").
    given: dict[str, Any] | None = field(default=None, compare=False, repr=False)
    #: What the toolbox says the tool does (``readOnlyHint``, ``destructiveHint``, ``confirm``): read
    #: by the confirmation policy, never sent to the model.
    annotations: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)

    @property
    def role(self) -> ToolRole | None:
        """The role its toolbox declared for it (a caller's tool, or a third party's, has none)."""
        return ToolRole.declared(self.annotations)

    @property
    def properties(self) -> dict[str, Any]:
        props = self.parameters.get("properties")
        return props if isinstance(props, dict) else {}

    @property
    def required(self) -> list[str]:
        required = self.parameters.get("required")
        return [str(r) for r in required] if isinstance(required, list) else []

    def wire(self) -> dict[str, Any]:
        """The OpenAI tool dict a brain takes."""
        if self.given is not None:
            return self.given
        return {
            "type": "function",
            "function": {"name": self.name, "description": self.description, "parameters": self.parameters},
        }

    @classmethod
    def from_openai(cls, spec: dict[str, Any]) -> ToolSpec | None:
        """A tool from an OpenAI tool dict; None when it names no function."""
        function = spec.get("function")
        if not isinstance(function, dict):
            return None
        name = function.get("name")
        if not isinstance(name, str) or not name:
            return None
        parameters = function.get("parameters")
        return cls(
            name=name,
            description=str(function.get("description") or ""),
            parameters=parameters if isinstance(parameters, dict) else {},
            given=spec,
        )
