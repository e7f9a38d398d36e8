"""The decision step: a reply that neither called a tool nor answered (it described a call, in
prose) is asked for again with the choice constrained by the server's grammar.

The request is the one the reply answered, with ``response_format`` set to a JSON schema that
admits exactly one object: ``{"name": <an offered tool>, "arguments": <that tool's parameters>}``
or ``{"name": "final_answer", "arguments": {"answer": "..."}}``. llama-server compiles the schema
into a grammar, so "did it describe a call or make one" stops being a guess read from prose: the
model must pick one, by name, with arguments that fit the tool's schema. Its pick then goes
through ``reading.decide`` as any reply does (checks before a call, confirmation, repeats).

Where the brain cannot be constrained (it takes no ``response_format``, the text protocol, a
server that refuses the schema, a reply that is not the JSON asked for) the rule's ``fallback``
(a corrective message, or the call the reply wrote out) is the decision instead, as before.

Why a re-ask and not every first step: asked for a constrained first step, the bundled model
picked a tool for "hello" and for "Who wrote Hamlet?" (the JSON shape pulls it towards a call);
unconstrained, it answers those, and describes a call only on some questions that need one.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Generator
from typing import Any

from ovos_plugin_manager.templates.agents import AgentMessage, MessageRole, ToolCall

from ovos_agentic_loop._turn import model_call, tally
from ovos_agentic_loop._turn.decisions import Constrain, Decision
from ovos_agentic_loop._turn.reading import decide, respond
from ovos_agentic_loop._turn.state import TurnState
from ovos_agentic_loop.errors import BrainError
from ovos_agentic_loop.events import Notice

__all__ = ["ANSWER_NAME", "ask_constrained", "constrained", "decision_schema"]

#: The name of the choice "answer the user" beside the offered tools (another, if a tool has it).
ANSWER_NAME = "final_answer"


def constrained(turn: TurnState, constrain: Constrain) -> Generator[str, None, Decision]:
    """The decision of a reply that made none: the constrained reply's, else the rule's fallback."""
    reply = yield from ask_constrained(turn, constrain)
    decided = decide(turn, reply) if reply is not None else None
    if decided is None or isinstance(decided, Constrain):  # no decision even so
        if decided is not None:
            tally.record(turn, decided)  # what judging it counted stands, as for any reply
        return respond(turn, constrain.fallback, constrain.kept)
    return decided


def decision_schema(specs: list[dict[str, Any]], answer_name: str = ANSWER_NAME) -> dict[str, Any]:
    """The JSON schema of one decision: a call of one of ``specs`` (OpenAI tool specs) or the answer."""
    choices: list[dict[str, Any]] = []
    for spec in specs:
        function = spec.get("function", spec)
        parameters = function.get("parameters") or {"type": "object", "properties": {}}
        choices.append(_choice(function["name"], parameters))
    answer = {"type": "object", "properties": {"answer": {"type": "string"}}, "required": ["answer"]}
    choices.append(_choice(answer_name, answer))
    return {"type": "json_schema", "json_schema": {"name": "decision", "schema": {"anyOf": choices}}}


def _choice(name: str, parameters: dict[str, Any]) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {"name": {"const": name}, "arguments": parameters},
        "required": ["name", "arguments"],
    }


def ask_constrained(turn: TurnState, constrain: Constrain) -> Generator[str, None, AgentMessage | None]:
    """The constrained reply, as an ordinary reply message (the call, or the answer as text); None
    when the decision cannot be constrained here (the caller then takes the fallback)."""
    specs = _specs(turn)
    if turn.setup.text_mode or not specs or not turn.setup.brain.accepts_response_format:
        return None
    names = {(s.get("function", s))["name"] for s in specs}
    answer_name = ANSWER_NAME if ANSWER_NAME not in names else f"{ANSWER_NAME}_to_user"
    turn.emit(Notice(message=f"no decision in the reply ({constrain.why}); asking for one, constrained"))
    turn.speaker.drop_held()  # the held description is dropped unheard: the decision comes instead
    try:
        reply = yield from model_call.call(
            turn,
            model_call.brain_messages(turn),
            stream=False,
            tools=model_call.offered_specs(turn),
            say=None,  # JSON is never spoken; an answer in it is said by the turn's ending
            counted=True,
            response_format=decision_schema(specs, answer_name),
        )
    except BrainError as exc:  # a server that refuses the schema: the rule's fallback instead
        turn.emit(Notice(message=f"the server did not take the decision's schema: {exc}"))
        return None
    return _as_reply(reply, names, answer_name)


def _specs(turn: TurnState) -> list[dict[str, Any]]:
    if turn.offered is not None:
        return list(turn.offered.wire_specs())
    return list(turn.setup.toolset.wire_specs or [])


def _as_reply(reply: AgentMessage, names: set[str], answer_name: str) -> AgentMessage | None:
    """The decision the constrained reply holds, as the reply the loop reads; None if it holds none."""
    if reply.tool_calls:  # a server that parsed the JSON as a tool call itself
        return reply
    try:
        decision = json.loads(reply.content or "")
    except ValueError:
        return None
    if not isinstance(decision, dict) or not isinstance(decision.get("arguments"), dict):
        return None
    name, arguments = decision.get("name"), decision["arguments"]
    if name == answer_name and isinstance(arguments.get("answer"), str):
        return AgentMessage(MessageRole.ASSISTANT, arguments["answer"])
    if name in names:
        call = ToolCall(id=f"call_{uuid.uuid4().hex[:12]}", name=str(name), arguments=arguments)
        return AgentMessage(MessageRole.ASSISTANT, "", tool_calls=[call])
    return None
