"""Errors for the developer (configuration, an unreachable server), never for the model.

    LoopError                   the agent loop cannot be built or run as configured
     ├── ConfigError            a bad value in the loop's persona section (also a ValueError)
     └── PluginNotFound         a brain or toolbox entry point that is not installed (also ImportError)
    BrainError                  any failure talking to the model server
     ├── BrainConfigError       a bad value in the brain's config section (also a ValueError)
     ├── BrainUnavailable       the server cannot be reached or did not answer in time
     ├── BrainDeadlineReached   the caller's deadline came before the server answered (also a TimeoutError)
     ├── BrainReplyInvalid      the server could not read the model's own reply (malformed tool call)
     ├── BrainBadResponse       the reply is not an OpenAI chat completion (HTML, bad JSON, cut stream)
     └── BrainRequestError      the server refused the request (HTTP 4xx other than 429)
    ShuttingDown                the interpreter is exiting: waits of a turn are abandoned (a RuntimeError)

Each message says what failed and what to do about it, so a CLI can print it as is.
"""

from __future__ import annotations

__all__ = [
    "BrainBadResponse",
    "BrainConfigError",
    "BrainDeadlineReached",
    "BrainError",
    "BrainReplyInvalid",
    "BrainRequestError",
    "BrainUnavailable",
    "ConfigError",
    "LoopError",
    "PluginNotFound",
    "ShuttingDown",
]


class BrainError(RuntimeError):
    """A chat request to the model server failed."""

    def __init__(self, message: str, *, url: str | None = None, status: int | None = None) -> None:
        super().__init__(message)
        self.url = url
        self.status = status


class BrainConfigError(BrainError, ValueError):
    """The brain's configuration has a bad value; the message names the key."""


class BrainUnavailable(BrainError):
    """The server is unreachable, timed out, or kept answering 429/5xx after the retries."""


class BrainDeadlineReached(BrainError, TimeoutError):
    """The caller's ``deadline`` (the agent loop passes its turn's) came before the server answered.

    Not the server's failure: the request was bounded by the time its caller had left, and that
    time ran out. The agent loop reports it as the turn's ``time_budget`` running out, exactly as
    when it stops waiting itself. ``waited``: the seconds the request ran.
    """

    def __init__(self, message: str, *, waited: float, url: str | None = None) -> None:
        super().__init__(message, url=url)
        self.waited = waited


class BrainReplyInvalid(BrainError):
    """The server failed on the model's own output (llama-server: "Failed to parse tool call
    arguments as JSON"). Not the server's fault and not the caller's: the agent loop asks the model
    again with a correction instead of failing the turn."""


class BrainBadResponse(BrainError):
    """The server's answer is not a (complete) OpenAI chat completion: an HTML page, malformed JSON,
    or a stream that ended without ``[DONE]`` or a ``finish_reason``. The message names the URL and
    quotes the start of what came back."""


class BrainRequestError(BrainError):
    """The server rejected the request (4xx other than 429); retrying would not help."""


class LoopError(RuntimeError):
    """The agent loop cannot be built or run as configured."""


class ConfigError(LoopError, ValueError):
    """The loop's persona section has a bad value; the message names the key and what fits."""


class PluginNotFound(LoopError, ImportError):
    """A configured brain or toolbox entry point is not installed; the message lists what is."""


class ShuttingDown(RuntimeError):
    """The Python interpreter is exiting, so work a turn was waiting for was abandoned.

    Raised in the caller's thread instead of waiting out ``tool_timeout`` or ``time_budget``:
    a caller thread that is not a daemon would otherwise keep the process alive that long."""
