"""The project's own brain: ``OpenAIBrain`` (entry point ``ovos-openai-brain``).

Ownership: ``config`` parses the persona section once; ``wire`` maps messages to and
from the OpenAI format; ``openai_brain`` does the HTTP, retries and streaming.
"""

from ovos_agentic_loop.brain.config import BrainConfig
from ovos_agentic_loop.brain.openai_brain import OpenAIBrain
from ovos_agentic_loop.brain.wire import RAW_ARGUMENTS_KEY
from ovos_agentic_loop.errors import BrainConfigError, BrainError, BrainRequestError, BrainUnavailable

__all__ = [
    "RAW_ARGUMENTS_KEY",
    "BrainConfig",
    "BrainConfigError",
    "BrainError",
    "BrainRequestError",
    "BrainUnavailable",
    "OpenAIBrain",
]
