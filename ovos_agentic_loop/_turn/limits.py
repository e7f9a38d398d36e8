"""The turn's budget of corrective messages: one is sent while ``max_corrections`` last, then the
forced answer."""

from __future__ import annotations

from ovos_agentic_loop._turn.decisions import Correct, ForceAnswer
from ovos_agentic_loop._turn.state import TurnState

__all__ = ["correction"]


def correction(
    turn: TurnState, message: str, notice: str, kept: str | None = None, *, ending: str = "unparsable"
) -> Correct | ForceAnswer:
    """A corrective message while this turn's ``max_corrections`` last; then the forced answer."""
    if turn.corrections >= turn.setup.config.max_corrections:
        return ForceAnswer(ending)
    turn.corrections += 1
    return Correct(message, notice, kept)
