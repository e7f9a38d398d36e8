"""OpenAIBrain against a fake OpenAI-compatible server on 127.0.0.1."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from fake_openai_server import FakeOpenAIServer, Raw, Stream, chunk, completion
from ovos_plugin_manager.agents import load_chat_plugin
from pydantic import BaseModel

from ovos_agentic_loop.brain import (
    RAW_ARGUMENTS_KEY,
    BrainBadResponse,
    BrainConfigError,
    BrainRequestError,
    BrainUnavailable,
    OpenAIBrain,
)
from ovos_agentic_loop.messages import AgentMessage, BrainReply, CallNamed, MessageRole, ToolCall

ADD_TOOL = {
    "type": "function",
    "function": {
        "name": "add",
        "description": "Add two numbers",
        "parameters": {"type": "object", "properties": {"a": {"type": "number"}, "b": {"type": "number"}}},
    },
}


@pytest.fixture
def server() -> Iterator[FakeOpenAIServer]:
    with FakeOpenAIServer() as fake:
        yield fake


def brain_for(server: FakeOpenAIServer, warm_up: bool = True, **config: Any) -> OpenAIBrain:
    return OpenAIBrain({"api_url": server.url, "retry_backoff": 0.01, **config}, warm_up=warm_up)


def user(text: str) -> AgentMessage:
    return AgentMessage(role=MessageRole.USER, content=text)


def wire_tool_call(name: str, arguments: str, call_id: str = "call_1") -> dict[str, Any]:
    return {"id": call_id, "type": "function", "function": {"name": name, "arguments": arguments}}


# -- config -----------------------------------------------------------------
def test_defaults_point_at_the_local_server() -> None:
    brain = OpenAIBrain()
    assert brain.settings.api_url == "http://127.0.0.1:8091/v1"
    assert brain.settings.max_tokens == 512
    assert brain.settings.key == "sk-no-key"
    assert OpenAIBrain.supports_tools is True


@pytest.mark.parametrize(
    ("config", "key"),
    [
        ({"max_tokens": 0}, "max_tokens"),
        ({"api_url": "localhost:8091"}, "api_url"),
        ({"timeout": "soon"}, "timeout"),
    ],
)
def test_bad_config_is_a_clear_error(config: dict[str, Any], key: str) -> None:
    with pytest.raises(BrainConfigError, match=key):
        OpenAIBrain(config)


def test_entry_point_loads_the_brain() -> None:
    assert load_chat_plugin("ovos-openai-brain") is OpenAIBrain


# -- cold start and per-request cost ---------------------------------------------
def test_importing_the_brain_loads_no_sdk() -> None:
    # OPM imports every chat plugin to list them: ``import openai`` alone costs ~0.5 s.
    code = (
        "import sys, ovos_agentic_loop.brain\n"
        "heavy = sorted({m.split('.')[0] for m in sys.modules} & {'openai', 'tenacity', 'httpx2'})\n"
        "assert not heavy, heavy\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=60)


def test_construction_warms_up_one_client_in_the_background(server: FakeOpenAIServer) -> None:
    brain = brain_for(server)
    assert brain._warm_up is not None and brain._warm_up.daemon
    brain._warm_up.join(30)
    warmed = brain._client
    assert warmed is not None
    server.replies.append(completion("ok"))
    assert brain.continue_chat([user("hi")]).content == "ok"
    assert brain.client is warmed


def test_concurrent_first_requests_build_one_client(server: FakeOpenAIServer) -> None:
    brain = brain_for(server, warm_up=False)
    assert brain._warm_up is None and brain._client is None
    seen: list[Any] = []
    threads = [threading.Thread(target=lambda: seen.append(brain.client)) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(30)
    assert len(seen) == 8 and all(client is seen[0] for client in seen)


def test_first_request_without_warm_up_builds_the_client(server: FakeOpenAIServer) -> None:
    server.replies.append(completion("ok"))
    assert brain_for(server, warm_up=False).continue_chat([user("hi")]).content == "ok"


def test_requests_skip_the_sdk_param_transform_and_keep_the_key(
    server: FakeOpenAIServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    # ``chat.completions.create`` deep-walks the whole history on every call; the body
    # is JSON-ready already, so requests go through ``client.post`` as is.
    import httpx2

    headers: list[Any] = []
    http_client = httpx2.Client(event_hooks={"request": [lambda request: headers.append(request.headers)]})
    brain = OpenAIBrain({"api_url": server.url, "key": "sk-secret"}, http_client=http_client)

    def no_create(**_: Any) -> Any:
        raise AssertionError("chat.completions.create transforms every message on every call")

    monkeypatch.setattr(brain.client.chat.completions, "create", no_create)
    server.replies += [completion("one"), Stream([chunk("two"), chunk(finish="stop")])]
    assert brain.continue_chat([user("hi")]).content == "one"
    assert list(brain.stream_tokens([user("hi")])) == ["two"]
    assert [h["authorization"] for h in headers] == ["Bearer sk-secret"] * 2
    assert [h["content-type"] for h in headers] == ["application/json"] * 2


def test_extra_body_wins_over_defaults(server: FakeOpenAIServer) -> None:
    server.replies.append(completion("ok"))
    brain_for(server, extra_body={"max_tokens": 7, "cache_prompt": True}).continue_chat([user("hi")])
    sent = server.requests[0]
    assert (sent["max_tokens"], sent["cache_prompt"]) == (7, True)
    assert "extra_body" not in sent


def test_parallel_tool_calls_are_asked_for_with_tools_only(server: FakeOpenAIServer) -> None:
    """llama-server keeps one call per reply unless asked: the demo's two-tool question paid a call."""
    server.replies.extend([completion("ok"), completion("ok"), completion("ok")])
    brain_for(server).continue_chat([user("hi")], tools=[ADD_TOOL])
    brain_for(server).continue_chat([user("hi")])
    brain_for(server, parallel_tool_calls=None).continue_chat([user("hi")], tools=[ADD_TOOL])
    assert server.requests[0]["parallel_tool_calls"] is True
    assert "parallel_tool_calls" not in server.requests[1]  # no tools: nothing to say about calls
    assert "parallel_tool_calls" not in server.requests[2]  # left to the server


