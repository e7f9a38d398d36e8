"""Cancelling a model request the loop gave up on, so the server stops working on it at once.

A local llama-server keeps computing a request until it notices that the client went away;
a request the loop stopped waiting for (time budget, a caller that stopped reading, a warm-up
a turn no longer waits for) would otherwise hold the server for minutes and make every next
request queue behind work nobody reads. llama-server checks the connection of every request,
streamed or not, while it reads the prompt and while it writes, and cancels the task when the
client closed it; so cancelling means closing the request's connection.

A :class:`CancelScope` is made for one brain call. The thread that runs the call makes it the
current scope (:func:`active`); a brain that can be cancelled registers a hook on the current
scope (``ovos-openai-brain`` registers every connection it reads from). Whoever gives up calls
:meth:`CancelScope.cancel`, from any thread: the hooks run at once (closing the sockets wakes
the blocked read in the worker thread). A brain that registers nothing is simply abandoned, as
before: its worker thread is a daemon and its late reply is dropped.
"""

from __future__ import annotations

import contextlib
import logging
import threading
from collections.abc import Callable, Iterator
from contextvars import ContextVar

__all__ = ["CancelScope", "TurnInterrupted", "active", "current", "run_in"]

LOG = logging.getLogger(__name__)

_CURRENT: ContextVar[CancelScope | None] = ContextVar("ovos_agentic_loop_cancel_scope", default=None)


class TurnInterrupted(Exception):
    """The user interrupted the turn (a spoken "stop", the wake word): it ends now, saying nothing more.

    Raised in the turn's thread when its interrupt scope (``TurnState.interrupt``) is cancelled
    while it waits for the model or for tools; the model request is closed, tools not started yet
    never start, a running tool that can be stopped is stopped.
    """


class CancelScope:
    """Hooks that abort one brain call; :meth:`cancel` runs them once, from any thread."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._hooks: dict[object, Callable[[], None]] = {}
        self._cancelled = False

    @property
    def cancelled(self) -> bool:
        return self._cancelled

    def on_cancel(self, key: object, hook: Callable[[], None]) -> None:
        """Run ``hook`` on :meth:`cancel` (at once when already cancelled); one hook per ``key``."""
        with self._lock:
            if not self._cancelled:
                self._hooks[key] = hook
                return
        _run(hook)

    def forget(self, key: object) -> None:
        """Drop the hook registered under ``key`` (its wait is over); nothing when there is none."""
        with self._lock:
            self._hooks.pop(key, None)

    def cancel(self) -> None:
        """Abort the call: every hook runs now, later registrations run at once. Idempotent."""
        with self._lock:
            if self._cancelled:
                return
            self._cancelled = True
            hooks, self._hooks = list(self._hooks.values()), {}
        for hook in hooks:
            _run(hook)


def _run(hook: Callable[[], None]) -> None:
    try:
        hook()
    except Exception:  # cancelling is best effort: the call is abandoned either way
        LOG.debug("cancel hook %r failed", hook, exc_info=True)


def current() -> CancelScope | None:
    """The scope of the brain call running in this thread, if any."""
    return _CURRENT.get()


@contextlib.contextmanager
def active(scope: CancelScope) -> Iterator[CancelScope]:
    """Make ``scope`` the current one in this thread for the duration of the block."""
    token = _CURRENT.set(scope)
    try:
        yield scope
    finally:
        _CURRENT.reset(token)


def run_in(scope: CancelScope, fn: Callable[[], None]) -> Callable[[], None]:
    """``fn`` wrapped to run with ``scope`` current (for a worker thread)."""

    def run() -> None:
        with active(scope):
            fn()

    return run
