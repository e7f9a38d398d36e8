"""A tiny thread pool of daemon threads, for work the loop may stop waiting for.

``concurrent.futures.ThreadPoolExecutor`` joins its threads at interpreter exit, so one
hung brain request or tool call would keep a voice assistant from shutting down. The
loop bounds every wait itself (``tool_timeout``, ``time_budget``) and abandons what
overruns; these threads are daemons, so abandoned work never blocks the exit.
Threads are reused: starting one per call would cost more than the rest of a step.

Daemon workers are not enough on their own: the thread that WAITS for them is the
caller's, and a caller thread that is not a daemon keeps the interpreter alive until
its wait ends (up to ``time_budget``). So when the interpreter starts to exit, the pool
fails every unfinished future with :class:`~ovos_agentic_loop.errors.ShuttingDown`
(that wakes every waiter at once) and refuses new work the same way.
"""

from __future__ import annotations

import logging
import queue
import threading
import weakref
from collections.abc import Callable
from concurrent.futures import Future, InvalidStateError
from typing import Any, TypeVar

from ovos_agentic_loop.errors import ShuttingDown

__all__ = ["DaemonPool", "shared_pool"]

LOG = logging.getLogger(__name__)
T = TypeVar("T")

_Task = tuple[Future[Any], Callable[..., Any], tuple[Any, ...]]


class DaemonPool:
    """``submit(fn, *args) -> Future``; grows by one daemon thread whenever none is idle."""

    def __init__(self, name: str) -> None:
        self._name = name
        self._tasks: queue.SimpleQueue[_Task] = queue.SimpleQueue()
        self._lock = threading.Lock()
        self._idle = 0
        self._started = 0
        self._unfinished: set[Future[Any]] = set()
        self._closed = False
        _watch(self)

    def submit(self, fn: Callable[..., T], /, *args: Any) -> Future[T]:
        future: Future[T] = Future()
        with self._lock:
            if self._closed:
                future.set_exception(_shutting_down())
                return future
            self._unfinished.add(future)
            if self._idle:
                self._idle -= 1  # an idle worker will take this task
            else:
                self._started += 1
                threading.Thread(target=self._work, name=f"{self._name}-{self._started}", daemon=True).start()
        self._tasks.put((future, fn, args))
        return future

    def abandon(self) -> None:
        """Fail every unfinished future with ``ShuttingDown`` and refuse new work.

        Runs when the interpreter starts to exit, before it joins non-daemon threads:
        whoever waits on one of these futures wakes up now instead of at its timeout.
        The work itself goes on in its daemon thread until the process ends.
        """
        with self._lock:
            self._closed = True
            unfinished, self._unfinished = list(self._unfinished), set()
        for future in unfinished:
            _settle(future, exception=_shutting_down())

    def _work(self) -> None:
        while True:
            future, fn, args = self._tasks.get()
            try:
                # False (cancelled) or RuntimeError (already failed by ``abandon``): skip it.
                run = future.set_running_or_notify_cancel()
            except RuntimeError:
                run = False
            if run:
                try:
                    _settle(future, result=fn(*args))
                except BaseException as exc:  # noqa: BLE001 - handed to whoever waits on the future
                    _settle(future, exception=exc)
            with self._lock:
                self._unfinished.discard(future)
                self._idle += 1


def _settle(future: Future[Any], *, result: Any = None, exception: BaseException | None = None) -> None:
    """Set a future's outcome unless ``abandon`` got there first (then the late outcome is dropped)."""
    try:
        if exception is not None:
            future.set_exception(exception)
        else:
            future.set_result(result)
    except InvalidStateError:
        pass


def _shutting_down() -> ShuttingDown:
    return ShuttingDown("the Python interpreter is exiting; the turn's unfinished work was abandoned")


_pools: weakref.WeakSet[DaemonPool] = weakref.WeakSet()
_exiting = False
_watch_lock = threading.Lock()
_registered = False


def _watch(pool: DaemonPool) -> None:
    """Have ``pool`` abandoned when the interpreter starts to exit."""
    global _registered
    with _watch_lock:
        _pools.add(pool)
        exiting = _exiting
        if not _registered and not exiting:
            # ``threading._register_atexit`` (what concurrent.futures uses) runs BEFORE the
            # interpreter joins non-daemon threads; ``atexit`` runs after that join: too late.
            register = getattr(threading, "_register_atexit", None)
            if register is None:  # pragma: no cover - CPython >= 3.9 has it
                LOG.debug("threading._register_atexit is missing: waits are not cut short at exit")
            else:
                try:
                    register(_abandon_all)
                    _registered = True
                except RuntimeError:  # the interpreter is already exiting
                    exiting = True
    if exiting:
        pool.abandon()


def _abandon_all() -> None:
    global _exiting
    with _watch_lock:
        _exiting = True
        pools = list(_pools)
    for pool in pools:
        pool.abandon()


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
