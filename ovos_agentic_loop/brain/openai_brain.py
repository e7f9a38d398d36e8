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
The reply, and each streamed chunk, is read as the plain JSON the server sent
(``cast_to=object``): building the SDK's pydantic models of it cost more per step than
the rest of the brain, and only a few fields are read.

Honest replies: an HTML page, malformed JSON, or a stream that ends without ``[DONE]``
or a ``finish_reason`` (the connection was cut: half an answer, or a tool call with
half its arguments) raise :class:`BrainBadResponse` naming the URL and what came back;
nothing incomplete is passed on as if it were whole.
"""

from __future__ import annotations

import functools
import json
import logging
import threading
import time
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any, TypeVar

from ovos_plugin_manager.templates.agent_tools import ToolBox
from ovos_plugin_manager.templates.agents import ChatEngine

from ovos_agentic_loop._runtime import cancellation as cancellation
from ovos_agentic_loop._runtime.session_key import session_key
from ovos_agentic_loop._text.sentences import stream_sentences
from ovos_agentic_loop.brain.cancellable_http import cancellable_http_client
from ovos_agentic_loop.brain.config import BrainConfig
from ovos_agentic_loop.brain.retry_policy import RetryClock, retry_after_seconds
from ovos_agentic_loop.brain.wire import (
    ToolCallAccumulator,
    describe_body,
    drop_none,
    session_headers,
    to_wire,
    tool_call_from_wire,
)
from ovos_agentic_loop.errors import (
    BrainBadResponse,
    BrainDeadlineReached,
    BrainError,
    BrainReplyInvalid,
    BrainRequestError,
    BrainUnavailable,
)
from ovos_agentic_loop.messages import AgentMessage, BrainReply, CallNamed, MessageRole

if TYPE_CHECKING:  # the runtime imports are deferred: see the module docstring
    import openai
    from openai import OpenAI, RequestOptions, Stream
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


def _cancelled() -> bool:
    """True in a brain call the loop has given up on (see :mod:`ovos_agentic_loop._runtime.cancellation`)."""
    scope = cancellation.current()
    return scope is not None and scope.cancelled


def _unreadable_reply(exc: BaseException) -> bool:
    """llama-server answers 500 when the MODEL wrote a tool call whose arguments are not JSON."""
    import openai

    return (
        isinstance(exc, openai.APIStatusError)
        and exc.status_code == 500
        and "failed to parse tool call" in str(exc.message).lower()
    )


def _request_options(headers: dict[str, str]) -> RequestOptions:
    # What ``chat.completions.create`` sends besides the body: the API key as a bearer token;
    # and the session key's header, for a router's session affinity.
    return {"security": {"bearer_auth": True}, "headers": headers}


def _asked_delay(exc: BaseException | None) -> float | None:
    """The ``Retry-After`` of a 429/503 reply, in seconds; None for anything else."""
    import openai

    if isinstance(exc, openai.APIStatusError) and exc.status_code in (429, 503):
        return retry_after_seconds(exc.response.headers)
    return None


@functools.cache
def _watched_stream_class() -> type[Stream[object]]:
    """The SDK's ``Stream`` that also records whether the server sent ``data: [DONE]``.

    The SDK stops at ``[DONE]`` without saying whether it came; a connection that simply
    closed looks the same to its iterator. Built on first use (``openai`` is imported lazily).
    """
    from openai import Stream

    if not callable(getattr(Stream, "_iter_events", None)):  # an SDK without the hook: finish_reason only
        return Stream[object]

    class WatchedStream(Stream[object]):  # chunks as plain JSON (no model built per delta)
        saw_done = False

        def _iter_events(self) -> Iterator[Any]:
            for event in super()._iter_events():
                if event.data.startswith("[DONE]"):
                    self.saw_done = True
                yield event

    return WatchedStream


class _StreamBrokeOff(BrainBadResponse):
    """The stream ended before the reply did (no ``[DONE]`` / ``finish_reason``, or a broken
    connection); raised as a :class:`BrainBadResponse`, retried while nothing went out."""


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

        s = self.settings
        timeout = openai.Timeout(s.timeout, connect=min(s.connect_timeout, s.timeout))
        # Connections a cancelled call is using get closed, so the server stops computing it.
        http_client = self._http_client or cancellable_http_client(timeout)
        # max_retries=0: tenacity below owns the retry policy.
        return openai.OpenAI(
            base_url=s.api_url, api_key=s.key, timeout=timeout, max_retries=0, http_client=http_client
        )

    def prepare(self) -> None:
        """Import ``openai`` and ``tenacity`` and build the client now (waiting for a warm-up in progress).

        The agent loop calls this once before it first uses its brain (``engine.brain``, the first
        turn); the warm-up thread started at construction has usually done it by then, and an engine
        is ready when ``engine.brain`` returns, so its first question pays nothing for it.
        """
        _ = self.client

    def _warm(self) -> None:
        """Background: pay the imports and the client build before the first question."""
        try:
            self.prepare()
        except Exception:  # the first request tries again and reports the error there
            LOG.debug("OpenAIBrain warm-up failed", exc_info=True)

    # -- requests -------------------------------------------------------------
    def _request(
        self,
        messages: list[AgentMessage],
        tools: Any,
        stop: list[str] | None,
        stream: bool,
        session_id: str,
        key: str | None = None,
        response_format: dict[str, Any] | None = None,
    ) -> tuple[dict[str, Any], dict[str, str]]:
        """The JSON body, sent as is (no SDK transform): everything in it must be JSON-ready; and
        the headers. Both name the session (``user``, ``session_header``) so that a router keeps
        the conversation on the replica whose prompt cache holds it."""
        s = self.settings
        key = key or session_key(session_id, messages)
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
            if s.parallel_tool_calls is not None:
                body["parallel_tool_calls"] = s.parallel_tool_calls
        stops = list(dict.fromkeys([*s.stop, *(stop or [])]))
        if stops:
            body["stop"] = stops
        if stream:
            body["stream"] = True
            body["stream_options"] = {"include_usage": True}
        if s.send_user:
            body["user"] = key
        if response_format:  # the loop's decision step: the reply must match this JSON schema
            body["response_format"] = response_format
        if s.extra_body:
            body.update(s.extra_body)  # extra wins, as with the SDK's own ``extra_body``
        return body, session_headers(key, s.session_header)

    def _complete(self, client: OpenAI, body: dict[str, Any], headers: dict[str, str]) -> Any:
        """The reply's JSON as sent; a str when the server answered with something else (a page)."""
        reply: Any = client.post(_PATH, body=body, cast_to=object, options=_request_options(headers))
        if isinstance(reply, str):  # the SDK parses JSON only under a JSON content type
            try:
                return json.loads(reply)
            except ValueError:
                return reply
        return reply

    def _open_stream(self, client: OpenAI, body: dict[str, Any], headers: dict[str, str]) -> Stream[object]:
        return client.post(
            _PATH,
            body=body,
            cast_to=object,
            options=_request_options(headers),
            stream=True,
            stream_cls=_watched_stream_class(),
        )

    def _clock(self, deadline: float | None) -> RetryClock:
        """The limits of one request from now: its own ``timeout``, or the turn's ``deadline``."""
        s = self.settings
        return RetryClock.start(s.timeout, s.retry_backoff, deadline)

    def _call(
        self, fn: Callable[[OpenAI], T], deadline: float | None = None, *, clock: RetryClock | None = None
    ) -> T:
        """Run one request with the retry policy, translating SDK errors.

        ``fn(client)`` sends the request. Retries wait as the server asks (``Retry-After``)
        or back off exponentially, and never past ``timeout`` from now nor the turn's
        ``deadline``: a wait that would is skipped and the error raised. An attempt with
        less time left than ``timeout`` gets a client bounded to what is left. ``clock``: the
        request's limits when the caller keeps them for what follows (a stream's reading).
        """
        client = self.client  # first: joins the warm-up; openai and tenacity are loaded after it
        import openai
        from tenacity import Retrying, retry_if_exception

        s = self.settings
        clock = clock or self._clock(deadline)

        def planned(state: RetryCallState) -> float:
            error = state.outcome.exception() if state.outcome else None
            return clock.delay(state.attempt_number, _asked_delay(error))

        def give_up(state: RetryCallState) -> bool:
            return state.attempt_number > s.max_retries or clock.too_late(planned(state))

        retrying = Retrying(
            # A cancelled call failed because its connection was closed on purpose: never retried.
            retry=retry_if_exception(lambda exc: not _cancelled() and _retryable(exc)),
            stop=give_up,
            wait=planned,
            before_sleep=self._log_retry,
            reraise=True,
        )
        try:
            return retrying(lambda: fn(self._bounded(client, clock.remaining())))
        except openai.OpenAIError as exc:
            raise self._translate(exc, clock) from exc
        except json.JSONDecodeError as exc:  # the SDK's ``response.json()`` on a body that is not JSON
            raise self._malformed_json(exc) from exc

    def _bounded(self, client: OpenAI, left: float) -> OpenAI:
        """``client``, or a copy whose timeouts end when ``left`` seconds are up."""
        s = self.settings
        if left >= s.timeout - 1.0:  # the client's own timeout fits: no copy (it costs ~0.2 ms)
            return client
        import openai

        left = max(0.01, left)
        return client.with_options(timeout=openai.Timeout(left, connect=min(s.connect_timeout, left)))

    def _log_retry(self, state: RetryCallState) -> None:
        error = state.outcome.exception() if state.outcome else None
        url, attempt = self.settings.api_url, state.attempt_number
        wait = state.next_action.sleep if state.next_action else 0.0
        LOG.warning("brain request to %s failed (%s); retry %d in %.1f s", url, error, attempt, wait)

    def _timed_out(self, clock: RetryClock) -> BrainError:
        """A timeout of the request that ``clock`` bounds, named by the limit that fired.

        Decided by values fixed when the request started (which limit bounds it) and the clock,
        never by which thread noticed first: the turn's deadline is :class:`BrainDeadlineReached`
        (the loop reports it as its own time budget running out), the brain's ``timeout`` and the
        connection's ``connect_timeout`` are :class:`BrainUnavailable`.
        """
        s, url, waited = self.settings, self.settings.api_url, clock.waited()
        if clock.run_out() and clock.turn_bound:
            return BrainDeadlineReached(
                f"The caller's deadline came {waited:.1f} s into the request to {url}, before the model "
                "server answered (the agent loop's `time_budget`).",
                waited=waited,
                url=url,
            )
        if clock.run_out():
            limit = f"did not answer within {s.timeout:g} s (config `timeout`; waited {waited:.1f} s)"
        else:
            limit = (
                f"did not accept the connection within {min(s.connect_timeout, s.timeout):g} s "
                f"(config `connect_timeout`; waited {waited:.1f} s)"
            )
        return BrainUnavailable(
            f"The model server at {url} {limit}. Is it overloaded, or the request too long? "
            f"If it is not running, {_START_HINT}.",
            url=url,
        )

    def _malformed_json(self, exc: json.JSONDecodeError) -> BrainBadResponse:
        url = self.settings.api_url
        return BrainBadResponse(
            f"The server at {url} sent malformed JSON ({exc.msg} at character {exc.pos}): "
            f"{describe_body(exc.doc)}. Is `api_url` the /v1 base of an OpenAI-compatible server?",
            url=url,
        )

    def _translate(self, exc: openai.OpenAIError, clock: RetryClock) -> BrainError:
        import openai

        url = self.settings.api_url
        if isinstance(exc, openai.APITimeoutError):
            return self._timed_out(clock)
        if isinstance(exc, openai.APIConnectionError):
            cause = exc.__cause__ or exc
            message = f"Cannot reach the model server at {url} ({cause}); {_START_HINT}."
            return BrainUnavailable(message, url=url)
        if isinstance(exc, openai.APIStatusError):
            # A body that is not JSON (an HTML error page) is only in ``body``; the message omits it.
            said = exc.body if isinstance(exc.body, str) and exc.body.strip() else str(exc.message)
            detail = f"HTTP {exc.status_code} from {url}: {describe_body(said, quote=False)}"
            if _unreadable_reply(exc):
                return BrainReplyInvalid(detail, url=url, status=exc.status_code)
            if _retryable(exc):
                asked = _asked_delay(exc)
                if asked is not None and clock.too_late(asked):
                    detail += (
                        f"; it asked to retry after {asked:g} s (Retry-After), past the time left for this "
                        f"request ({max(0.0, clock.remaining()):.1f} s: `timeout` or the turn's budget)"
                    )
                else:
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
        deadline: float | None = None,
        session_key: str | None = None,
        response_format: dict[str, Any] | None = None,
    ) -> BrainReply:
        """One completion; the reply carries ``tool_calls``, usage, llama-server timings, finish_reason.

        ``deadline`` (``time.monotonic()`` seconds; the agent loop passes its turn's) bounds the
        request and its retries on top of ``timeout``. ``session_key`` (the loop passes its turn's)
        names the conversation to the server; without it the brain works one out the same way.
        ``response_format`` (OpenAI's ``{"type": "json_schema", ...}``; llama-server turns it into a
        grammar) constrains what the model may write: the loop's decision step sends it.
        """
        body, headers = self._request(
            messages,
            tools,
            stop,
            stream=False,
            session_id=session_id,
            key=session_key,
            response_format=response_format,
        )
        completion = self._call(lambda client: self._complete(client, body, headers), deadline)
        url = self.settings.api_url
        if isinstance(completion, str):  # the text of a reply that is not JSON
            raise BrainBadResponse(
                f"The server at {url} answered with {describe_body(completion)} instead of a JSON chat "
                "completion. Is `api_url` the /v1 base of an OpenAI-compatible server?",
                url=url,
            )
        try:
            choices = completion.get("choices")
            if not choices:
                raise BrainBadResponse(f"The server at {url} returned no choices", url=url)
            choice = choices[0]
            message = choice.get("message") or {}
            usage = completion.get("usage")
            return BrainReply(
                role=MessageRole.ASSISTANT,
                content=message.get("content") or "",
                tool_calls=[tool_call_from_wire(c) for c in message.get("tool_calls") or []] or None,
                usage=drop_none(usage) if usage else None,
                timings=completion.get("timings"),
                finish_reason=choice.get("finish_reason"),
            )
        except (AttributeError, TypeError, KeyError, IndexError) as exc:  # JSON of another shape
            raise self._not_a_completion(completion, exc) from exc

    def _not_a_completion(self, reply: Any, exc: Exception) -> BrainBadResponse:
        url = self.settings.api_url
        try:
            text = json.dumps(reply, ensure_ascii=False)
        except (TypeError, ValueError):  # only for the message: the shape is already known to be wrong
            text = repr(reply)
        return BrainBadResponse(
            f"The server at {url} sent JSON that is not an OpenAI chat completion "
            f"({type(exc).__name__}: {exc}): {describe_body(text)}",
            url=url,
        )

    def stream_message(
        self,
        messages: list[AgentMessage],
        session_id: str = "default",
        lang: str | None = None,
        units: str | None = None,
        tools: Any = None,
        stop: list[str] | None = None,
        deadline: float | None = None,
        session_key: str | None = None,
        response_format: dict[str, Any] | None = None,
    ) -> Iterator[str | CallNamed | AgentMessage]:
        """Text deltas as they arrive (and a ``CallNamed`` as each native tool call gets its
        name), then one ``BrainReply`` with the accumulated tool calls.

        A stream that ends without ``[DONE]`` or a ``finish_reason`` raises
        :class:`BrainBadResponse` instead of the final message: its tool calls never run.
        Opening the stream is retried as any request is; a stream that broke off before
        any text went out (typically inside a tool call) is asked for again, up to
        ``max_retries`` times and while the deadline allows. Once text went out, a retry
        would repeat it, so the error is raised.
        """
        body, headers = self._request(
            messages,
            tools,
            stop,
            stream=True,
            session_id=session_id,
            key=session_key,
            response_format=response_format,
        )
        named = 0  # calls named so far: an attempt after a broken one names them once only
        for retry in range(self.settings.max_retries + 1):
            said, naming = False, 0
            try:
                clock = self._clock(deadline)
                opened = self._call(lambda c: self._open_stream(c, body, headers), clock=clock)
                for item in self._read_stream(opened, clock):
                    said = said or isinstance(item, str)
                    if isinstance(item, CallNamed):
                        naming += 1
                        if naming <= named:
                            continue
                        named = naming
                    yield item
                return
            except _StreamBrokeOff as exc:
                late = deadline is not None and time.monotonic() >= deadline
                if said or late or retry == self.settings.max_retries:
                    raise
                LOG.warning("%s; asking again (retry %d)", exc, retry + 1)

    def _read_stream(
        self, stream: Stream[object], clock: RetryClock
    ) -> Iterator[str | CallNamed | AgentMessage]:
        import openai  # loaded by now: only for the error classes below

        text: list[str] = []
        calls = ToolCallAccumulator()
        usage: dict[str, Any] | None = None
        timings: dict[str, Any] | None = None
        finish_reason: str | None = None
        chunk: Any = None
        try:
            with stream:
                self._require_event_stream(stream.response)
                for chunk in stream:  # each chunk is the JSON object the server sent
                    timings = chunk.get("timings") or timings
                    if chunk.get("usage"):
                        usage = drop_none(chunk["usage"])
                    for choice in chunk.get("choices") or []:
                        finish_reason = choice.get("finish_reason") or finish_reason
                        delta = choice.get("delta") or {}
                        content = delta.get("content")
                        if content:
                            text.append(content)
                            yield content
                        calls.add(delta.get("tool_calls"))
                        for name in calls.new_names():
                            yield CallNamed(name)
        except openai.APITimeoutError as exc:
            raise self._translate(exc, clock) from exc
        except openai.APIConnectionError as exc:  # the connection broke mid-stream: the server was reached
            cause = exc.__cause__ or exc
            raise self._cut_stream(text, calls, f"{type(cause).__name__}: {cause}") from exc
        except openai.OpenAIError as exc:
            raise self._translate(exc, clock) from exc
        except json.JSONDecodeError as exc:
            raise self._malformed_json(exc) from exc
        except (AttributeError, TypeError, KeyError, IndexError) as exc:
            raise self._not_a_completion(chunk, exc) from exc
        if finish_reason is None and not getattr(stream, "saw_done", False):
            raise self._cut_stream(text, calls, "the connection closed without [DONE] or a finish_reason")
        yield BrainReply(
            role=MessageRole.ASSISTANT,
            content="".join(text),
            tool_calls=calls.calls() or None,
            usage=usage,
            timings=timings,
            finish_reason=finish_reason,
        )

    def _require_event_stream(self, response: Any) -> None:
        """A reply to a streamed request that is not server-sent events (an HTML error page) is
        reported with what it says, rather than read as an empty stream."""
        kind = response.headers.get("content-type", "").split(";")[0].strip().lower()
        if not kind or kind == "text/event-stream":
            return
        head = b""
        for part in response.iter_bytes():
            head += part
            if len(head) >= 4096:  # enough to describe it; the rest is not worth waiting for
                break
        url = self.settings.api_url
        raise BrainBadResponse(
            f"The server at {url} answered a streamed request with {kind}, not server-sent events: "
            f"{describe_body(head.decode('utf-8', 'replace'))}",
            url=url,
        )

    def _cut_stream(self, text: list[str], calls: ToolCallAccumulator, why: str) -> BrainBadResponse:
        url = self.settings.api_url
        got = f"{sum(len(t) for t in text)} characters of text"
        if calls.pending:
            got += f" and {calls.pending} unfinished tool call(s), which were not run"
        return _StreamBrokeOff(
            f"The reply from {url} broke off ({why}) after {got}; the incomplete reply was not used.",
            url=url,
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

    # -- warm-up ----------------------------------------------------------------
    def prefill(
        self,
        messages: list[AgentMessage],
        session_id: str = "default",
        lang: str | None = None,
        units: str | None = None,
        tools: Any = None,
        stop: list[str] | None = None,
    ) -> None:
        """Put ``messages`` and ``tools`` into the server's prompt cache without writing an answer.

        One request with ``max_tokens`` 1: the server reads the whole prompt (the slow part on a
        CPU) and stops after one token. On our own local llama-server the read prompt is also
        kept on disk and restored on the next warm-up of the same prompt, model and template
        (:mod:`ovos_agentic_loop.local.prompt_cache`), so a restarted server skips the reading.
        """
        from ovos_agentic_loop.local.prompt_cache import slot_cache_for

        body, headers = self._request(messages, tools, stop, stream=False, session_id=session_id)
        body["max_tokens"] = 1
        cache = slot_cache_for(self.settings.api_url)
        key = None
        if cache is not None:
            template = cache.chat_template()
            key = cache.key_for(body, template) if template is not None else None
        restored = cache is not None and key is not None and cache.restore(key)
        if cache is not None and key is not None:
            body["id_slot"] = cache.slot  # read into (or on top of) the slot that is saved / was restored
        try:
            self._call(lambda client: self._complete(client, body, headers))
        except BrainReplyInvalid:
            # The one token began a tool call the server could not parse: the prompt was read all the same.
            LOG.debug("prefill: one-token reply unreadable, prompt cached anyway")
        if cache is not None and key is not None and not restored:
            cache.save(key)