# -- mapping both ways ---------------------------------------------------------
def test_history_goes_out_in_openai_format(server: FakeOpenAIServer) -> None:
    server.replies.append(completion("It is 3."))
    history = [
        AgentMessage(role=MessageRole.SYSTEM, content="Be brief."),
        user("1+2?"),
        AgentMessage(
            role=MessageRole.ASSISTANT,
            content="",
            tool_calls=[ToolCall(id="c1", name="add", arguments={"a": 1, "b": 2})],
        ),
        AgentMessage(role=MessageRole.TOOL, content='{"result": 3}', tool_call_id="c1", name="add"),
    ]
    reply = brain_for(server, stop=["Observation:"]).continue_chat(
        history, tools=[ADD_TOOL], stop=["\nUser:"]
    )
    assert reply.content == "It is 3."
    sent = server.requests[0]
    assert sent["messages"] == [
        {"role": "system", "content": "Be brief."},
        {"role": "user", "content": "1+2?"},
        {
            "role": "assistant",
            "content": "",
            "tool_calls": [
                {"id": "c1", "type": "function", "function": {"name": "add", "arguments": '{"a": 1, "b": 2}'}}
            ],
        },
        {"role": "tool", "content": '{"result": 3}', "tool_call_id": "c1", "name": "add"},
    ]
    assert sent["tools"] == [ADD_TOOL]
    assert sent["max_tokens"] == 512
    assert sent["stop"] == ["Observation:", "\nUser:"]


