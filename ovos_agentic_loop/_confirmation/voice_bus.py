"""The engine on a voice assistant's messagebus: its own client where the host gave it none, and what
it listens for there (a spoken stop, the end of the question's playback).

ovos-persona builds each handler as ``cls(config=section)``, with no bus, so under ovos-core the
engine had no way to send its step events or ``ovos.agentic_loop.confirm``, nor to hear "stop". The
loop section's ``voice_bus`` decides whether it connects a client of its own (``ovos_bus_client``'s
``MessageBusClient``, aimed where mycroft.conf's ``websocket`` section says, the host's own file):

- ``"auto"`` (default): the first turn that runs inside a messagebus handler connects it. That is
  how ovos-core calls the engine (ovos-persona's ``handle_persona_query(message)`` consumes the
  stream in the bus handler's thread, so the bus ``Message`` is a few frames up the call stack);
  the CLI and ovos-persona-server never do, and nothing changes there. ovos-config always has a
  default ``websocket`` section, so the configuration alone cannot say a messagebus is there.
- ``true``: connect at construction (in the background); ``false``: never.

Connecting never holds the caller long: the client runs in its own thread, and the first turn waits
at most :data:`CONNECT_WAIT_S` for it. A bus that is not reachable is a WARNING naming its address,
and the turn goes on without it; the client keeps trying on its own (``ovos_bus_client`` retries).
One client per process and address, shared by the process's engines.

On any bus the engine has (given or its own), :class:`VoiceListeners` hears:

- every stop (``ovos.stop`` = ``mycroft.stop``, ``stop:global``, ``stop:skill``, and the persona
  pipeline's targeted ``persona.openvoiceos:stop``), recorded per session: a question asked before
  it is cancelled (:mod:`ovos_agentic_loop._confirmation.sessions`);
- the question being spoken (``ovos.utterance.speak`` with the question's mark) and then the end of
  the session's audio output (``ovos.audio.output.ended`` = ``recognizer_loop:audio_output_end``,
  which the audio service emits after playback, in the speak's context), upon which it emits
  ``mycroft.mic.listen`` in that context: the microphone reopens for the answer, as it does after a
  skill's ``speak(..., expect_response=True)`` (ovos-persona speaks every sentence without it, and a
  chat engine only yields strings).
"""

from __future__ import annotations

import base64
import threading
import time
import weakref
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

from ovos_utils.log import LOG

from ovos_agentic_loop._confirmation.pending import mark_of
from ovos_agentic_loop._confirmation.sessions import running_turns, stops

__all__ = [
    "BARGE_IN_TOPICS",
    "CONNECT_WAIT_S",
    "MIC_LISTEN",
    "PERSONA_STOP_TOPICS",
    "STOP_TOPICS",
    "BusAddress",
    "EngineBus",
    "VoiceBusSetting",
    "VoiceListeners",
    "message_on_stack",
    "session_of",
    "voice_listeners",
]

VoiceBusSetting = Literal["auto"] | bool

#: What the first turn over the bus waits for the engine's own client to connect (on 127.0.0.1 it
#: takes 10-50 ms); a turn never waits again.
CONNECT_WAIT_S = 1.0
#: How far up the call stack a turn looks for the bus message it runs under. Under ovos-core 3.7.5a1
#: and ovos-persona 0.9.0a35 the message is 6 frames up (message_on_stack <- EngineBus.for_turn <-
#: stream_tokens <- stream_sentences <- ovos-persona's stream_completion <- handle_persona_query(message)):
#: ovos-persona's generators are consumed by the handler's own loop. dig_for_message's default (10)
#: would do; 16 leaves room for a host that wraps the handler, at a few microseconds a frame.
STACK_DEPTH = 16

#: Every way ovos-core says stop (the canonical and legacy names; the bus client bridges the two).
STOP_TOPICS = ("ovos.stop", "stop:global", "stop:skill", "persona.openvoiceos:stop")
#: The stops aimed at the persona pipeline: ovos-persona stops the answer it is speaking itself.
PERSONA_STOP_TOPICS = ("stop:skill", "persona.openvoiceos:stop")
#: The listener started recording (the wake word was heard): the user talks over the assistant.
BARGE_IN_TOPICS = ("ovos.listener.record.started", "recognizer_loop:record_begin")
SPEAK = "ovos.utterance.speak"
OUTPUT_ENDED = "ovos.audio.output.ended"
#: What the TTS layer emits after a speak with ``expect_response`` (the listener's own topic).
MIC_LISTEN = "mycroft.mic.listen"


