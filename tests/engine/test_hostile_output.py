"""Issue 13 item 4: hostile model output. Parsing, gating and splitting stay linear and bounded."""

from __future__ import annotations

import time

from conftest import DemoToolBox
from engine_helpers import engine_with, user

from ovos_agentic_loop.testing import ScriptedBrain


def timed(run) -> tuple[float, object]:
    started = time.monotonic()
    result = run()
    return time.monotonic() - started, result


def test_deeply_nested_brackets_are_an_answer_not_a_recursion_error(demo_tools: DemoToolBox) -> None:
    for reply in ("[" * 1000, "[" * 5000 + "]" * 5000, '{"a": ' * 3000 + "1" + "}" * 3000):
        engine = engine_with(ScriptedBrain([reply]), [demo_tools])
        assert engine.continue_chat(user("?")).content == reply  # not a call: the text is the answer
    assert demo_tools.calls == []


def test_a_call_beside_deep_nesting_is_still_found(demo_tools: DemoToolBox) -> None:
    reply = "[" * 2000 + "]" * 2000 + ' {"name": "add", "arguments": {"a": 1, "b": 2}}'
    engine = engine_with(ScriptedBrain([reply, "It is 3."]), [demo_tools])
    assert engine.continue_chat(user("1+2")).content == "It is 3."
    assert demo_tools.calls == [("add", {"a": 1, "b": 2})]


def test_five_megabytes_of_braces_are_parsed_fast(demo_tools: DemoToolBox) -> None:
    reply = "{" * 5_000_000  # the old parser tried to decode JSON at every brace: quadratic
    engine = engine_with(ScriptedBrain([reply, "Sorry."]), [demo_tools], max_corrections=0)
    seconds, message = timed(lambda: engine.continue_chat(user("?")))
    assert seconds < 5, f"took {seconds:.1f} s"
    assert message.content  # a broken call is corrected or forced into an answer; never protocol text


def test_hostile_replies_stream_in_bounded_time(demo_tools: DemoToolBox) -> None:
    replies = [
        "{" * 2_000_000,
        "final " * 300_000,
        "a\n" * 500_000,
        "<think>" * 200_000,
        "Action Input: x\n" * 100_000,
        '{"' * 500_000,
        "<tool_call>add(" * 200_000,
        "<tool_call>a</tool_call>" * 100_000,
    ]
    for reply in replies:
        brain = ScriptedBrain([reply, "Sorry."], chunk_size=64)
        engine = engine_with(brain, [demo_tools], max_corrections=0)
        seconds, sentences = timed(lambda engine=engine: list(engine.stream_sentences(user("?"))))
        assert seconds < 10, f"{reply[:12]!r}...: {seconds:.1f} s"
        # An answer of braces alone holds nothing a voice can say (``_text.speech``): silence, not
        # "left brace" two million times; every other answer is spoken.
        assert sentences or reply.startswith("{"), reply[:12]
        assert not any("{" in s for s in sentences), reply[:12]


def test_a_long_reply_without_a_full_stop_streams_in_linear_time(demo_tools: DemoToolBox) -> None:
    reply = "word " * 20_000 + "end"  # 100 KB, no sentence end: the old splitter rescanned it per delta
    engine = engine_with(ScriptedBrain([reply], chunk_size=2), [demo_tools])
    seconds, sentences = timed(lambda: list(engine.stream_sentences(user("?"))))
    assert seconds < 5, f"took {seconds:.1f} s"
    assert sentences == [reply]