def test_toolbox_objects_are_normalized(server: FakeOpenAIServer) -> None:
    from ovos_plugin_manager.templates.agent_tools import AgentTool, ToolBox

    class Args(BaseModel):
        text: str

    class Out(BaseModel):
        text: str

    class Echo(ToolBox):
        def __init__(self) -> None:
            super().__init__("echo-box")

        def discover_tools(self) -> list[AgentTool]:
            return [AgentTool("echo", "Echo text", Args, Out, lambda a: {"text": a.text})]

    server.replies.append(completion("ok"))
    brain_for(server).continue_chat([user("hi")], tools=Echo())
    assert [t["function"]["name"] for t in server.requests[0]["tools"]] == ["echo"]


def test_reply_carries_tool_calls_usage_timings(server: FakeOpenAIServer) -> None:
    timings = {"prompt_n": 10, "predicted_per_second": 29.5}
    server.replies.append(completion(tool_calls=[wire_tool_call("add", '{"a": 1, "b": 2}')], timings=timings))
    reply = brain_for(server).continue_chat([user("1+2?")], tools=[ADD_TOOL])
    assert isinstance(reply, BrainReply)
    assert reply.role == MessageRole.ASSISTANT
    assert reply.tool_calls == [ToolCall(id="call_1", name="add", arguments={"a": 1, "b": 2})]
    assert reply.finish_reason == "tool_calls"
    assert reply.usage is not None and reply.usage["total_tokens"] == 15
    assert reply.timings == timings


@pytest.mark.parametrize("raw", ['{"a": 1,', "[1, 2]", "not json"])
def test_malformed_arguments_are_kept_raw(server: FakeOpenAIServer, raw: str) -> None:
    server.replies.append(completion(tool_calls=[wire_tool_call("add", raw)]))
    reply = brain_for(server).continue_chat([user("1+2?")], tools=[ADD_TOOL])
    assert reply.tool_calls is not None
    assert reply.tool_calls[0].arguments == {RAW_ARGUMENTS_KEY: raw}
    # Sent back in a later turn, the model sees exactly what it wrote.
    server.replies.append(completion("ok"))
    brain_for(server).continue_chat([user("1+2?"), reply])
    assert server.requests[1]["messages"][1]["tool_calls"][0]["function"]["arguments"] == raw


def test_empty_arguments_are_an_empty_dict(server: FakeOpenAIServer) -> None:
    server.replies.append(completion(tool_calls=[wire_tool_call("now", "")]))
    reply = brain_for(server).continue_chat([user("time?")])
    assert reply.tool_calls is not None and reply.tool_calls[0].arguments == {}


def test_developer_role_goes_out_as_system(server: FakeOpenAIServer) -> None:
    server.replies.append(completion("ok"))
    brain_for(server).continue_chat([AgentMessage(role=MessageRole.DEVELOPER, content="rules"), user("hi")])
    assert server.requests[0]["messages"][0] == {"role": "system", "content": "rules"}


def test_extra_body_and_temperature(server: FakeOpenAIServer) -> None:
    server.replies.append(completion("ok"))
    brain_for(server, temperature=0.7, extra_body={"top_k": 20}, model="qwen").continue_chat([user("hi")])
    sent = server.requests[0]
    assert (sent["temperature"], sent["top_k"], sent["model"]) == (0.7, 20, "qwen")


# -- retries and errors ----------------------------------------------------------
def test_5xx_and_429_are_retried(server: FakeOpenAIServer) -> None:
    server.replies += [
        (503, {"error": {"message": "loading"}}),
        (429, {"error": {"message": "busy"}}),
        completion("ok"),
    ]
    assert brain_for(server, max_retries=2).continue_chat([user("hi")]).content == "ok"
    assert len(server.requests) == 3


def test_5xx_gives_up_after_max_retries(server: FakeOpenAIServer) -> None:
    server.replies += [(500, {"error": {"message": "boom"}})] * 3
    with pytest.raises(BrainUnavailable, match="HTTP 500"):
        brain_for(server, max_retries=1).continue_chat([user("hi")])
    assert len(server.requests) == 2


