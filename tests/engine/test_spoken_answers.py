"""Spoken answers a voice can read: what ``stream_sentences`` hands a TTS holds no
markdown, LaTeX, code, JSON or call marker; a fence or a formula is never spoken as several
utterances; a formula that gives its result is said as the result; a number is never said in
scientific notation. ``continue_chat`` (text hosts: persona-server, the CLI) keeps the text as the
model wrote it: a screen shows markdown and code as they are meant."""

from __future__ import annotations

import itertools
import re

import pytest
from conftest import DemoToolBox
from engine_helpers import engine_with, user
from hypothesis import given, settings
from hypothesis import strategies as st

from ovos_agentic_loop._text.speech import spoken_sentences
from ovos_agentic_loop._text.values import plain_number
from ovos_agentic_loop.testing import ScriptedBrain, in_chunks, tool_call

#: What the model writes -> what the voice says, sentence by sentence.
SPOKEN = {
    "bold and italics": ("The answer is **4**, and *that* is it.", ["The answer is 4, and that is it."]),
    "inline latex": (r"It is $2 + 2 = 4$, or \(x^2\).", ["It is 4, or x²."]),
    "latex commands": (r"Half of it is \frac{1}{2} \times 8.", ["Half of it is 1/2 × 8."]),
    "a boxed result": (r"The tip is \boxed{16.90} dollars.", ["The tip is 16.90 dollars."]),
    "display formula": (
        "So:\n$$\n250 + 250 \\times 0.19\n= 297.5\n$$\nThat is all.",
        ["So:", "297.5", "That is all."],
    ),
    "code fence": ("Here:\n```python\nprint(4)\nprint(5)\n```\nThat prints 4.", ["Here:", "That prints 4."]),
    "inline code": ("Run `ls -l` there.", ["Run ls -l there."]),
    "json": ('The result: {"value": 4, "unit_name": "none"}.', ["The result: value 4, unit name none."]),
    "heading and bullets": ("# Result\n- four\n- five", ["Result", "four", "five"]),
    "table": ("| name | age |\n|---|---|\n| ana | 72 |", ["name, age", "ana, 72"]),
    "link": ("See [the docs](https://example.org/docs).", ["See the docs."]),
    "formula with its result": (
        "The total is 250 Euro + (250 Euro * 0.19) = 297.50 Euro.",
        ["The total is 297.50 Euro."],
    ),
    "scientific notation": ("It is 9.0e-06 seconds.", ["It is 0.000009 seconds."]),
    "a long decimal": (
        "Die Antwort ist: 62,1371192237 Meilen, 39.9999673716 Unzen, 0.000123456 m; Router 192.168.178.1.",
        ["Die Antwort ist: 62,14 Meilen, 40 Unzen, 0.000123 m; Router 192.168.178.1."],
    ),
    "units a voice reads": ("It is 21 °C, 15% more, 3 €.", ["It is 21 °C, 15% more, 3 €."]),
}
#: Never in what a TTS is given.
UNREADABLE = re.compile(r"\*\*|(?<!\w)\*\w|\$|\\[a-z(\[]|\^|```|`|[{}]|\"\w+\":|^#|^- |\|", re.MULTILINE)


@pytest.mark.parametrize("kind", sorted(SPOKEN))
def test_the_voice_says_what_it_can_read(kind: str) -> None:
    written, said = SPOKEN[kind]
    engine = engine_with(ScriptedBrain([written]), [])
    spoken = list(engine.stream_sentences(user("tell me")))
    assert spoken == said
    assert not [s for s in spoken if UNREADABLE.search(s)], spoken


@pytest.mark.parametrize("kind", sorted(SPOKEN))
def test_continue_chat_keeps_the_text_as_written(kind: str) -> None:
    written, _ = SPOKEN[kind]
    engine = engine_with(ScriptedBrain([written]), [])
    assert engine.continue_chat(user("tell me")).content == written


@settings(max_examples=60, deadline=None)
@given(kind=st.sampled_from(sorted(SPOKEN)), cuts=st.lists(st.integers(0, 200), max_size=8))
def test_any_chunking_says_the_same(kind: str, cuts: list[int]) -> None:
    """A block is decided whole however the model's deltas cut it: a fence or a formula split over
    deltas is still one piece, never several utterances."""
    written, said = SPOKEN[kind]
    points = sorted({c % (len(written) + 1) for c in cuts} | {0, len(written)})
    chunks = [written[a:b] for a, b in itertools.pairwise(points)]
    engine = engine_with(ScriptedBrain([in_chunks(*chunks)]), [])
    assert list(engine.stream_sentences(user("tell me"))) == said == spoken_sentences(written)


def test_an_answer_after_a_tool_is_spoken_readable_too() -> None:
    brain = ScriptedBrain([tool_call("add", a=2, b=3), "**2 + 3 = 5**. The sum is `5`."])
    spoken = list(engine_with(brain, [DemoToolBox()]).stream_sentences(user("add 2 and 3")))
    assert spoken == ["5.", "The sum is 5."]


@pytest.mark.parametrize(
    ("value", "text"),
    [(9e-06, "0.000009"), (1e20, "100000000000000000000"), (0.1, "0.1"), (2.0, "2"), (-3.5e-5, "-0.000035")],
)
def test_a_number_is_written_out(value: float, text: str) -> None:
    assert plain_number(value) == text


def test_a_tool_result_float_reaches_the_model_written_out() -> None:
    """At the source: a tool's float is shown to the model as digits, so it has no "9e-06" to copy
    into its answer ("9.0e-06 pm"); a string that holds such text is left as the tool wrote it."""
    from ovos_agentic_loop.function_tools import toolbox_from_functions

    def elapsed() -> dict:
        """How long it took, in hours."""
        return {"hours": 9e-06, "note": "1e-05 is text"}

    brain = ScriptedBrain([tool_call("elapsed"), "It took 0.000009 hours."])
    engine = engine_with(brain, [toolbox_from_functions(elapsed)])
    assert list(engine.stream_sentences(user("how long?"))) == ["It took 0.000009 hours."]
    assert brain.calls[1].messages[-1].content == '{"result": {"hours": 0.000009, "note": "1e-05 is text"}}'