def session_of(message: Any) -> str:
    """The session a bus message belongs to (ovos's own rule: none is the ``default`` session)."""
    context = getattr(message, "context", None) or {}
    session = context.get("session") if isinstance(context, dict) else None
    found = session.get("session_id") if isinstance(session, dict) else None
    return str(found) if found else "default"


def message_on_stack(depth: int = STACK_DEPTH) -> Any | None:
    """The bus ``Message`` the current call runs under, when a caller up the stack was handed one."""
    try:
        from ovos_bus_client.message import dig_for_message
    except ImportError:  # no bus client installed: no messagebus host either
        return None
    return dig_for_message(max_records=depth)


@dataclass(frozen=True)
class BusAddress:
    host: str
    port: int
    route: str
    ssl: bool

    @classmethod
    def configured(cls) -> BusAddress:
        """Where mycroft.conf's ``websocket`` section points (the host's configuration)."""
        from ovos_bus_client.conf import load_message_bus_config

        found = load_message_bus_config()
        return cls(str(found.host), int(found.port), str(found.route), bool(found.ssl))

    @property
    def url(self) -> str:
        return f"{'wss' if self.ssl else 'ws'}://{self.host}:{self.port}{self.route}"


def _connect(address: BusAddress) -> Any:
    from ovos_bus_client import MessageBusClient

    client = MessageBusClient(host=address.host, port=address.port, route=address.route, ssl=address.ssl)
    client.run_in_thread()
    return client


#: The engines' own clients, one per address, for the process's life (the client's thread is a daemon).
_CLIENTS: dict[BusAddress, Any] = {}
_CLIENTS_LOCK = threading.Lock()


def _own_client(address: BusAddress, connect: Callable[[BusAddress], Any]) -> Any:
    with _CLIENTS_LOCK:
        client = _CLIENTS.get(address)
        if client is None:
            client = _CLIENTS[address] = connect(address)
            voice_listeners(client)
        return client


@dataclass
class _Waiting:
    mark: str  # the digits of the question's mark
    until: float
    spoken: bool = False


class VoiceListeners:
    """The stop and microphone listeners of one bus; one per bus object (see :func:`voice_listeners`)."""

    def __init__(self, bus: Any) -> None:
        self._bus = weakref.ref(bus)
        self._lock = threading.Lock()
        self._waiting: dict[str, _Waiting] = {}
        for topic in STOP_TOPICS:
            bus.on(topic, self.on_stop)
        for topic in BARGE_IN_TOPICS:
            bus.on(topic, self.on_barge_in)
        bus.on(SPEAK, self.on_speak)
        bus.on(OUTPUT_ENDED, self.on_output_ended)

    def expect_answer(self, session: str, token: str, expiry: float) -> None:
        """Reopen the microphone of ``session`` once the question signed as ``token`` is spoken."""
        try:
            mark = mark_of(base64.urlsafe_b64decode(token.encode()).decode())
        except (ValueError, UnicodeDecodeError):
            return
        if mark is None:
            return
        with self._lock:
            now = time.time()
            for old in [s for s, w in self._waiting.items() if w.until < now]:
                del self._waiting[old]
            self._waiting[session] = _Waiting(mark, now + expiry)

    def on_barge_in(self, message: Any) -> None:
        """The wake word while a turn runs: the turn is interrupted (its question, if it asked one,
        stays open: the user may be about to answer it)."""
        running_turns.interrupt(session_of(message))

    def on_stop(self, message: Any) -> None:
        session = session_of(message)
        stops.record(session)
        aimed = getattr(message, "msg_type", None) in PERSONA_STOP_TOPICS
        running_turns.interrupt(session, host_stops_speech=aimed)
        with self._lock:  # a stopped question is not answered: no microphone for it either
            self._waiting.pop(session, None)

    def on_speak(self, message: Any) -> None:
        session = session_of(message)
        with self._lock:
            waiting = self._waiting.get(session)
            if waiting is None:
                return
            said = str((getattr(message, "data", None) or {}).get("utterance") or "")
            if mark_of(said) == waiting.mark:
                waiting.spoken = True

    def on_output_ended(self, message: Any) -> None:
        session = session_of(message)
        with self._lock:
            waiting = self._waiting.get(session)
            if waiting is None or not waiting.spoken:
                return  # an earlier sentence's playback, or another session's
            del self._waiting[session]
        bus = self._bus()
        if bus is None:
            return
        try:
            bus.emit(message.forward(MIC_LISTEN))
        except Exception as exc:  # noqa: BLE001 - a bus handler must not die silently; reported
            LOG.warning(f"ovos-agentic-loop: could not reopen the microphone on the bus: {exc!r}")