def test_400_is_not_retried(server: FakeOpenAIServer) -> None:
    server.replies += [
        (400, {"error": {"message": "tools param requires --jinja flag"}}),
        completion("never"),
    ]
    with pytest.raises(BrainRequestError, match="--jinja") as info:
        brain_for(server, max_retries=3).continue_chat([user("hi")], tools=[ADD_TOOL])
    assert info.value.status == 400
    assert len(server.requests) == 1


def test_a_tool_call_the_server_cannot_parse_is_reported_without_retries(server: FakeOpenAIServer) -> None:
    from ovos_agentic_loop.errors import BrainReplyInvalid

    message = "Failed to parse tool call arguments as JSON: [json.exception.parse_error.101] parse error"
    server.replies += [(500, {"error": {"message": message}}), completion("never")]
    with pytest.raises(BrainReplyInvalid, match="Failed to parse tool call"):
        brain_for(server, max_retries=3).continue_chat([user("hi")], tools=[ADD_TOOL])
    assert len(server.requests) == 1


def _closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_unreachable_server_fails_fast_and_says_what_to_do() -> None:
    url = f"http://127.0.0.1:{_closed_port()}/v1"
    brain = OpenAIBrain({"api_url": url, "timeout": 5, "max_retries": 2, "retry_backoff": 0.01})
    with pytest.raises(BrainUnavailable) as info:
        brain.continue_chat([user("hi")])
    assert url in str(info.value)
    assert "ovos-agentic-loop server start" in str(info.value)


def test_slow_server_times_out_within_the_deadline(server: FakeOpenAIServer) -> None:
    # A stream that stalls longer than the timeout: the client must give up, not hang.
    server.replies += [Stream([chunk("a")] * 3, delay=3)] * 3
    brain = brain_for(server, timeout=1, max_retries=5)
    with pytest.raises(BrainUnavailable, match="did not answer within 1 s"):
        list(brain.stream_tokens([user("hi")]))


# -- streaming ---------------------------------------------------------------------
def test_stream_tokens_yield_before_the_end(server: FakeOpenAIServer) -> None:
    stream = Stream([chunk("Hello"), chunk(" there."), chunk(" Bye.", finish="stop")], delay=0.3)
    server.replies.append(stream)
    tokens = brain_for(server).stream_tokens([user("hi")])
    assert next(tokens) == "Hello"
    first_at = time.monotonic()
    assert list(tokens) == [" there.", " Bye."]
    assert stream.sent_at[-1] - first_at > 0.3  # the first delta arrived long before the last was sent
    assert server.requests[0]["stream"] is True


def test_stream_sentences_yield_each_sentence_when_complete(server: FakeOpenAIServer) -> None:
    stream = Stream(
        [chunk("Dr. Who has 3."), chunk("14 apples. Then"), chunk(" he left."), chunk("")], delay=0.3
    )
    server.replies.append(stream)
    sentences = brain_for(server).stream_sentences([user("hi")])
    assert next(sentences) == "Dr. Who has 3.14 apples."
    assert len(stream.sent_at) < len(stream.chunks)  # out before the server finished
    assert list(sentences) == ["Then he left."]


