"""One turn's limits, in one object a strategy loop's sub-runs share: the rules' corrective
messages (``_rules.registry.Budget``), the corrective messages for unreadable or empty replies
(``max_corrections``), and how often one identical call may run (``repeats_allowed``)."""

from __future__ import annotations

from dataclasses import dataclass, field

from ovos_agentic_loop._rules.registry import Budget
from ovos_agentic_loop._turn.decisions import Correct, Corrected, ForceAnswer
from ovos_agentic_loop.config import LoopConfig

__all__ = ["REPEATS_ALLOWED", "Limits"]

REPEATS_ALLOWED = 2  # the third identical call is refused and the turn ends


@dataclass
class Limits:
    max_corrections: int
    corrections: int = 0
    repeats_allowed: int = REPEATS_ALLOWED
    nudges: Budget = field(default_factory=Budget)

    @classmethod
    def of(cls, config: LoopConfig) -> Limits:
        return cls(max_corrections=config.max_corrections)

    @property
    def corrections_spent(self) -> bool:
        return self.corrections >= self.max_corrections

    def correction(
        self, message: str, notice: str, kept: str | None = None, *, ending: str = "unparsable"
    ) -> Correct | ForceAnswer:
        """A corrective message while this turn's ``max_corrections`` last (counted when it is sent:
        ``Corrected``); then the forced answer."""
        if self.corrections_spent:
            return ForceAnswer(ending)
        return Correct(message, notice, kept, effects=(Corrected(),))
