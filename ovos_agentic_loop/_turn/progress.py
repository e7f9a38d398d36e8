"""Progress speech: one short line while a tool runs, once the turn has been silent a while.

A question on a CPU can take many seconds, most of them in tool calls and the model calls around
them; a voice that says nothing that long sounds broken. When tools are about to run and the turn
has been silent for ``progress_delay`` seconds, or that moment comes while they run, the turn
emits a :class:`~ovos_agentic_loop.events.Progress` event with a line made from the first call
(``_text.progress``, by ``tool_steps``): no model call. A host speaks it (under ovos-core the
engine says it on the bus); it is never part of the answer. One line per turn, another only after
a long further wait (:data:`REPEAT_AFTER_S`), at most :data:`MAX_LINES`; a turn that answers
within the delay hears none.

Whether a line is said is decided under one lock by values (the tools finished or not, the lines
said so far), so a timer that fires as the tools finish never speaks after the turn moved on.
"""

from __future__ import annotations

import heapq
import logging
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

__all__ = ["MAX_LINES", "REPEAT_AFTER_S", "ProgressVoice", "while_tools_run"]

LOG = logging.getLogger(__name__)

#: Seconds of further silence after a line before another may be said (a long tool, a slow model).
REPEAT_AFTER_S = 15.0
#: The most progress lines one turn says.
MAX_LINES = 3


@dataclass
class ProgressVoice:
    """What a turn has said to a waiting listener, and since when it has been silent."""

    quiet_since: float = field(default_factory=time.monotonic)
    lines: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def heard(self) -> None:
        """Something was said (a sentence of the answer): the silence starts again."""
        self.quiet_since = time.monotonic()

    def due(self, delay: float) -> float | None:
        """When (``time.monotonic()``) the next line may be said; None when the turn said its last."""
        if self.lines >= MAX_LINES:
            return None
        return self.quiet_since + (delay if self.lines == 0 else max(delay, REPEAT_AFTER_S))


@contextmanager
def while_tools_run(voice: ProgressVoice, delay: float | None, say: Callable[[], None]) -> Iterator[None]:
    """Around running tools: ``say()`` the line if the turn has been, or becomes, silent for ``delay``
    seconds before they finish (None: progress speech is off). ``say`` emits it; counting is here."""
    if delay is None or voice.due(delay) is None:
        yield
        return
    running = [True]
    timers: list[_Alarm] = []

    def say_when_due() -> None:
        with voice.lock:
            if not running[0]:
                return
            voice.lines += 1
            voice.heard()
            say()
            due = voice.due(delay)
            if due is not None:
                timers.append(_ALARMS.add(due, say_when_due))

    due = voice.due(delay)
    assert due is not None
    if due <= time.monotonic():
        say_when_due()  # silent long enough already: said before the tools start
    else:
        with voice.lock:
            timers.append(_ALARMS.add(due, say_when_due))
    try:
        yield
    finally:
        with voice.lock:
            running[0] = False
            for timer in timers:
                timer.cancel()  # dropped unfired


class _Alarm:
    """One action due at a ``time.monotonic()`` moment; :meth:`cancel` before it fires drops it."""

    __slots__ = ("action", "at", "cancelled")

    def __init__(self, at: float, action: Callable[[], None]) -> None:
        self.at, self.action, self.cancelled = at, action, False

    def cancel(self) -> None:
        self.cancelled = True

    def __lt__(self, other: _Alarm) -> bool:
        return self.at < other.at


class _Alarms:
    """One daemon thread for every turn's progress alarms: a tool step costs a heap push, not a
    thread of its own (a timer thread per step cost about 0.15 ms of every step)."""

    def __init__(self) -> None:
        self._heap: list[_Alarm] = []
        self._wake = threading.Condition()
        self._thread: threading.Thread | None = None

    def add(self, at: float, action: Callable[[], None]) -> _Alarm:
        alarm = _Alarm(at, action)
        with self._wake:
            heapq.heappush(self._heap, alarm)
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="progress-alarms", daemon=True)
                self._thread.start()
            elif self._heap[0] is alarm:  # due before the one the thread waits for
                self._wake.notify()
        return alarm

    def _run(self) -> None:
        while True:
            with self._wake:
                while self._heap and self._heap[0].cancelled:
                    heapq.heappop(self._heap)
                if not self._heap:
                    self._wake.wait()
                    continue
                left = self._heap[0].at - time.monotonic()
                if left > 0:
                    self._wake.wait(left)
                    continue
                alarm = heapq.heappop(self._heap)
            try:
                alarm.action()
            except Exception:
                LOG.warning("a progress line could not be said", exc_info=True)


_ALARMS = _Alarms()
