"""``OpenAIBrain``: a tool-calling ``ChatEngine`` for any OpenAI-compatible server.

All retrying happens here, with tenacity (the SDK's own retries are switched off
so there is one policy in one place), and every SDK error is translated into an
``ovos_agentic_loop.errors`` exception at this edge.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from typing import Any, TypeVar

import openai
from openai import OpenAI
from ovos_plugin_manager.templates.agent_tools import ToolBox
from ovos_plugin_manager.templates.agents import ChatEngine
from tenacity import (
    RetryCallState,
    Retrying,
    retry_if_exception,
    stop_after_attempt,
    stop_after_delay,
    wait_exponential,
)

from ovos_agentic_loop.brain.config import BrainConfig
from ovos_agentic_loop.brain.wire import ToolCallAccumulator, to_wire, tool_call_from_wire
from ovos_agentic_loop.errors import BrainError, BrainRequestError, BrainUnavailable
from ovos_agentic_loop.messages import AgentMessage, BrainReply, MessageRole
from ovos_agentic_loop.sentences import stream_sentences

__all__ = ["OpenAIBrain"]

LOG = logging.getLogger(__name__)
T = TypeVar("T")

_START_HINT = (
    "start the local one with `ovos-agentic-loop server start`, or set `api_url` to a running server"
)


def _retryable(exc: BaseException) -> bool:
    if isinstance(exc, openai.APIConnectionError):  # includes APITimeoutError
        return True
    return isinstance(exc, openai.APIStatusError) and (exc.status_code == 429 or exc.status_code >= 500)


class OpenAIBrain(ChatEngine):
    """Chat completions with native tool calls, retries, and real token streaming.

    Config keys and defaults: see :class:`~ovos_agentic_loop.brain.config.BrainConfig`.
    ``http_client`` (an ``httpx2.Client``) is for tests and custom transports.
    """

    supports_tools = True

    def __init__(self, config: dict[str, Any] | None = None, *, http_client: Any = None) -> None:
        super().__init__(config=config or {})
        self.settings = BrainConfig.parse(self.config)
        s = self.settings
        timeout = openai.Timeout(s.timeout, connect=min(s.connect_timeout, s.timeout))
        # max_retries=0: tenacity below owns the retry policy.
        self.client = OpenAI(
            base_url=s.api_url, api_key=s.key, timeout=timeout, max_retries=0, http_client=http_client
        )

    # -- requests -------------------------------------------------------------
    def _request(
        self, messages: list[AgentMessage], tools: Any, stop: list[str] | None, stream: bool
    ) -> dict[str, Any]:
        s = self.settings
        body: dict[str, Any] = {
            "model": s.model,
            "messages": [to_wire(m) for m in messages],
            "max_tokens": s.max_tokens,
        }
        if s.temperature is not None:
            body["temperature"] = s.temperature
        specs = ToolBox.normalize_tools(tools) if tools else []
        if specs:
            body["tools"] = specs
        stops = list(dict.fromkeys([*s.stop, *(stop or [])]))
        if stops:
            body["stop"] = stops
        if stream:
            body["stream"] = True
            body["stream_options"] = {"include_usage": True}
        if s.extra_body:
            body["extra_body"] = dict(s.extra_body)
        return body

    def _call(self, fn: Callable[[], T]) -> T:
        """Run one request with the retry policy, translating SDK errors."""
        s = self.settings
        retrying = Retrying(
            retry=retry_if_exception(_retryable),
            stop=stop_after_attempt(s.max_retries + 1) | stop_after_delay(s.timeout),
            wait=wait_exponential(multiplier=s.retry_backoff, max=8),
            before_sleep=self._log_retry,
            reraise=True,
        )
        try:
            return retrying(fn)
        except openai.OpenAIError as exc:
            raise self._translate(exc) from exc

    def _log_retry(self, state: RetryCallState) -> None:
        error = state.outcome.exception() if state.outcome else None
        url, attempt = self.settings.api_url, state.attempt_number
        LOG.warning("brain request to %s failed (%s); retry %d", url, error, attempt)

    def _translate(self, exc: openai.OpenAIError) -> BrainError:
        url = self.settings.api_url
        if isinstance(exc, openai.APITimeoutError):
            return BrainUnavailable(
                f"The model server at {url} did not answer within {self.settings.timeout:g} s "
                f"(config `timeout`). Is it overloaded, or the request too long? If it is not running, "
                f"{_START_HINT}.",
                url=url,
            )
        if isinstance(exc, openai.APIConnectionError):
            cause = exc.__cause__ or exc
            message = f"Cannot reach the model server at {url} ({cause}); {_START_HINT}."
            return BrainUnavailable(message, url=url)
        if isinstance(exc, openai.APIStatusError):
            detail = f"HTTP {exc.status_code} from {url}: {exc.message}"
            if _retryable(exc):
                detail += " (still failing after retries)"
                return BrainUnavailable(detail, url=url, status=exc.status_code)
            return BrainRequestError(detail, url=url, status=exc.status_code)
        return BrainError(f"Request to {url} failed: {exc}", url=url)

    # -- ChatEngine -------------------------------------------------------------
    def continue_chat(
        self,
        messages: list[AgentMessage],
        session_id: str = "default",
        lang: str | None = None,
        units: str | None = None,
        tools: Any = None,
        stop: list[str] | None = None,
    ) -> BrainReply:
        """One completion; the reply carries ``tool_calls``, usage, llama-server timings, finish_reason."""
        body = self._request(messages, tools, stop, stream=False)
        completion = self._call(lambda: self.client.chat.completions.create(**body))
        if not completion.choices:
            url = self.settings.api_url
            raise BrainError(f"The server at {url} returned no choices", url=url)
        choice = completion.choices[0]
        extra = completion.model_extra or {}
        return BrainReply(
            role=MessageRole.ASSISTANT,
            content=choice.message.content or "",
            tool_calls=[tool_call_from_wire(c) for c in choice.message.tool_calls or []] or None,
            usage=completion.usage.model_dump(exclude_none=True) if completion.usage else None,
            timings=extra.get("timings"),
            finish_reason=choice.finish_reason,
        )

    def stream_message(
        self,
        messages: list[AgentMessage],
        session_id: str = "default",
        lang: str | None = None,
        units: str | None = None,
        tools: Any = None,
        stop: list[str] | None = None,
    ) -> Iterator[str | AgentMessage]:
        """Text deltas as they arrive, then one ``BrainReply`` with the accumulated tool calls.

        Only opening the stream is retried: once text went out, a retry would repeat it.
        """
        body = self._request(messages, tools, stop, stream=True)
        stream = self._call(lambda: self.client.chat.completions.create(**body))
        text: list[str] = []
        calls = ToolCallAccumulator()
        usage: dict[str, Any] | None = None
        timings: dict[str, Any] | None = None
        finish_reason: str | None = None
        try:
            with stream:
                for chunk in stream:
                    extra = chunk.model_extra or {}
                    timings = extra.get("timings") or timings
                    if chunk.usage:
                        usage = chunk.usage.model_dump(exclude_none=True)
                    for choice in chunk.choices:
                        finish_reason = choice.finish_reason or finish_reason
                        if choice.delta.content:
                            text.append(choice.delta.content)
                            yield choice.delta.content
                        calls.add(choice.delta.tool_calls)
        except openai.OpenAIError as exc:
            raise self._translate(exc) from exc
        yield BrainReply(
            role=MessageRole.ASSISTANT,
            content="".join(text),
            tool_calls=calls.calls() or None,
            usage=usage,
            timings=timings,
            finish_reason=finish_reason,
        )

    def stream_tokens(
        self,
        messages: list[AgentMessage],
        session_id: str = "default",
        lang: str | None = None,
        units: str | None = None,
    ) -> Iterator[str]:
        """Answer text deltas as the server sends them."""
        for item in self.stream_message(messages, session_id=session_id, lang=lang, units=units):
            if isinstance(item, str):
                yield item

    def stream_sentences(
        self,
        messages: list[AgentMessage],
        session_id: str = "default",
        lang: str | None = None,
        units: str | None = None,
    ) -> Iterator[str]:
        """Complete sentences, each as soon as the server has written it."""
        tokens = self.stream_tokens(messages, session_id=session_id, lang=lang, units=units)
        yield from stream_sentences(tokens)
