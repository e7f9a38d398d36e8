"""What this process knows of each session's question besides its mark: a stop said since it was
asked, and who spoke last in the session.

A pending call is stateless: it travels in the question's own text, and any engine with the key can
carry out its yes. Two things a mark cannot hold are kept here, per process, shared by its engines:

- **a stop**: "stop" (or "cancel") said by voice in ovos-core never reaches a persona; the stop
  pipeline broadcasts ``ovos.stop`` or a stop aimed at the persona pipeline, which the engine hears
  on its bus (:mod:`ovos_agentic_loop._confirmation.voice_bus`). A question asked in that session before
  the stop is cancelled: its yes runs nothing. Every engine connected to the same messagebus hears
  the broadcast, so replicas on one bus agree; a replica on another bus never hears it.
- **the last word in a session**: ovos-persona keeps one memory per persona, so a "yes" that the
  pipeline gives to another persona reaches an engine that never saw the question. When the last
  thing said in the session was another engine's question, still open, that yes is not this
  engine's to answer (it says so instead of asking its model).

Entries are bounded: at most :data:`MAX_SESSIONS` of each, each forgotten a day after its last use.
The turns running now (:class:`RunningTurns`) are kept only while they run: a stop or the wake word
in their session interrupts them.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

__all__ = [
    "MAX_SESSIONS",
    "LastWords",
    "OpenQuestion",
    "RunningTurns",
    "Stops",
    "last_words",
    "running_turns",
    "stops",
]

MAX_SESSIONS = 10_000
#: Longest a session is remembered (the longest ``confirm_expiry`` allowed, and a minute).
KEEP_S = 86_400 + 60


class _Bounded:
    """A string-keyed map (sessions, call ids) that forgets its least recently used key first."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._items: OrderedDict[str, tuple[float, object]] = OrderedDict()

    def put(self, session: str, value: object) -> None:
        now = time.time()
        with self._lock:
            self._items.pop(session, None)
            self._items[session] = (now, value)
            while self._items:
                oldest, (at, _) = next(iter(self._items.items()))
                if len(self._items) <= MAX_SESSIONS and now - at <= KEEP_S:
                    break
                del self._items[oldest]

    def get(self, session: str) -> object | None:
        with self._lock:
            found = self._items.get(session)
        return None if found is None or time.time() - found[0] > KEEP_S else found[1]

    def pop(self, session: str) -> None:
        with self._lock:
            self._items.pop(session, None)


class Stops:
    """When each session last said stop."""

    def __init__(self) -> None:
        self._at = _Bounded()

    def record(self, session: str, at: float | None = None) -> None:
        self._at.put(session, time.time() if at is None else at)

    def cancelled(self, session: str, issued: float) -> bool:
        """True when ``session`` said stop after a question issued at ``issued`` (``time.time()``)."""
        at = self._at.get(session)
        return isinstance(at, float) and at >= issued


@dataclass(frozen=True)
class OpenQuestion:
    """A question an engine asked in a session, and nothing said there since."""

    asker: str  # the engine's id in this process (Confirmation.asker)
    id: str  # the pending call's id
    question: str
    issued: float
    expiry: float

    def is_open(self) -> bool:
        return time.time() - self.issued <= self.expiry


class LastWords:
    """Per session: the open question of whoever spoke last, or None once anyone answered since;
    and which engine of the process asked each question (by its id)."""

    def __init__(self) -> None:
        self._last = _Bounded()
        self._askers = _Bounded()  # keyed by the pending call's id

    def asked(self, session: str, question: OpenQuestion) -> None:
        self._last.put(session, question)
        self._askers.put(question.id, question.asker)

    def asker_of(self, call_id: str) -> str | None:
        """The engine of this process that asked the question ``call_id`` (None: not this process)."""
        found = self._askers.get(call_id)
        return found if isinstance(found, str) else None

    def spoke(self, session: str) -> None:
        """An engine's turn ended with an answer in ``session``: no question of anyone is open."""
        self._last.pop(session)

    def decided(self, session: str, call_id: str) -> None:
        found = self._last.get(session)
        if isinstance(found, OpenQuestion) and found.id == call_id:
            self._last.pop(session)

    def open_question(self, session: str) -> OpenQuestion | None:
        found = self._last.get(session)
        return found if isinstance(found, OpenQuestion) and found.is_open() else None


class RunningTurns:
    """The turns running now, per session: what a spoken "stop" or the wake word interrupts.

    A turn is in here only while it runs (the engine adds it at its start and removes it at its
    end, whatever the ending), so a stop said before a turn began never touches it.
    """

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._turns: dict[str, list[Any]] = {}

    @contextmanager
    def running(self, session: str, interrupt: Any) -> Iterator[None]:
        """While the block runs, ``interrupt.cancel()`` is called on a stop in ``session``."""
        with self._lock:
            self._turns.setdefault(session, []).append(interrupt)
        try:
            yield
        finally:
            with self._lock:
                turns = self._turns.get(session, [])
                if interrupt in turns:
                    turns.remove(interrupt)
                if not turns:
                    self._turns.pop(session, None)

    def interrupt(self, session: str, *, host_stops_speech: bool = False) -> int:
        """Interrupt every turn running in ``session``; how many there were. ``host_stops_speech``:
        the stop was aimed at the host that speaks the answer (ovos-persona), which ends a turn
        whose answer it is speaking by itself."""
        with self._lock:
            turns = list(self._turns.get(session, []))
        for turn in turns:
            turn.cancel(host_stops_speech=host_stops_speech)
        return len(turns)


#: The process's: every engine of the process reads and feeds the same three.
stops = Stops()
last_words = LastWords()
running_turns = RunningTurns()
