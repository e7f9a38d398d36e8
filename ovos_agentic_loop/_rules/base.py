"""What one reaction to a small-model habit is, and what it answers: a nudge or a call the loop makes."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, ClassVar

from ovos_agentic_loop._rules.view import TurnView

__all__ = ["MakeCall", "Nudge", "Reaction", "Response"]


@dataclass(frozen=True)
class Nudge:
    """A reaction's answer: a short corrective message (``why`` names the reaction)."""

    why: str
    message: str

    @property
    def key(self) -> str:
        return self.message


@dataclass(frozen=True)
class MakeCall:
    """A reaction's answer: the loop makes this call itself, as if the model had."""

    why: str
    name: str
    arguments: dict[str, Any] = field(default_factory=dict)

    @property
    def key(self) -> str:
        return json.dumps([self.name, self.arguments], sort_keys=True, default=str)


Response = Nudge | MakeCall


class Reaction:
    """One habit of small models, met with one short reaction.

    ``applies`` judges a finished answer (``view.answer``); ``may_apply`` decides early, before
    the reply is in, whether the answer could still be sent back: a stream holds such an answer
    until it is judged, so a voice never speaks a made-up number and then the corrected one. A
    reaction with ``holds_stream`` must answer ``may_apply`` True whenever ``applies`` can
    answer (tests/engine/test_reactions.py ties the two); the others' text is spoken as it
    streams (documented), and ``may_apply`` stays False.
    """

    name: ClassVar[str]
    holds_stream: ClassVar[bool] = False

    def may_apply(self, view: TurnView) -> bool:
        return False

    def applies(self, view: TurnView) -> Response | None:
        raise NotImplementedError
