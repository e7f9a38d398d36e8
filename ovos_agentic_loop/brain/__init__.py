"""The project's own brain: ``OpenAIBrain`` (entry point ``ovos-openai-brain``).

Ownership: ``config`` parses the persona section once; ``wire`` maps messages to and
from the OpenAI format; ``retry_policy`` decides how long to wait before a retry
(``Retry-After``) and when to give up; ``openai_brain`` does the HTTP and streaming.
"""

from ovos_agentic_loop.brain.config import BrainConfig
from ovos_agentic_loop.brain.openai_brain import OpenAIBrain
from ovos_agentic_loop.brain.wire import RAW_ARGUMENTS_KEY
from ovos_agentic_loop.errors import (
    BrainBadResponse,
    BrainConfigError,
    BrainDeadlineReached,
    BrainError,
    BrainRequestError,
    BrainUnavailable,
)

__all__ = [
    "RAW_ARGUMENTS_KEY",
    "BrainBadResponse",
    "BrainConfig",
    "BrainConfigError",
    "BrainDeadlineReached",
    "BrainError",
    "BrainRequestError",
    "BrainUnavailable",
    "OpenAIBrain",
]
