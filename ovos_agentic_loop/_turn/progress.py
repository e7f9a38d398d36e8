"""Progress speech: one short line while a tool runs, once the turn has been silent a while.

A question on a CPU can take many seconds, most of them in tool calls and the model calls around
them; a voice that says nothing that long sounds broken. When a call is about to run (the model is
still writing it: its tool's name is out) or runs, and the turn has been silent for
``progress_delay`` seconds, or that moment comes before the reply ends or the tools finish, the
turn emits a :class:`~ovos_agentic_loop.events.Progress` event with a line made from the first
call as far as it is known (``_text.progress``, by ``tool_steps``): no model call. A host speaks
it (under ovos-core the engine says it on the bus); it is never part of the answer. One line per
turn, another only after a long further wait (:data:`REPEAT_AFTER_S`), at most
:data:`MAX_LINES`; a turn that answers within the delay hears none.

Whether a line is said is decided under one lock by values (armed or not, the lines said so far),
so a timer that fires as the reply or the tools finish never speaks after the turn moved on. A
reply disarms the line when it ends; the calls it made arm it again as they run, due at the same
moment (silence counts from ``quiet_since``), and a reply that is an answer says none.
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
    """What a turn has said to a waiting listener, since when it has been silent, and the line it
    is ready to say (armed while a call is written or runs)."""

    quiet_since: float = field(default_factory=time.monotonic)
    lines: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock, repr=False)
    _say: Callable[[], None] | None = field(default=None, repr=False)  # None: not armed
    _alarm: _Alarm | None = field(default=None, repr=False)

    def heard(self) -> None:
        """Something was said (a sentence of the answer): the silence starts again."""
        self.quiet_since = time.monotonic()

    def due(self, delay: float) -> float | None:
        """When (``time.monotonic()``) the next line may be said; None when the turn said its last."""
        if self.lines >= MAX_LINES:
            return None
        return self.quiet_since + (delay if self.lines == 0 else max(delay, REPEAT_AFTER_S))

    def arm(self, delay: float, say: Callable[[], None]) -> None:
        """A call is being written or runs: ``say()`` the line once the turn has been silent
        ``delay`` seconds (at once when it has been already), and again after each longer wait,
        until :meth:`disarm`. Armed already: ``say`` (knowing more of the call) makes the line,
        due when it was."""
        with self.lock:
            armed, self._say = self._say is not None, say
            if armed:
                return
            due = self.due(delay)
            if due is None:
                return
            if due <= time.monotonic():
                self._say_when_due(delay)  # silent long enough already: said now
            else:
                self._alarm = _ALARMS.add(due, lambda: self._fire(delay))

    def disarm(self) -> None:
        """The call is over (or was never made): no line from here on; an alarm due now says none."""
        with self.lock:
            self._say = None
            if self._alarm is not None:
                self._alarm.cancel()  # dropped unfired
                self._alarm = None

    def _fire(self, delay: float) -> None:
        with self.lock:
            self._say_when_due(delay)

    def _say_when_due(self, delay: float) -> None:
        """Under the lock: say the line unless disarmed, and set the alarm of the next one."""
        say = self._say
        if say is None:
            return  # disarmed as the alarm fired: the turn moved on
        self.lines += 1
        self.heard()
        say()
        due = self.due(delay)
        self._alarm = _ALARMS.add(due, lambda: self._fire(delay)) if due is not None else None


@contextmanager
def while_tools_run(voice: ProgressVoice, delay: float | None, say: Callable[[], None]) -> Iterator[None]:
    """Around running tools: ``say()`` the line if the turn has been, or becomes, silent for ``delay``
    seconds before they finish (None: progress speech is off). ``say`` emits it; counting is here."""
    if delay is None:
        yield
        return
    voice.arm(delay, say)
    try:
        yield
    finally:
        voice.disarm()


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
