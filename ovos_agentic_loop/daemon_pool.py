"""A tiny thread pool of daemon threads, for work the loop may stop waiting for.

``concurrent.futures.ThreadPoolExecutor`` joins its threads at interpreter exit, so one
hung brain request or tool call would keep a voice assistant from shutting down. The
loop bounds every wait itself (``tool_timeout``, ``time_budget``) and abandons what
overruns; these threads are daemons, so abandoned work never blocks the exit.
Threads are reused: starting one per call would cost more than the rest of a step.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable
from concurrent.futures import Future
from typing import Any, TypeVar

__all__ = ["DaemonPool", "shared_pool"]

T = TypeVar("T")


class DaemonPool:
    """``submit(fn, *args) -> Future``; grows by one daemon thread whenever none is idle."""

    def __init__(self, name: str) -> None:
        self._name = name
        self._tasks: queue.SimpleQueue[tuple[Future[Any], Callable[..., Any], tuple[Any, ...]]] = (
            queue.SimpleQueue()
        )
        self._lock = threading.Lock()
        self._idle = 0
        self._started = 0

    def submit(self, fn: Callable[..., T], /, *args: Any) -> Future[T]:
        future: Future[T] = Future()
        with self._lock:
            if self._idle:
                self._idle -= 1  # an idle worker will take this task
            else:
                self._started += 1
                threading.Thread(target=self._work, name=f"{self._name}-{self._started}", daemon=True).start()
        self._tasks.put((future, fn, args))
        return future

    def _work(self) -> None:
        while True:
            future, fn, args = self._tasks.get()
            if future.set_running_or_notify_cancel():
                try:
                    future.set_result(fn(*args))
                except BaseException as exc:  # noqa: BLE001 - handed to whoever waits on the future
                    future.set_exception(exc)
            with self._lock:
                self._idle += 1


_shared: DaemonPool | None = None
_shared_lock = threading.Lock()


def shared_pool() -> DaemonPool:
    """The process-wide pool for brain calls and tool calls."""
    global _shared
    if _shared is None:
        with _shared_lock:
            if _shared is None:
                _shared = DaemonPool("ovos-agentic-loop")
    return _shared
