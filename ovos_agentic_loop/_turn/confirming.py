"""Asking before acting (``_confirmation``) inside a turn: the call of a reply that waits for the
user's yes, and what the user's reply to the pending question decides at the turn's start."""

from __future__ import annotations

from ovos_plugin_manager.templates.agents import AgentMessage, ToolCall

from ovos_agentic_loop._confirmation import Proposal, Verdict
from ovos_agentic_loop._confirmation.question import TOO_LARGE, declined, no_such_tool
from ovos_agentic_loop._turn.closing import finish
from ovos_agentic_loop._turn.decisions import AskFirst, CarryOut, Correct, Finish, ForceAnswer, Tell
from ovos_agentic_loop._turn.state import TurnState
from ovos_agentic_loop.events import ConfirmStep, Notice

__all__ = ["answer_to_question", "ask_first", "held"]


def held(turn: TurnState, calls: list[ToolCall]) -> AskFirst | Correct | ForceAnswer | None:
    """AskFirst for the first call that needs the user's yes; none of the reply's calls runs
    (the model makes the others again after the answer, with the pending call's result). A query:
    the question is recorded as asked by ``ask_first``."""
    confirm, toolset = turn.setup.confirm, turn.setup.toolset
    if confirm is None:
        return None
    owners = toolset.owners
    waiting = next(
        (
            c
            for c in calls
            if confirm.needs_yes(toolset.get(c.name), getattr(owners.get(c.name), "config", None))
        ),
        None,
    )
    if waiting is None:
        return None
    proposal = confirm.propose(waiting, lang=turn.lang, session=turn.session_id, user_text=turn.asker or "")
    if proposal is None:
        return turn.limits.correction(
            TOO_LARGE, f"{waiting.name}: arguments too large to hold for a confirmation"
        )
    others = [c.name for c in calls if c is not waiting]
    told = (Tell(f"not run before the user answers the question: {others}"),) if others else ()
    return AskFirst(proposal, effects=told)


def answer_to_question(turn: TurnState) -> Finish | CarryOut | None:
    """At the turn's start, what the user's reply to the pending call decides (once)."""
    reply, turn.opening = turn.opening, None
    if reply is None or turn.setup.confirm is None:
        return None
    pending = reply.pending
    decided = turn.setup.confirm.claim(pending)
    verdict = reply.verdict if decided else Verdict.OTHER
    turn.emit(
        ConfirmStep(tool=pending.tool, arguments=pending.arguments, id=pending.id, decision=verdict.value)
    )
    if not decided:
        turn.emit(Notice(message="that question was already answered; the reply is a new message"))
    if verdict is Verdict.NO:
        return Finish(declined(turn.lang), "declined")
    if verdict is Verdict.OTHER:
        return None  # dropped: never run later (the next turn's preceding message is not the question)
    if turn.setup.toolset.get(pending.tool) is None or pending.tool in turn.setup.toolset.caller_names:
        return Finish(no_such_tool(pending.tool, turn.lang), "declined")
    return CarryOut(reply.call)


def ask_first(turn: TurnState, proposal: Proposal) -> AgentMessage:
    pending = proposal.pending
    if turn.setup.confirm is not None:
        turn.setup.confirm.asked(proposal)
    turn.emit(
        ConfirmStep(
            tool=pending.tool,
            arguments=pending.arguments,
            id=pending.id,
            decision="asked",
            question=proposal.question,
            token=proposal.token,
        )
    )
    return finish(turn, proposal.question, "confirm", content=proposal.spoken)
