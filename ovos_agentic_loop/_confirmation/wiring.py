"""One engine's side of asking before acting: its confirmation (policy, key, expiry), the bus it
speaks on (a GUI's answers; on a voice assistant's bus "stop" and the microphone), and where its
step events go (``_runtime.step_fan_out``)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ovos_agentic_loop._confirmation import Confirmation
from ovos_agentic_loop._confirmation.bus import BusAnswers
from ovos_agentic_loop._confirmation.policy import ConfirmPolicy
from ovos_agentic_loop._confirmation.sessions import last_words
from ovos_agentic_loop._confirmation.voice_bus import EngineBus, voice_listeners
from ovos_agentic_loop._runtime.step_fan_out import StepFanOut
from ovos_agentic_loop.config import LoopConfig
from ovos_agentic_loop.events import BUS_CONFIRM_TOPIC, BUS_STEP_TOPIC, Progress, progress_speech

__all__ = ["Wiring", "wire"]


@dataclass(frozen=True)
class Wiring:
    confirmation: Confirmation
    voice: EngineBus
    emit: StepFanOut


def wire(
    settings: LoopConfig,
    section: dict[str, Any] | None,
    bus: Any,
    engine_name: str,
    carry_out: Callable[[str, Any], Any],
) -> Wiring:
    """The confirmation, bus and step events of the engine ``engine_name`` with ``settings`` (parsed
    from ``section``); ``carry_out(session, call)`` runs a pending call a GUI said yes to on the bus."""
    confirmation = Confirmation(
        ConfirmPolicy(tuple(settings.confirm_tools), settings.confirm_side_effects),
        key=settings.confirm_key,
        expiry=settings.confirm_expiry,
        engine_name=engine_name,
        section=section,
    )
    # A GUI may answer a question on the bus instead of the user's voice; on a voice assistant's
    # bus the engine also hears "stop" and reopens the microphone after its question.
    voice = EngineBus(
        bus,
        settings.voice_bus,
        engine_name=engine_name,
        attach=BusAnswers(confirmation, carry_out).listen,
    )

    def expect_answer(on: Any, session_id: str, token: str) -> None:
        listeners = voice_listeners(on)
        if listeners is not None:
            listeners.expect_answer(session_id, token, settings.confirm_expiry)

    emit = StepFanOut(
        engine_name,
        bus=voice.current,
        topics=(BUS_STEP_TOPIC, BUS_CONFIRM_TOPIC),
        answered=last_words.spoke,
        asked=expect_answer,
        speech=lambda event: progress_speech(event, engine_name) if isinstance(event, Progress) else None,
    )
    return Wiring(confirmation, voice, emit)
