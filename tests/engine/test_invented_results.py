"""A model that writes a tool result itself (seen on the stock chat template).

Qwen-style templates show tool results to the model inside ``<tool_response>`` tags; a small
model sometimes writes one on its own, replaying an earlier result instead of answering. Like an
invented ``Observation:`` line, everything from the tag on is the model talking to itself: never
spoken, never part of the answer.
"""

from __future__ import annotations

import pytest
from conftest import DemoToolBox
from engine_helpers import ENGINES_AND_MODES, engine_with, user

from ovos_agentic_loop.testing import ScriptedBrain, in_chunks

INVENTED = '<tool_response>\n{"expression": "3 + 4", "result": "7"}\n</tool_response>'


@pytest.mark.parametrize(("entry_point", "mode"), ENGINES_AND_MODES)
def test_an_invented_result_after_the_answer_is_cut(entry_point: str, mode: str) -> None:
    reply = f"The capital of France is Paris.\n{INVENTED}\nThe result is 7."
    for how in ("continue_chat", "stream_sentences"):
        engine = engine_with(ScriptedBrain([in_chunks(*reply)]), [DemoToolBox()], entry_point, mode=mode)
        if how == "continue_chat":
            said = engine.continue_chat(user("Capital of France?")).content
        else:
            said = " ".join(engine.stream_sentences(user("Capital of France?")))
        assert said == "The capital of France is Paris.", how


@pytest.mark.parametrize(("entry_point", "mode"), ENGINES_AND_MODES)
def test_a_reply_that_is_only_an_invented_result_is_never_the_answer(entry_point: str, mode: str) -> None:
    # nothing before the tag: the reply is empty, and the loop asks once more without tools
    script = [in_chunks(INVENTED[:9], INVENTED[9:]), "The capital of France is Paris."]
    engine = engine_with(ScriptedBrain(list(script)), [DemoToolBox()], entry_point, mode=mode)
    assert engine.continue_chat(user("Capital of France?")).content == "The capital of France is Paris."
    engine = engine_with(ScriptedBrain(list(script)), [DemoToolBox()], entry_point, mode=mode)
    spoken = list(engine.stream_sentences(user("Capital of France?")))
    assert spoken == ["The capital of France is Paris."]
    assert not any("tool_response" in s or '"result"' in s for s in spoken)


@pytest.mark.parametrize(("entry_point", "mode"), ENGINES_AND_MODES)
def test_a_call_written_in_a_result_tag_is_a_call(entry_point: str, mode: str) -> None:
    # the bundled model on its stock template, told to call find_files, wrote the call in the tag
    # of a result; cut as an invented result, the turn lost the call and answered from nothing
    misnamed = '<tool_response>{"name": "add", "arguments": {"a": 2, "b": 3}}</tool_response>'
    for how in ("continue_chat", "stream_sentences"):
        brain = ScriptedBrain([in_chunks(misnamed[:7], misnamed[7:]), "2 plus 3 is 5."])
        engine = engine_with(brain, [DemoToolBox()], entry_point, mode=mode)
        if how == "continue_chat":
            said = engine.continue_chat(user("2 + 3?")).content
        else:
            said = " ".join(engine.stream_sentences(user("2 + 3?")))
        assert said == "2 plus 3 is 5.", how
        assert '"value": 5.0' in brain.calls[1].last.content  # the tool ran: its result is seen
        brain.assert_complete()


def test_a_result_tag_naming_no_tool_stays_an_invented_result() -> None:
    reply = '<tool_response>{"name": "Paris", "arguments": {}}</tool_response>'
    brain = ScriptedBrain([reply, "The capital of France is Paris."])
    answer = engine_with(brain, [DemoToolBox()]).continue_chat(user("Capital of France?"))
    assert answer.content == "The capital of France is Paris."
    assert not any(m.tool_calls for c in brain.calls for m in c.messages)