def test_stream_message_accumulates_tool_call_deltas(server: FakeOpenAIServer) -> None:
    def delta(index: int, **fields: Any) -> list[dict[str, Any]]:
        return [{"index": index, **fields}]

    server.replies.append(
        Stream(
            [
                chunk(
                    tool_calls=delta(0, id="c1", type="function", function={"name": "add", "arguments": ""})
                ),
                chunk(tool_calls=delta(0, function={"arguments": '{"a": 1, '})),
                chunk(tool_calls=delta(0, function={"arguments": '"b": 2}'})),
                chunk(
                    tool_calls=delta(1, id="c2", type="function", function={"name": "now", "arguments": "{}"})
                ),
                chunk(finish="tool_calls", timings={"predicted_n": 12}),
                {
                    **chunk(),
                    "choices": [],
                    "usage": {"prompt_tokens": 3, "completion_tokens": 12, "total_tokens": 15},
                },
            ]
        )
    )
    items = list(brain_for(server).stream_message([user("1+2 and time?")], tools=[ADD_TOOL]))
    final = items[-1]
    assert isinstance(final, BrainReply) and not any(isinstance(i, AgentMessage) for i in items[:-1])
    assert final.tool_calls == [
        ToolCall(id="c1", name="add", arguments={"a": 1, "b": 2}),
        ToolCall(id="c2", name="now", arguments={}),
    ]
    assert final.finish_reason == "tool_calls"
    assert final.timings == {"predicted_n": 12}
    assert final.usage is not None and final.usage["completion_tokens"] == 12
    # each call is told by name as soon as the name arrives, before its arguments: a voice can say
    # what it is doing while the model still writes
    assert items[:-1] == [CallNamed("add"), CallNamed("now")]
    assert json.loads(json.dumps(server.requests[0]["stream_options"])) == {"include_usage": True}


def test_stream_message_text_then_final_message(server: FakeOpenAIServer) -> None:
    server.replies.append(Stream([chunk("Hi"), chunk(" you."), chunk(finish="stop")]))
    items = list(brain_for(server).stream_message([user("hi")]))
    assert items[:2] == ["Hi", " you."]
    assert isinstance(items[2], BrainReply) and items[2].content == "Hi you." and items[2].tool_calls is None


def test_stream_open_is_retried_on_5xx(server: FakeOpenAIServer) -> None:
    server.replies += [(502, {"error": {"message": "bad gateway"}}), Stream([chunk("ok")])]
    assert list(brain_for(server).stream_tokens([user("hi")])) == ["ok"]


# -- incomplete streams ----------------------------------------------------------------
def add_call_delta(arguments: str) -> list[dict[str, Any]]:
    return [{"index": 0, "id": "c1", "type": "function", "function": {"name": "add", "arguments": arguments}}]


def test_a_stream_cut_without_done_or_finish_reason_is_an_error(server: FakeOpenAIServer) -> None:
    server.replies.append(Stream([chunk("One. "), chunk("Two. ")], done=False))
    items: list[Any] = []
    with pytest.raises(BrainBadResponse, match="broke off") as info:
        for item in brain_for(server).stream_message([user("count")]):
            items.append(item)
    assert items == ["One. ", "Two. "]  # the text came as it arrived; no final message claims it is whole
    assert server.url in str(info.value) and "without [DONE] or a finish_reason" in str(info.value)
    assert len(server.requests) == 1  # text went out: asking again would repeat it


def test_a_stream_cut_inside_a_tool_call_never_yields_the_call(server: FakeOpenAIServer) -> None:
    # The arguments happen to parse: only the missing end shows the call may be incomplete.
    server.replies += [Stream([chunk(tool_calls=add_call_delta('{"a": 1, "b": 2}'))], done=False)] * 2
    with pytest.raises(BrainBadResponse, match=r"1 unfinished tool call\(s\), which were not run"):
        list(brain_for(server, max_retries=1).stream_message([user("1+2")], tools=[ADD_TOOL]))
    assert len(server.requests) == 2


def test_a_stream_cut_before_any_text_is_asked_for_again(server: FakeOpenAIServer) -> None:
    whole = [chunk(tool_calls=add_call_delta('{"a": 1, "b": 2}')), chunk(finish="tool_calls")]
    server.replies += [Stream([chunk(tool_calls=add_call_delta('{"a": 1'))], done=False), Stream(whole)]
    items = list(brain_for(server, max_retries=1).stream_message([user("1+2")], tools=[ADD_TOOL]))
    assert items[0] == CallNamed("add")  # named once, though both attempts named it
    assert len(items) == 2 and isinstance(items[1], BrainReply)
    assert items[1].tool_calls == [ToolCall(id="c1", name="add", arguments={"a": 1, "b": 2})]
    assert len(server.requests) == 2


