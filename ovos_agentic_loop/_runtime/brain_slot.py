"""An engine's brain: handed in, or loaded once on first need behind its own lock, then prepared
once for its first request; loading starts in the background when the engine is built."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any, Generic, Protocol, TypeVar

from ovos_utils.log import LOG

from ovos_agentic_loop._runtime.loading import prepare_brain
from ovos_agentic_loop._runtime.log import ovos_logger

__all__ = ["BrainSlot"]


class Handle(Protocol):
    """A loaded brain as the slot reads it (``_turn.brain_call.BrainHandle``)."""

    @property
    def engine(self) -> Any: ...
    @property
    def name(self) -> str: ...


H = TypeVar("H", bound=Handle)


class BrainSlot(Generic[H]):
    """The brain of one engine; ``load`` builds its handle from the persona (called at most once
    unless a brain is set)."""

    def __init__(self, engine_name: str, load: Callable[[], H]) -> None:
        self._engine_name = engine_name
        self._load = load
        self._lock = threading.Lock()
        self.current: H | None = None  # None until loaded or set
        self._prepared = False

    def set(self, handle: H) -> None:
        """Use ``handle`` from now on (prepared again before its first request)."""
        self.current = handle
        self._prepared = False

    def loaded(self) -> H:
        """The brain, loaded (once, however many threads ask at the same time)."""
        if self.current is None:
            with self._lock:
                if self.current is None:
                    self.set(self._load())
        assert self.current is not None
        return self.current

    def ready(self) -> H:
        """The brain, loaded and prepared (see :func:`~ovos_agentic_loop._runtime.loading.prepare_brain`)."""
        brain = self.loaded()
        if not self._prepared:  # outside the lock: this may wait for the brain's own warm-up
            try:
                prepare_brain(brain.engine)
            except Exception as exc:  # noqa: BLE001 - reported; the brain's own request meets it again
                LOG.warning(
                    f"{self._engine_name}: preparing brain {brain.name!r} failed "
                    f"({type(exc).__name__}: {exc}); its first request will try again and report the error"
                )
            self._prepared = True
        return brain

    def load_early(self) -> None:
        """Background, from the end of the engine's construction on: load the brain plugin, which
        starts its own preparation (``ovos-openai-brain`` imports ``openai`` and builds its client in
        a thread of its own), so the first question does not pay for it. Without this the brain
        loaded at the first question, however long after construction it came. Not prepared here:
        this pool thread would only wait for the brain's, and the next engine's load would need
        another one."""
        try:
            self.loaded()
        except Exception as exc:  # noqa: BLE001 - the first turn loads it again and raises the error there
            ovos_logger(__name__).debug(f"{self._engine_name}: loading the brain early failed: {exc!r}")
