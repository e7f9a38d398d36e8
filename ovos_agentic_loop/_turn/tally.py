"""Recording what a decision counted, as it is carried out: deciding (``reading``) changes nothing,
and each decision brings its ``effects`` (``decisions``) here, in the order they arose."""

from __future__ import annotations

from ovos_agentic_loop._rules.registry import Fired
from ovos_agentic_loop._turn.decisions import Asked, Corrected, Decision, Effect, Tell, ToOffer, assert_never
from ovos_agentic_loop._turn.state import TurnState
from ovos_agentic_loop.events import Notice

__all__ = ["record"]


def record(turn: TurnState, decision: Decision) -> None:
    """Count, offer and tell what ``decision`` came with."""
    for effect in decision.effects:
        _record(turn, effect)


def _record(turn: TurnState, effect: Effect) -> None:
    match effect:
        case Tell(message):
            turn.emit(Notice(message=message))
        case ToOffer(names):
            added = turn.offered.offer(names) if turn.offered is not None else []
            if added:
                turn.emit(Notice(message=f"called outside the shortlist, now offered: {added}"))
        case Corrected():
            turn.limits.corrections += 1
        case Asked():
            turn.history.note(effect)
        case Fired():
            turn.rules.record(effect)
        case _:
            assert_never(effect)