@pytest.mark.parametrize(
    "stream",
    [
        Stream([chunk("Hi.", finish="stop")], done=False),  # finish_reason, then the server hung up
        Stream([chunk("Hi.")], done=True),  # [DONE] from a server that sends no finish_reason
    ],
    ids=["finish_reason only", "[DONE] only"],
)
def test_either_end_marker_completes_a_stream(server: FakeOpenAIServer, stream: Stream) -> None:
    server.replies.append(stream)
    items = list(brain_for(server).stream_message([user("hi")]))
    assert isinstance(items[-1], BrainReply) and items[-1].content == "Hi."


# -- Retry-After ---------------------------------------------------------------------------
def busy_for(seconds: float, retry_after: str | Callable[[], str], status: int = 429) -> Callable[..., Any]:
    """A server that refuses every request until ``seconds`` after the first one, saying when to return."""
    opened: list[float] = []

    def reply(body: dict[str, Any]) -> Any:
        opened.append(opened[0] if opened else time.monotonic())
        if time.monotonic() - opened[0] < seconds:
            value = retry_after() if callable(retry_after) else retry_after
            return (status, {"error": {"message": "busy"}}, {"Retry-After": value})
        return completion("ok")

    return reply


@pytest.mark.parametrize("status", [429, 503])
def test_retry_after_seconds_is_waited_for(server: FakeOpenAIServer, status: int) -> None:
    server.replies += [busy_for(1.0, "1.2", status)] * 3
    brain = brain_for(server, max_retries=2, retry_backoff=0.05, timeout=10)
    assert brain.continue_chat([user("hi")]).content == "ok"
    assert len(server.requests) == 2  # waited as told; a 0.05 s backoff would have asked three times
    assert server.received_at[1] - server.received_at[0] >= 1.15


def test_retry_after_as_an_http_date_is_waited_for(server: FakeOpenAIServer) -> None:
    from email.utils import formatdate

    server.replies += [busy_for(1.0, lambda: formatdate(time.time() + 2, usegmt=True))] * 3
    brain = brain_for(server, max_retries=2, retry_backoff=0.05, timeout=10)
    assert brain.continue_chat([user("hi")]).content == "ok"
    assert len(server.requests) == 2
    assert server.received_at[1] - server.received_at[0] >= 1.0  # the date has 1-second resolution


def test_retry_after_past_the_timeout_fails_at_once_and_says_why(server: FakeOpenAIServer) -> None:
    server.replies += [busy_for(60, "30")] * 3
    with pytest.raises(BrainUnavailable, match=r"HTTP 429 .*retry after 30 s \(Retry-After\)") as info:
        brain_for(server, max_retries=3, timeout=5).continue_chat([user("hi")])
    assert len(server.requests) == 1 and server.url in str(info.value)


def test_retry_after_is_bounded_by_the_callers_deadline(server: FakeOpenAIServer) -> None:
    server.replies += [busy_for(60, "2")] * 3
    started = time.monotonic()
    with pytest.raises(BrainUnavailable, match="Retry-After"):
        brain_for(server, max_retries=3, timeout=60).continue_chat([user("hi")], deadline=started + 1)
    assert len(server.requests) == 1  # no wait for a retry that could only start past the deadline


