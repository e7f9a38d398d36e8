"""An engine's warm-up: in the background, the brain's prompt cache gets the persona's system
prompt and tool list; a turn that starts meanwhile waits for it, within its own time budget."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Protocol

from ovos_utils.log import LOG

from ovos_agentic_loop._runtime import cancellation
from ovos_agentic_loop._runtime.cancellation import CancelScope
from ovos_agentic_loop._runtime.daemon_pool import shared_pool
from ovos_agentic_loop._runtime.log import ovos_logger

__all__ = ["WARM_UP_MESSAGE", "WARM_UP_PROGRESS", "WarmUp"]

WARM_UP_MESSAGE = "Reply with the single word OK."
#: Shown (as a step event) when a turn waits for the warm-up, which may take a minute on a CPU.
WARM_UP_PROGRESS = "reading the tool list, first time only..."


class Warming(Protocol):
    """The turn that warms the brain up (``Turn.warm_up``)."""

    def warm_up(self) -> None: ...


class Waiting(Protocol):
    """A turn that may wait for the warm-up: its deadline, and a progress notice."""

    @property
    def deadline(self) -> float: ...
    def progress(self, message: str) -> None: ...


class WarmUp:
    """One engine's warm-up; ``done`` is set once it is over (warmed up, failed or cancelled)."""

    def __init__(self, engine_name: str, *, enabled: bool) -> None:
        self._engine_name = engine_name
        self.enabled = enabled
        self.done = threading.Event()
        self._scope = CancelScope()  # a turn that stops waiting for the warm-up cancels it

    def start(self, turn: Callable[[], Warming], *, otherwise: Callable[[], None] | None) -> None:
        """In the background: the warm-up with ``turn`` where it is on, else ``otherwise`` (if any)."""
        if self.enabled:
            shared_pool().submit(self.run, turn)
        elif otherwise is not None:
            shared_pool().submit(otherwise)

    def run(self, turn: Callable[[], Warming]) -> None:
        """Prime the brain with the warm-up ``turn`` (built here: that loads the brain first)."""
        started = time.monotonic()
        try:
            warming = turn()
            with cancellation.active(self._scope):
                warming.warm_up()
        except Exception as exc:  # noqa: BLE001 - reported; the first real turn will meet (and raise) it again
            LOG.warning(f"{self._engine_name}: warm-up failed ({type(exc).__name__}: {exc})")
        else:
            elapsed = time.monotonic() - started
            ovos_logger(__name__).info(f"{self._engine_name}: warmed up in {elapsed:.1f} s")
        finally:
            self.done.set()

    def wait(self, turn: Waiting) -> None:
        """A turn that starts during the warm-up waits for it, within the turn's own time budget.

        The warm-up is reading the very prefix the turn needs; a second request in parallel would
        only halve a CPU server's speed. The wait is part of the turn's budget (the turn's clock
        started before it), and when the budget runs out first the warm-up is cancelled, so the
        server is not left computing it.
        """
        if not self.enabled or self.done.is_set():
            return
        turn.progress(WARM_UP_PROGRESS)
        if not self.done.wait(max(0.0, turn.deadline - time.monotonic())):
            self._scope.cancel()
