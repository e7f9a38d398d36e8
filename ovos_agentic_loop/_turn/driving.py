"""Driving one turn for the engine: a spoken stop able to interrupt it while it runs, the deltas a
stream says, and what was delivered handed to the conversation's memory.

The engine builds the turn (``_new_turn``) and owns the memory; these functions run the turn's
generator to its end the way each contract needs it (``continue_chat``: the final message;
``stream_tokens`` / ``stream_sentences``: the text as it is said).
"""

from __future__ import annotations

from collections.abc import Callable, Generator, Iterator

from ovos_plugin_manager.templates.agents import AgentMessage

from ovos_agentic_loop._confirmation import Confirmation
from ovos_agentic_loop._confirmation.sessions import running_turns
from ovos_agentic_loop._memory import Recall, redo_call, restated_note
from ovos_agentic_loop._turn.state import TurnSetup
from ovos_agentic_loop._turn.turn import Turn

__all__ = ["delivered", "deltas", "run_to_end", "turn_of"]


def turn_of(
    setup: TurnSetup,
    messages: list[AgentMessage],
    recall: Recall | None,
    confirmation: Confirmation,
    session_id: str,
    lang: str | None,
    units: str | None,
) -> Turn:
    """The turn for ``messages``; with ``recall``, its conversation's earlier calls put back before
    their answers, and the last turn's call made again first for a follow-up that changes one of
    its values, else the question it asks again said after it (``_memory``)."""
    if recall is None:
        return Turn(setup, list(messages), session_id=session_id, lang=lang, units=units)
    redo = redo_call(recall, setup.toolset, confirmation, lang)
    note = restated_note(recall) if redo is None else ""
    return Turn(
        setup,
        recall.messages,
        session_id=session_id,
        lang=lang,
        units=units,
        earlier_calls=recall.call_ids,
        first_calls=(redo,) if redo is not None else (),
        after_question=[note] if note else [],
        follows=recall.last.question if recall.last is not None and recall.follow_up is not None else "",
    )


class _Interruptible:
    """What a stop or the wake word does to ``turn`` (``RunningTurns``). A stop aimed at the persona
    pipeline while the answer is being spoken is the host's: ovos-persona stops the speech and stops
    reading the stream, which closes the model request, and answers the stop as the one that
    stopped. Any other (a global stop, the wake word, any stop before the answer is spoken, while
    tools run or the model decides, when nobody else can stop the turn) interrupts it here."""

    def __init__(self, turn: Turn) -> None:
        self._turn = turn

    def cancel(self, *, host_stops_speech: bool = False) -> None:
        if not (host_stops_speech and self._turn.speaker.spoken()):
            self._turn.interrupt.cancel()


def run_to_end(turn: Turn, run: Generator[str, None, AgentMessage]) -> AgentMessage:
    """``run`` (the turn's loop, not streamed) to its final message; a spoken stop interrupts it."""
    with running_turns.running(turn.session_id, _Interruptible(turn)):
        while True:
            try:
                next(run)
            except StopIteration as done:
                final: AgentMessage = done.value
                return final


def deltas(turn: Turn, run: Generator[str, None, AgentMessage]) -> Iterator[str]:
    """The text ``run`` (the turn's loop, streamed) says, then what its gate held back; a spoken
    stop interrupts it, and then nothing more is said."""
    with running_turns.running(turn.session_id, _Interruptible(turn)):
        while True:
            try:
                delta = next(run)
            except StopIteration as done:
                final: AgentMessage = done.value
                break
            turn.progress_voice.heard()  # said: a progress line waits for a new silence
            yield delta
    # The part of the answer the gate held back (or all of it, from a call that could not stream).
    rest = turn.unspoken(final) if turn.ending != "stopped" else ""
    if rest:
        yield rest


def delivered(pieces: Iterator[str], turn: Turn, remember: Callable[[str], None]) -> Iterator[str]:
    """``pieces`` as they go out; ``remember(said)`` gets what was delivered: all of it, or what went
    out before the consumer stopped reading (the user said stop, a client went away), which is
    what the user heard. A turn that handed its calls to the caller has no answer to remember."""
    said: list[str] = []
    over = False
    try:
        for piece in pieces:
            said.append(piece)
            yield piece
        over = True
    finally:
        if (over or said) and turn.ending != "caller_tools":
            remember("".join(said))
