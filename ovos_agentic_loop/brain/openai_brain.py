"""``OpenAIBrain``: a tool-calling ``ChatEngine`` for any OpenAI-compatible server.

All retrying happens here, with tenacity (the SDK's own retries are switched off
so there is one policy in one place), and every SDK error is translated into an
``ovos_agentic_loop.errors`` exception at this edge.

Cold start: OPM imports every chat plugin to list them, and ``import openai`` alone
costs about half a second, so neither this module nor the class imports ``openai`` or
``tenacity``. Constructing a brain starts a daemon thread that imports them and builds
the client; the first request waits for that warm-up (one client, behind a lock).

Per request: the body is already JSON-ready, so it goes out through the client's
``post`` and skips ``chat.completions.create``'s parameter transform, which re-walks
the whole history on every call (most of the client-side CPU of a long agent run).
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any, TypeVar

from ovos_plugin_manager.templates.agent_tools import ToolBox
from ovos_plugin_manager.templates.agents import ChatEngine

from ovos_agentic_loop.brain.config import BrainConfig
from ovos_agentic_loop.brain.wire import ToolCallAccumulator, to_wire, tool_call_from_wire
from ovos_agentic_loop.errors import BrainError, BrainReplyInvalid, BrainRequestError, BrainUnavailable
from ovos_agentic_loop.messages import AgentMessage, BrainReply, MessageRole
from ovos_agentic_loop.sentences import stream_sentences

if TYPE_CHECKING:  # the runtime imports are deferred: see the module docstring
    import openai
    from openai import OpenAI, RequestOptions, Stream
    from openai.types.chat import ChatCompletion, ChatCompletionChunk
    from tenacity import RetryCallState

__all__ = ["OpenAIBrain"]

LOG = logging.getLogger(__name__)
T = TypeVar("T")

_START_HINT = (
    "start the local one with `ovos-agentic-loop server start`, or set `api_url` to a running server"
)
_PATH = "/chat/completions"


def _retryable(exc: BaseException) -> bool:
    import openai

    if isinstance(exc, openai.APIConnectionError):  # includes APITimeoutError
        return True
    if _unreadable_reply(exc):
        return False  # the loop asks the model again with a correction; a blind retry costs a full turn
    return isinstance(exc, openai.APIStatusError) and (exc.status_code == 429 or exc.status_code >= 500)


def _unreadable_reply(exc: BaseException) -> bool:
    """llama-server answers 500 when the MODEL wrote a tool call whose arguments are not JSON."""
    import openai

    return (
        isinstance(exc, openai.APIStatusError)
        and exc.status_code == 500
        and "failed to parse tool call" in str(exc.message).lower()
    )


def _request_options() -> RequestOptions:
    # What ``chat.completions.create`` sends besides the body: the API key as a bearer token.
    return {"security": {"bearer_auth": True}}


class OpenAIBrain(ChatEngine):
    """Chat completions with native tool calls, retries, and real token streaming.

    Config keys and defaults: see :class:`~ovos_agentic_loop.brain.config.BrainConfig`.
    ``http_client`` (an ``httpx2.Client``) is for tests and custom transports.
    ``warm_up=False`` skips the background import + client build (then the first request does it).
    """

    supports_tools = True

    def __init__(
        self, config: dict[str, Any] | None = None, *, http_client: Any = None, warm_up: bool = True
    ) -> None:
        super().__init__(config=config or {})
        self.settings = BrainConfig.parse(self.config)
        self._http_client = http_client
        self._client: OpenAI | None = None
        self._client_lock = threading.Lock()
        self._warm_up: threading.Thread | None = None
        if warm_up:
            self._warm_up = threading.Thread(target=self._warm, name="openai-brain-warm-up", daemon=True)
            self._warm_up.start()

    # -- the lazily built client ------------------------------------------------
    @property
    def client(self) -> OpenAI:
        """The ``openai.OpenAI`` client, built once (waits for a warm-up in progress)."""
        client = self._client
        if client is None:
            with self._client_lock:
                if self._client is None:
                    self._client = self._new_client()
                client = self._client
        return client

    def _new_client(self) -> OpenAI:
        # Under the lock, so one thread does every deferred import. The top-level package
        # goes first: importing an ``openai`` submodule while another thread is inside
        # ``import openai`` can trip Python's import deadlock detection (openai's modules
        # import each other) and fail with a partially initialised module.
        import openai
        import tenacity  # noqa: F401  (every request needs it)
        from openai.types.chat import ChatCompletion, ChatCompletionChunk  # noqa: F401

        s = self.settings
        timeout = openai.Timeout(s.timeout, connect=min(s.connect_timeout, s.timeout))
        # max_retries=0: tenacity below owns the retry policy.
        return openai.OpenAI(
            base_url=s.api_url, api_key=s.key, timeout=timeout, max_retries=0, http_client=self._http_client
        )

    def _warm(self) -> None:
        """Background: pay the imports and the client build before the first question."""
        try:
            _ = self.client
        except Exception:  # the first request tries again and reports the error there
            LOG.debug("OpenAIBrain warm-up failed", exc_info=True)

    # -- requests -------------------------------------------------------------
    def _request(
        self, messages: list[AgentMessage], tools: Any, stop: list[str] | None, stream: bool
    ) -> dict[str, Any]:
        """The JSON body, sent as is (no SDK transform): everything in it must be JSON-ready."""
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
            body.update(s.extra_body)  # extra wins, as with the SDK's own ``extra_body``
        return body

    def _complete(self, client: OpenAI, body: dict[str, Any]) -> ChatCompletion:
        from openai.types.chat import ChatCompletion

        return client.post(_PATH, body=body, cast_to=ChatCompletion, options=_request_options())

    def _open_stream(self, client: OpenAI, body: dict[str, Any]) -> Stream[ChatCompletionChunk]:
        from openai import Stream
        from openai.types.chat import ChatCompletion, ChatCompletionChunk

        return client.post(
            _PATH,
            body=body,
            cast_to=ChatCompletion,
            options=_request_options(),
            stream=True,
            stream_cls=Stream[ChatCompletionChunk],
        )

    def _call(self, fn: Callable[[OpenAI], T]) -> T:
        """Run one request with the retry policy, translating SDK errors."""
        client = self.client  # first: joins the warm-up; openai and tenacity are loaded after it
        import openai
        from tenacity import (
            Retrying,
            retry_if_exception,
            stop_after_attempt,
            stop_after_delay,
            wait_exponential,
        )

        s = self.settings
        retrying = Retrying(
            retry=retry_if_exception(_retryable),
            stop=stop_after_attempt(s.max_retries + 1) | stop_after_delay(s.timeout),
            wait=wait_exponential(multiplier=s.retry_backoff, max=8),
            before_sleep=self._log_retry,
            reraise=True,
        )
        try:
            return retrying(fn, client)
        except openai.OpenAIError as exc:
            raise self._translate(exc) from exc

    def _log_retry(self, state: RetryCallState) -> None:
        error = state.outcome.exception() if state.outcome else None
        url, attempt = self.settings.api_url, state.attempt_number
        LOG.warning("brain request to %s failed (%s); retry %d", url, error, attempt)

    def _translate(self, exc: openai.OpenAIError) -> BrainError:
        import openai

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
            if _unreadable_reply(exc):
                return BrainReplyInvalid(detail, url=url, status=exc.status_code)
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
        completion = self._call(lambda client: self._complete(client, body))
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
        stream = self._call(lambda client: self._open_stream(client, body))
        import openai  # loaded by now: only for the error class below

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
