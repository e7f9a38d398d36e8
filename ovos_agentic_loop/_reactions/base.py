"""What one reaction to a small-model habit is."""

from __future__ import annotations

from typing import ClassVar

from ovos_agentic_loop._decisions import Response
from ovos_agentic_loop._reactions.view import TurnView

__all__ = ["Reaction"]


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
