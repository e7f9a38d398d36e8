"""Every way a turn can end, and every sentence about it the user may hear: one table.

The ReAct turn (``_turn/turn.py``) and every other loop's seam (``loops/_context.py``) end
through these, so a time-budget ending or "within N steps" reads the same whichever loop
ran; the reasons are the ``reason`` of the ``final`` step event.

The sentences of a confirmation (the question before a call, and the one sentence of a no: reasons
``confirm`` and ``declined``) are in the user's language, so they live with their translations in
``_confirmation/question.py``.
"""

from __future__ import annotations

from collections.abc import Sequence

from ovos_agentic_loop._text.language import language_code
from ovos_agentic_loop._text.protocol import parse_reply

__all__ = [
    "CUT_BY_BRAIN",
    "CUT_BY_TIME",
    "NOT_FOUND",
    "NO_ANSWER",
    "answer_of",
    "forced_instruction",
    "out_of_steps",
    "out_of_time",
    "plain_result",
]

#: No answer could be had from the model (its last reply was empty or protocol).
NO_ANSWER = "I'm sorry, I could not come up with an answer to that."
#: The last answer held a template slot for the value it was asked for ("<user-name>"): the model
#: did not find it, and a voice must not read the slot out.
NOT_FOUND = "I'm sorry, I could not find that out."
# Said after a streamed answer that cannot be finished: a listener must not mistake half an answer
# for a whole one (see ``Turn._cut_short``).
CUT_BY_TIME = "I'm sorry, I ran out of time, so that answer is incomplete."
CUT_BY_BRAIN = "I'm sorry, I lost the connection to the model, so that answer is incomplete."


def out_of_time(time_budget: float) -> str:
    """The answer of a turn whose ``time_budget`` ran out before any of its answer was said."""
    return f"I'm sorry, that took longer than my time limit of {time_budget:g} seconds."


def out_of_steps(max_iterations: int) -> str:
    """The answer of a turn whose model calls are spent and whose last call gave no answer."""
    return f"I'm sorry, I could not finish that within {max_iterations} steps."


#: Why the last call of a turn is made without tools, as told to the model; keyed by the reason.
_FORCED_WHY = {
    "max_iterations": "You have used all {max_iterations} tool steps.",
    "repetition": "You asked again for a tool result you already have; it will not change.",
    "empty": "Your last reply was empty.",
    "unparsable": "Your last replies were not in the expected form.",
    "ungrounded": "Your call holds a value nobody gave (not the user, not a tool), so it was not run; "
    "if no tool fits the question, say so or answer from what you know.",
}


#: Most characters of tool results the loop says itself at the end of an answer.
MAX_SAID_RESULT_CHARS = 300


#: The sentence that says the results plainly, in the session's language (English otherwise): a
#: German session heard "The result was: 161.8." read by an English phrase with a colon.
_PLAIN_RESULT = {
    "en": "The result is {said}.",
    "pt": "O resultado é {said}.",
    "es": "El resultado es {said}.",
    "de": "Das Ergebnis ist {said}.",
}


def plain_result(texts: Sequence[str], lang: str | None = None) -> str:
    """The results said plainly, in ``lang``, after a last answer that could not state them itself
    (a value two calls both returned is said once: "8000; 8000" was heard)."""
    joined = "; ".join(dict.fromkeys(texts))
    said = joined if len(joined) <= MAX_SAID_RESULT_CHARS else joined[:MAX_SAID_RESULT_CHARS] + "…"
    return _PLAIN_RESULT.get(language_code(lang), _PLAIN_RESULT["en"]).format(said=said)


def forced_instruction(reason: str, max_iterations: int) -> str:
    """The instruction of a turn's forced last call (no tools): answer from what is known."""
    why = _FORCED_WHY[reason].format(max_iterations=max_iterations)
    return (
        f"{why} Do not call any tool now. Give your final answer to the user's last message, "
        "in plain sentences, from what you know and the tool results above; write their "
        "numbers in digits, exactly as the results give them."
    )


def answer_of(reply: str, tool_names: Sequence[str]) -> str:
    """The answer a last call (without tools) gave: its text when it is an answer, "" when it is
    protocol (a call written anyway) or empty."""
    parsed = parse_reply(reply, list(tool_names))
    return parsed.answer if parsed.answer is not None and not parsed.calls else ""