_LISTENERS: weakref.WeakKeyDictionary[Any, VoiceListeners] = weakref.WeakKeyDictionary()
_LISTENERS_LOCK = threading.Lock()


def voice_listeners(bus: Any) -> VoiceListeners | None:
    """The listeners of ``bus``, made the first time (None for a bus that cannot have them)."""
    with _LISTENERS_LOCK:
        try:
            found = _LISTENERS.get(bus)
            if found is None:
                found = _LISTENERS[bus] = VoiceListeners(bus)
            return found
        except TypeError:  # not weakly referable: a bus stand-in of some test or host
            return None


class EngineBus:
    """One engine's bus: the one it was given, or its own (see the module's docstring).

    ``attach(bus)`` is called once with the bus, when there is one: the engine's own listeners (the
    GUI's answers). The engine keeps no per-turn state here: :meth:`for_turn` only starts the client.
    """

    def __init__(
        self,
        given: Any,
        setting: VoiceBusSetting,
        *,
        engine_name: str,
        attach: Callable[[Any], None],
        connect: Callable[[BusAddress], Any] | None = None,
    ) -> None:
        self.setting = setting
        self._engine_name = engine_name
        self._attach = attach
        self._connect = connect
        self._lock = threading.Lock()
        self._own: Any = None
        self._address: BusAddress | None = None
        self._unreachable_said = False
        self._given = given
        if given is not None:
            voice_listeners(given)
            attach(given)
        elif setting is True:
            threading.Thread(target=self._start, name="voice-bus-connect", daemon=True).start()

    def current(self) -> Any | None:
        """The bus to emit on now: the given one, or the own client while it is connected."""
        if self._given is not None:
            return self._given
        own = self._own
        return own if own is not None and _connected(own) else None

    def for_turn(self) -> bool:
        """At a turn's start: True when the turn runs inside a messagebus handler (a voice assistant's
        utterance). Under ``auto`` the first such turn connects the own client and waits a moment for
        it; a bus that does not answer is reported, once."""
        over_bus = message_on_stack() is not None
        if self._given is not None or self.setting is False:
            return over_bus
        if self._own is None:
            if self.setting == "auto" and not over_bus:
                return over_bus
            if self._start() is None:
                return over_bus
        own = self._own
        event = getattr(own, "connected_event", None)
        connected = event.wait(CONNECT_WAIT_S) if event is not None and not self._unreachable_said else False
        if connected or _connected(own):
            self._unreachable_said = False
        elif not self._unreachable_said:
            self._unreachable_said = True
            where = self._address.url if self._address else "(unknown address)"
            LOG.warning(
                f"{self._engine_name}: the messagebus at {where} (mycroft.conf's websocket section) is not "
                "reachable: no step events, no ovos.agentic_loop.confirm, no stop and no microphone "
                "reopening until it is; the turn goes on without it"
            )
        return over_bus

    def _start(self) -> Any | None:
        with self._lock:
            if self._own is not None:
                return self._own
            try:
                self._address = BusAddress.configured()
                own = _own_client(self._address, self._connect or _connect)
            except Exception as exc:  # noqa: BLE001 - no bus must never break the engine; reported
                LOG.warning(
                    f"{self._engine_name}: could not start a messagebus client "
                    f"({type(exc).__name__}: {exc}); going on without a bus"
                )
                self.setting = False
                return None
            self._attach(own)
            self._own = own
            return own


def _connected(client: Any) -> bool:
    event = getattr(client, "connected_event", None)
    return bool(event.is_set()) if event is not None else True
