"""How long the brain waits before a retry, and when waiting is pointless.

A server that answers 429 or 503 often says when to come back (``Retry-After``: seconds
or an HTTP date; OpenAI also sends ``retry-after-ms``). Waiting as told succeeds where a
fixed backoff fails; waiting past the request's ``timeout`` or the turn's deadline only
delays the failure, so then the brain gives up at once and says why. Nothing here
imports ``openai`` or ``tenacity``: it works on plain headers and numbers.
"""

from __future__ import annotations

import email.utils
import math
import time
from collections.abc import Mapping
from dataclasses import dataclass

__all__ = ["RetryClock", "retry_after_seconds"]

MAX_BACKOFF = 8.0  # seconds: the cap on the exponential backoff when the server names no delay


def retry_after_seconds(headers: Mapping[str, str] | None, *, now: float | None = None) -> float | None:
    """The delay a response asks for, in seconds (never negative), or None when it names none.

    ``retry-after-ms`` (milliseconds) first, then ``Retry-After`` as seconds, then as an
    HTTP date (``now`` is the wall clock, ``time.time()``, for tests). Header lookup is
    case-insensitive for ``httpx`` headers; a plain dict must use lower-case names.
    """
    if not headers:
        return None
    for name, scale in (("retry-after-ms", 0.001), ("retry-after", 1.0)):
        value = headers.get(name)
        if value is None:
            continue
        seconds: float | None
        try:
            seconds = float(value) * scale
        except ValueError:
            if name == "retry-after-ms":
                continue
            seconds = _seconds_until(value, time.time() if now is None else now)
        if seconds is not None and math.isfinite(seconds):
            return max(0.0, seconds)
    return None


def _seconds_until(http_date: str, now: float) -> float | None:
    try:
        moment = email.utils.parsedate_to_datetime(http_date)
    except (TypeError, ValueError, IndexError):
        return None
    if moment.tzinfo is None:  # RFC 9110 dates are GMT; a zone-less one is read as such
        return None
    return moment.timestamp() - now


@dataclass(frozen=True)
class RetryClock:
    """The time limits of one request with its retries (``time.monotonic()`` seconds)."""

    deadline: float
    """Give up rather than sleep past this: the request's ``timeout`` from its start, or the
    turn's deadline when that comes first."""
    backoff: float
    """The first delay when the server names none; doubled per attempt, at most :data:`MAX_BACKOFF`."""
    started: float = 0.0
    """When the request started: what a timeout reports as the seconds waited."""
    turn_bound: bool = False
    """True when the turn's deadline, not the request's own ``timeout``, is :attr:`deadline`:
    a value fixed when the request starts, so what a timeout means never depends on which
    thread noticed it first."""

    @classmethod
    def start(cls, timeout: float, backoff: float, turn_deadline: float | None = None) -> RetryClock:
        started = time.monotonic()
        deadline = started + timeout
        turn_bound = turn_deadline is not None and turn_deadline <= deadline
        if turn_deadline is not None and turn_bound:
            deadline = turn_deadline
        return cls(deadline=deadline, backoff=backoff, started=started, turn_bound=turn_bound)

    def remaining(self) -> float:
        return self.deadline - time.monotonic()

    def waited(self) -> float:
        """Seconds since the request started."""
        return time.monotonic() - self.started

    def run_out(self) -> bool:
        """True once :attr:`deadline` has passed. A client bounded by :meth:`remaining` times out
        at or after it (socket timeouts never fire early), so a timeout seen with time still
        left fired on a shorter limit of its own: the connection's."""
        return self.remaining() <= 0

    def delay(self, attempt: int, asked: float | None) -> float:
        """Seconds to wait before retry number ``attempt`` (1-based): as asked, else backoff."""
        if asked is not None:
            return asked
        return min(MAX_BACKOFF, self.backoff * 2.0 ** (attempt - 1))

    def too_late(self, delay: float) -> bool:
        """True when a retry after ``delay`` seconds would start at or past the deadline."""
        return delay >= self.remaining()
