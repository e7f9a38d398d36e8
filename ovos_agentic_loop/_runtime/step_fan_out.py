"""One engine's step events, fanned out: the log, the voice assistant's bus, the step listeners.

A turn emits each event once (``TurnState.emit``); this is where it goes from there. What the
confirmation layer does with an event (the session's last word, the microphone reopened after a
question) comes in as two callables, so the runtime layer imports nothing above it.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any, Protocol

from ovos_utils.log import LOG

from ovos_agentic_loop._runtime.log import ovos_logger

__all__ = ["StepFanOut"]


class Event(Protocol):
    """A step event as the fan-out reads it (``ovos_agentic_loop.events.StepEvent``)."""

    @property
    def kind(self) -> str: ...
    @property
    def session_id(self) -> str: ...
    @property
    def data(self) -> dict[str, Any]: ...
    def as_dict(self) -> dict[str, Any]: ...


class StepFanOut:
    """Calls of one engine's turns with every step event (from the turn's thread)."""

    def __init__(
        self,
        engine_name: str,
        *,
        bus: Callable[[], Any],
        topics: tuple[str, str],
        answered: Callable[[str], None],
        asked: Callable[[Any, str, str], None],
        speech: Callable[[Any], dict[str, Any] | None] = lambda _event: None,
    ) -> None:
        """``bus``: the messagebus client of this turn (None: none); ``topics``: the step and the
        confirmation topics; ``answered(session)``: a turn ended with an answer, so no question is
        open; ``asked(bus, session, token)``: a question was asked on ``bus``; ``speech(event)``:
        the ``speak`` payload of an event a voice says aloud (a progress line), else None."""
        self.engine_name = engine_name
        self._bus = bus
        self._topics = topics
        self._answered = answered
        self._asked = asked
        self._speech = speech
        self.listeners: list[Callable[[Any], None]] = []

    def __call__(self, event: Event, origin: Any = None) -> None:
        """``event`` to the log, the bus and the listeners; ``origin``: the bus message the turn runs
        under (a voice assistant's utterance), in whose session a spoken event is said."""
        kind, session_id, data = event.kind, event.session_id, event.data
        if kind in ("final", "notice"):  # once or twice a turn
            ovos_logger(__name__).info(f"{self.engine_name} [{session_id}] {kind}: {_brief(data)}")
        elif _debug_enabled():  # checked first: formatting every step is per-step cost
            ovos_logger(__name__).debug(f"{self.engine_name} [{session_id}] {kind}: {_brief(data)}")
        if kind == "final" and data.get("reason") != "confirm":  # an answer: no question is open now
            self._answered(session_id)
        bus = self._bus()
        if bus is not None:
            self._to_bus(bus, event, origin)
        for listener in list(self.listeners):
            try:
                listener(event)
            except Exception as exc:  # noqa: BLE001 - a listener's bug must not break the turn; reported
                LOG.warning(
                    f"{self.engine_name}: step listener {listener!r} raised {type(exc).__name__}: {exc}"
                )

    def _to_bus(self, bus: Any, event: Event, origin: Any) -> None:
        kind, session_id, data = event.kind, event.session_id, event.data
        step_topic, confirm_topic = self._topics
        try:
            from ovos_bus_client.message import Message

            bus.emit(Message(step_topic, {"engine": self.engine_name, **event.as_dict()}))
            speak = self._speech(event) if origin is not None else None
            if speak is not None:
                bus.emit(origin.forward("speak", speak))
            if kind == "confirm" and data.get("decision") == "asked":
                payload = {"engine": self.engine_name, "session": session_id, **data}
                bus.emit(Message(confirm_topic, payload))
                if data.get("token"):
                    self._asked(bus, session_id, str(data["token"]))
        except Exception as exc:  # noqa: BLE001 - a broken bus must not break the turn; reported
            LOG.warning(f"{self.engine_name}: could not emit step event on the bus: {exc}")


def _debug_enabled() -> bool:
    # LOG.is_enabled_for exists only in newer ovos-utils; older ones keep the level in LOG.level.
    check = getattr(LOG, "is_enabled_for", None)
    if check is not None:
        return bool(check(logging.DEBUG))
    level = getattr(LOG, "level", logging.INFO)
    return (logging.getLevelName(level) if isinstance(level, str) else level) <= logging.DEBUG


def _brief(data: dict[str, Any], limit: int = 300) -> str:
    text = ", ".join(f"{k}={v!r}" for k, v in data.items() if v not in (None, [], {}))
    return text if len(text) <= limit else text[:limit] + "..."
