"""The forced answer: one last call without tools, asking for the best answer from what is known,
and its grounding in the turn's results."""

from __future__ import annotations

from collections.abc import Generator

from ovos_plugin_manager.templates.agents import AgentMessage

from ovos_agentic_loop._rules.unstated import ResultValues
from ovos_agentic_loop._rules.view import latest_values
from ovos_agentic_loop._text.slots import placeholder_in
from ovos_agentic_loop._turn.closing import finish
from ovos_agentic_loop._turn.endings import (
    NO_ANSWER,
    NOT_FOUND,
    answer_of,
    forced_instruction,
    out_of_steps,
    plain_result,
)
from ovos_agentic_loop._turn.model_call import call
from ovos_agentic_loop._turn.speaker import Pass, Say
from ovos_agentic_loop._turn.state import TurnState
from ovos_agentic_loop._turn.transcript import forced_messages
from ovos_agentic_loop.events import Notice

__all__ = ["forced_answer", "grounded"]


def forced_answer(turn: TurnState, reason: str, stream: bool) -> Generator[str, None, AgentMessage]:
    """One last call without tools, asking for the best answer from what is known."""
    turn.emit(Notice(message=f"forcing a final answer: {reason}"))
    instruction = forced_instruction(reason, turn.setup.config.max_iterations)
    messages = forced_messages(
        turn.persona_instructions(), turn.incoming, turn.transcript, turn.outcomes, instruction
    )
    # With numbers among the results, the answer is held until it is judged: a guess the results
    # contradict is replaced by them, and the voice must not have said the guess first (one
    # value per quantity, never "It is 350. The result was: 352.5.").
    hold = stream and ResultValues.of(latest_values(turn.view())) is not None
    reply = yield from call(
        turn,
        turn.for_brain(messages),
        stream=stream,
        tools=None,
        # judged only once whole (the text is kept while held)
        say=Say(Pass(), hold=hold, release=lambda _written: False),
        counted=turn.every_call_counts,
    )
    answer = answer_of(reply.content or "", turn.setup.toolset.names)
    final = grounded(turn, answer, reason)
    if answer and final != answer:
        turn.speaker.drop_held()  # the held guess is dropped unheard; the final answer is said instead
    return finish(turn, final, reason)


def grounded(turn: TurnState, answer: str, reason: str) -> str:
    """A forced answer that is no answer, or holds a number the results contradict (a wrong or
    mangled value), is replaced by the latest results said plainly: the user hears the result,
    once, not a guess beside it or only an apology. An answer without numbers ("Shakespeare wrote
    it.") stands; one with a slot where its value belongs ("[YourUsername]") is an honest "could
    not find out"."""
    view = turn.view()
    texts = latest_values(view)
    values = ResultValues.of(texts)
    if placeholder_in(answer):
        turn.emit(Notice(message="the forced answer holds a placeholder for its value"))
        return NOT_FOUND
    if not answer:
        apology = out_of_steps(turn.setup.config.max_iterations) if reason == "max_iterations" else NO_ANSWER
        return apology if values is None else f"{apology} {plain_result(texts, turn.lang)}"
    if values is not None and values.contradicted_by(answer, view.known_numbers, turn.lang):
        turn.emit(Notice(message="the forced answer contradicts the results; the loop says them"))
        return plain_result(texts, turn.lang)
    return answer
