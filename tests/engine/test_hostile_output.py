"""Hostile model output: parsing, gating and splitting stay linear and bounded.

The verdicts are about growth, not about this machine's speed: each hostile reply is handled at a
quarter of its size and at full size, and the CPU time may grow about fourfold (linear), not
sixteenfold (quadratic). CPU time of this process, so a busy machine does not fail the test; a
wall-clock ceiling far above any machine's need still says the turn never hangs.
"""

from __future__ import annotations

import time
from collections.abc import Callable

from conftest import DemoToolBox
from engine_helpers import engine_with, user

from ovos_agentic_loop.testing import ScriptedBrain

LINEAR_GROWTH = 8.0  # a fourfold input: linear work grows ~4x, quadratic ~16x
NEVER_HANGS_S = 120.0


def timed(run: Callable[[], object]) -> tuple[float, object]:
    """CPU seconds the run took, and its result (the wall clock is checked against the hang ceiling)."""
    started, wall = time.process_time(), time.monotonic()
    result = run()
    assert time.monotonic() - wall < NEVER_HANGS_S, "the turn took minutes: it hangs"
    return time.process_time() - started, result


def assert_linear(label: str, run_at: Callable[[int], tuple[float, object]], size: int) -> object:
    """Run at size/4 and at size; the time may grow about linearly. Returns the full-size result."""
    small, _ = run_at(size // 4)
    large, result = run_at(size)
    assert large < LINEAR_GROWTH * small + 0.5, f"{label}: {small:.2f} s -> {large:.2f} s for 4x input"
    return result


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
    def run_at(size: int) -> tuple[float, object]:
        # the old parser tried to decode JSON at every brace: quadratic
        engine = engine_with(ScriptedBrain(["{" * size, "Sorry."]), [demo_tools], max_corrections=0)
        return timed(lambda: engine.continue_chat(user("?")))

    message = assert_linear("braces", run_at, 5_000_000)
    assert message.content  # a broken call is corrected or forced into an answer; never protocol text


def test_hostile_replies_stream_in_bounded_time(demo_tools: DemoToolBox) -> None:
    pieces = [
        ("{", 2_000_000),
        ("final ", 300_000),
        ("a\n", 500_000),
        ("<think>", 200_000),
        ("Action Input: x\n", 100_000),
        ('{"', 500_000),
        ("<tool_call>add(", 200_000),
        ("<tool_call>a</tool_call>", 100_000),
    ]
    for piece, times in pieces:

        def run_at(count: int, piece: str = piece) -> tuple[float, object]:
            brain = ScriptedBrain([piece * count, "Sorry."], chunk_size=64)
            engine = engine_with(brain, [demo_tools], max_corrections=0)
            return timed(lambda: list(engine.stream_sentences(user("?"))))

        sentences = assert_linear(repr(piece), run_at, times)
        assert isinstance(sentences, list)
        # An answer of braces alone holds nothing a voice can say (``_text.speech``): silence, not
        # "left brace" two million times; every other answer is spoken.
        assert sentences or piece.startswith("{"), piece
        assert not any("{" in s for s in sentences), piece


def test_a_long_reply_without_a_full_stop_streams_in_linear_time(demo_tools: DemoToolBox) -> None:
    def run_at(words: int) -> tuple[float, object]:
        # 100 KB, no sentence end: the old splitter rescanned it per delta
        engine = engine_with(ScriptedBrain(["word " * words + "end"], chunk_size=2), [demo_tools])
        return timed(lambda: list(engine.stream_sentences(user("?"))))

    sentences = assert_linear("no full stop", run_at, 20_000)
    assert sentences == ["word " * 20_000 + "end"]
