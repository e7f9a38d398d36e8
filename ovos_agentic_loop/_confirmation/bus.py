"""A GUI answers a question on the messagebus instead of the user's voice.

The engine emits ``ovos.agentic_loop.confirm`` when a call waits (tool, arguments, question,
session, id, and ``token``: the signed pending call as ASCII). A GUI that shows buttons sends
``ovos.agentic_loop.confirm.answer`` with ``{"token": <that token>, "answer": "yes" | "no"}``
(``true``/``false`` too). The engine checks the token as it checks a mark (its key, not expired,
not decided before in this process), runs the call on a yes, and replies with
``ovos.agentic_loop.confirm.response``: ``{id, decision, ran, ok, result, error}`` (``decision``
"invalid" or "already_decided", with ``error``, when nothing was decided). The question is then
answered: a later spoken yes to it runs nothing, and the next turn is an ordinary one.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from ovos_plugin_manager.templates.agents import ToolCall
from ovos_utils.log import LOG

from ovos_agentic_loop._confirmation import Confirmation
from ovos_agentic_loop._confirmation.pending import PendingCall
from ovos_agentic_loop._tools.observations import ToolOutcome
from ovos_agentic_loop.events import BUS_CONFIRM_ANSWER_TOPIC, BUS_CONFIRM_DONE_TOPIC

__all__ = ["BusAnswers"]

_YES = {"yes", "true", "confirm", "confirmed"}
_NO = {"no", "false", "cancel", "cancelled", "deny"}


def _answer(value: Any) -> bool | None:
    if isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    return True if text in _YES else False if text in _NO else None


class BusAnswers:
    """Answers to questions that come over the bus; ``run(session, call)`` runs a yes."""

    def __init__(self, confirmation: Confirmation, run: Callable[[str, ToolCall], ToolOutcome]) -> None:
        self._confirmation = confirmation
        self._run = run

    def listen(self, bus: Any) -> None:
        self._bus = bus
        bus.on(BUS_CONFIRM_ANSWER_TOPIC, self.on_answer)

    def on_answer(self, message: Any) -> None:
        data = dict(getattr(message, "data", None) or {})
        pending = self._confirmation.signer.open_token(str(data.get("token") or ""))
        if pending is not None and self._confirmation.asked_elsewhere(pending):
            return  # another engine of this process asked it, on this bus too: it answers
        try:
            reply = self.decide(data)
        except Exception as exc:  # noqa: BLE001 - a bus handler must answer, never die silently
            LOG.warning(f"{self._confirmation.engine_name}: bus answer failed: {type(exc).__name__}: {exc}")
            reply = {"decision": "invalid", "ran": False, "error": f"{type(exc).__name__}: {exc}"}
        self._reply(message, reply)

    def decide(self, data: dict[str, Any]) -> dict[str, Any]:
        """What the answer in ``data`` decides, as the response's payload."""
        pending = self._confirmation.signer.open_token(str(data.get("token") or ""))
        answer = _answer(data.get("answer"))
        if pending is None or answer is None:
            why = (
                "the token is not a question of this engine" if pending is None else "answer is not yes or no"
            )
            return {"decision": "invalid", "ran": False, "error": why}
        base = {"id": pending.id, "tool": pending.tool, "session": pending.session, "ran": False}
        refused = self._refusal(pending, data.get("session"))
        if refused is not None:
            return {**base, **refused}
        if not answer:
            return {**base, "decision": "no"}
        call = ToolCall(id=f"call_{pending.id}", name=pending.tool, arguments=dict(pending.arguments))
        outcome = self._run(pending.session, call)
        result = outcome.observation if outcome.ok else None
        return {
            **base,
            "decision": "yes",
            "ran": True,
            "ok": outcome.ok,
            "result": result,
            "error": outcome.error,
        }

    def _refusal(self, pending: PendingCall, session: Any) -> dict[str, str] | None:
        """Why this answer decides nothing (claiming the question when it does decide)."""
        confirmation = self._confirmation
        if session is not None and session != pending.session:
            return {"decision": "invalid", "error": "the question was asked in another session"}
        if time.time() - pending.issued > confirmation.expiry:
            return {"decision": "invalid", "error": "the question has expired"}
        if not confirmation.claim(pending):
            return {"decision": "already_decided", "error": "the question was already answered"}
        return None

    def _reply(self, message: Any, payload: dict[str, Any]) -> None:
        from ovos_bus_client.message import Message

        reply = getattr(message, "reply", None)
        out = (
            reply(BUS_CONFIRM_DONE_TOPIC, payload)
            if callable(reply)
            else Message(BUS_CONFIRM_DONE_TOPIC, payload)
        )
        self._bus.emit(out)