def test_retry_after_parsing() -> None:
    from ovos_agentic_loop.brain.retry_policy import retry_after_seconds

    now = 1_000_000_000.0  # 2001-09-09T01:46:40Z
    assert retry_after_seconds({"retry-after": "3"}) == 3
    assert retry_after_seconds({"retry-after": "0.5"}) == 0.5
    assert retry_after_seconds({"retry-after-ms": "250", "retry-after": "9"}) == 0.25
    assert retry_after_seconds({"retry-after": "Sun, 09 Sep 2001 01:46:50 GMT"}, now=now) == 10
    assert retry_after_seconds({"retry-after": "Sun, 09 Sep 2001 01:46:30 GMT"}, now=now) == 0  # past
    assert retry_after_seconds({"retry-after": "-4"}) == 0
    for junk in ({}, {"retry-after": "soon"}, {"retry-after": "nan"}, {"retry-after": "Sun, 09 Sep 2001"}):
        assert retry_after_seconds(junk, now=now) is None


# -- replies that are not chat completions ------------------------------------------------
HTML_PAGE = "<!DOCTYPE html><html><head><title>502 Bad Gateway</title></head><body>" + "x" * 5000


@pytest.mark.parametrize(
    ("reply", "says"),
    [
        (Raw(200, HTML_PAGE), "an HTML page titled '502 Bad Gateway'"),
        (Raw(200, '{"id": "x", "choices": [', "application/json"), "malformed JSON"),
        (Raw(200, "", "application/json"), "malformed JSON"),
        (Raw(200, '{"choices": [{"message": "hi"}]}', "application/json"), "not an OpenAI chat completion"),
        (Raw(200, '{"choices": "none"}', "application/json"), "not an OpenAI chat completion"),
    ],
    ids=["html", "cut json", "empty json", "message not an object", "choices not a list"],
)
def test_a_reply_that_is_not_a_completion_names_the_url_and_what_came(
    server: FakeOpenAIServer, reply: Raw, says: str
) -> None:
    server.replies.append(reply)
    with pytest.raises(BrainBadResponse) as info:
        brain_for(server).continue_chat([user("hi")])
    message = str(info.value)
    assert server.url in message and says in message
    assert len(message) < 400, message  # briefly: never the whole page


@pytest.mark.parametrize(
    ("reply", "says"),
    [
        (Raw(200, HTML_PAGE), "text/html, not server-sent events: an HTML page titled '502 Bad Gateway'"),
        (Stream([chunk("Hi"), "{not json"]), "malformed JSON"),
        (Stream([{"choices": "none"}]), "not an OpenAI chat completion"),
    ],
    ids=["html", "malformed event", "chunk of the wrong shape"],
)
def test_a_stream_that_is_not_a_completion_names_the_url_and_what_came(
    server: FakeOpenAIServer, reply: Any, says: str
) -> None:
    server.replies.append(reply)
    with pytest.raises(BrainBadResponse) as info:
        list(brain_for(server).stream_message([user("hi")]))
    assert server.url in str(info.value) and says in str(info.value)


def test_an_html_error_page_is_named_by_its_title(server: FakeOpenAIServer) -> None:
    server.replies.append(Raw(404, HTML_PAGE.replace("502 Bad Gateway", "404 Not Found")))
    with pytest.raises(BrainRequestError) as info:
        brain_for(server).continue_chat([user("hi")])
    assert "HTTP 404" in str(info.value) and "'404 Not Found'" in str(info.value)
    assert len(str(info.value)) < 300


def test_each_request_gets_the_time_left_and_keeps_the_connect_timeout(server: FakeOpenAIServer) -> None:
    import httpx2

    seen: list[dict[str, float]] = []
    http_client = httpx2.Client(event_hooks={"request": [lambda r: seen.append(r.extensions["timeout"])]})
    brain = OpenAIBrain({"api_url": server.url, "timeout": 30, "connect_timeout": 2}, http_client=http_client)
    server.replies += [completion("one"), completion("two")]
    brain.continue_chat([user("hi")])
    brain.continue_chat([user("hi")], deadline=time.monotonic() + 5)
    assert seen[0]["connect"] == 2 and 29 < seen[0]["read"] <= 30
    assert seen[1]["connect"] == 2 and 4 < seen[1]["read"] <= 5  # bounded by the caller's deadline
