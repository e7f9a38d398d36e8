"""One toolbox's section as the loop passes it, and where it was found: what the loader reads and
the plan (``config.LoopPlan``) and doctor say."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

__all__ = ["SectionOrigin", "ToolboxSection"]

#: Where a toolbox's section came from: inside the loop's section, the persona's top level, or
#: nowhere (the toolbox gets ``{}``).
SectionOrigin = Literal["loop", "persona", "none"]


@dataclass(frozen=True)
class ToolboxSection:
    """One toolbox's section as the loop will pass it, and where it was found."""

    name: str
    section: dict[str, Any]
    origin: SectionOrigin
    handler: str  # the loop whose section was searched first
    persona_known: bool  # whether the persona's top level was there to search
    shadowed: bool = False  # a top-level section exists too, and the loop's own section won

    def where(self) -> str:
        """Where the section came from (or where it was looked for), as a log line or doctor says it."""
        inside = f"inside the {self.handler!r} section"
        if self.origin == "loop":
            shadowed = " (a section at the persona's top level too, not used)" if self.shadowed else ""
            return f"from {inside}{shadowed}"
        if self.origin == "persona":
            return "from the persona's top level"
        if self.persona_known:
            return f"no section {inside} nor at the persona's top level"
        return (
            f"no section {inside}, and the persona's top level was not given to the loop "
            "(ovos-persona passes a handler only its own section)"
        )

    def describe(self) -> str:
        """The log line's text: the section's origin, or that there is none and the toolbox gets ``{}``."""
        return f"section {self.where()}" if self.origin != "none" else f"{self.where()}; it gets {{}}"
