"""The brain's typed configuration, parsed once from a persona section.

Types are strict: ``"timeout": "60"`` or ``"max_retries": true`` is refused naming the key, and
a section that is not a JSON object (say a bare URL string) is refused instead of running on
the defaults.
"""

from __future__ import annotations

import logging
from typing import Any

from pydantic import ConfigDict, Field, field_validator

from ovos_agentic_loop.errors import BrainConfigError
from ovos_agentic_loop.local import DEFAULT_MODEL_ALIAS, default_api_url
from ovos_agentic_loop_settings import StrictSection, config_errors, require_mapping

__all__ = ["BrainConfig"]

LOG = logging.getLogger(__name__)

# Keys OPM and ovos-persona put in every plugin section; not ours, not worth a warning.
_HOST_KEYS = frozenset({"enabled", "lang", "system_prompt", "persona", "name"})


class BrainConfig(StrictSection):
    """``OpenAIBrain`` settings. Unknown keys are ignored with a warning naming them."""

    model_config = ConfigDict(extra="ignore")

    api_url: str = Field(default_factory=default_api_url)
    """OpenAI-compatible ``/v1`` base URL. Default: the local llama-server, ``http://127.0.0.1:8091/v1``."""
    key: str = "sk-no-key"
    """API key sent as a bearer token. Default ``sk-no-key`` (llama-server ignores it)."""
    model: str = DEFAULT_MODEL_ALIAS
    """Model name sent with each request. Default ``local`` (llama-server serves its one model anyway)."""
    temperature: float | None = Field(default=0.2, ge=0, le=2)
    """Sampling temperature; ``None`` leaves it to the server. Default 0.2: tool calls want low entropy."""
    max_tokens: int = Field(default=512, gt=0)
    """Always sent: an unbounded generation on a small CPU can run for minutes. Default 512."""
    timeout: float = Field(default=60.0, gt=0)
    """Seconds for one request, and the overall deadline including retries. Default 60."""
    connect_timeout: float = Field(default=5.0, gt=0)
    """Seconds to open the connection (capped by ``timeout``). Default 5."""
    max_retries: int = Field(default=2, ge=0, le=10)
    """Retries after a connection error, timeout, 429 or 5xx; never after another 4xx. Default 2."""
    retry_backoff: float = Field(default=0.5, ge=0)
    """First retry delay in seconds, doubled each time (max 8 s). Default 0.5."""
    parallel_tool_calls: bool | None = True
    """Sent with every request that offers tools. Default true: llama-server's own default is false,
    and then it keeps ONE call per reply, so a question needing two independent tools costs a model
    call more (the demo's weekday-and-percent question). ``None`` leaves it to the server."""
    stop: list[str] = Field(default_factory=list)
    """Stop sequences added to every request (merged with the caller's). Default none."""
    extra_body: dict[str, Any] = Field(default_factory=dict)
    """Extra JSON fields for the request body (e.g. ``top_k``, ``cache_prompt``). Default none."""
    send_user: bool = True
    """Send the session key (:mod:`ovos_agentic_loop._runtime.session_key`) as the OpenAI ``user`` field,
    so a router or server can keep a conversation on one replica. Default on."""
    session_header: str = Field(default="x-litellm-session-id", pattern=r"^([A-Za-z0-9-]+)?$")
    """HTTP header that carries the session key too: LiteLLM's proxy reads ``x-litellm-session-id``
    for its ``session_affinity`` routing check. ``""`` sends no header. Default ``x-litellm-session-id``."""

    @field_validator("api_url")
    @classmethod
    def _http_url(cls, value: str) -> str:
        if not value.startswith(("http://", "https://")):
            raise ValueError("must start with http:// or https:// (an OpenAI-compatible /v1 base)")
        return value.rstrip("/")

    @field_validator("stop", mode="before")
    @classmethod
    def _one_or_many(cls, value: Any) -> Any:
        if value is None:
            return []
        return [value] if isinstance(value, str) else value

    @classmethod
    def parse(cls, config: dict[str, Any] | None) -> BrainConfig:
        """Validate a config dict; a bad value raises :class:`BrainConfigError` naming the key."""
        with config_errors("ovos-openai-brain", BrainConfigError):
            config = require_mapping(config, what="the ovos-openai-brain section")
            unknown = sorted(set(config) - set(cls.model_fields) - _HOST_KEYS)
            if unknown:
                LOG.warning("OpenAIBrain: ignoring unknown config keys %s", unknown)
            return cls.model_validate(config)
