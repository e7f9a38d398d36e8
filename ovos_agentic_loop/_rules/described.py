"""A described call: the answer names a tool it should call and makes no call.

("you can use the ``search_in_files`` function", "I'll run ``wc -w story.txt``", also "I will
call X" for a tool called before.) Taken as the final answer, the user hears instructions
instead of a result. When the reply wrote the arguments too (a JSON object of the tool's
parameters with every required one), that IS the call: the loop makes it, as if the model
had. Otherwise it says "call it now". A tool name is only meaningful to the model, so a final
answer that names a tool not yet called this turn describes a call; a command line is
recognised by its first word being a program the command tool can run. A tool the model called
that is not there, named again in the answer ("you would use the `multiply` function"), is a
described call too: asked again, the choice is constrained to the tools there are.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from ovos_agentic_loop._rules.base import Decide, MakeCall, Nudge, Response, Rule, Stage
from ovos_agentic_loop._rules.view import TurnView
from ovos_agentic_loop._text.numbers import call_format
from ovos_agentic_loop._text.protocol import MAX_CALL_SCAN_CHARS, json_values, names_tool
from ovos_agentic_loop._tools.programs import NOT_PROGRAM_WORDS, is_program
from ovos_agentic_loop._tools.spec import ToolSpec

__all__ = ["ANNOUNCED_STEP", "DESCRIBED", "Undecided", "described_call"]

# `wc -w story.txt`, or a fenced ```bash block: the command is the first line inside.
_BACKTICKED = re.compile(r"```[a-zA-Z]*\s*\n?(.+?)\n?```|`([^`\n]+)`", re.DOTALL)
# "I'll run wc -w story.txt", "run the command ls -la", "use the command ls". Not a bare "use X":
# "I can use more detail" would read `more` as a program.
_RUN_VERB = re.compile(
    r"\b(?:(?:run|running|execute|executing)\s+(?:the\s+)?(?:command\s+|program\s+)?|"
    r"(?:use|using)\s+(?:the\s+)?(?:command|program)\s+)[\"']?([A-Za-z][\w.+-]*)",
    re.IGNORECASE,
)
# A program named in prose must come with a cue that the model means to run it.
_INTENT = re.compile(
    r"\b(i'll|i will|i'm going to|i am going to|let me|let's|i need to|i can|you can|we can|"
    r"i would|i should|first|next|now)\b",
    re.IGNORECASE,
)
# "use `end_date` as `2026-12-31`": a parameter written as code, with a cue that it is to be set.
_SETS_PARAMETER = re.compile(r"\b(?:use|set|sets|setting|with|as|to|pass|give)\b", re.IGNORECASE)
# "I will call", "you can use", or an imperative at a clause start ("To find it, use the ...").
_WHO = (
    r"(?:\b(?:i will|i'll|let me|i am going to|i'm going to|i need to|now i|you can|you could|"
    r"you should|you need to|we can)\s+(?:now\s+)?|(?:^|[.,;:!?]\s*)(?:just\s+)?)"
)
_VERB = r"(?:call|use|run|invoke|try)\b"


@dataclass(frozen=True)
class Described:
    """A tool the reply talks about calling; its ``arguments`` when the reply wrote them (a JSON
    object of the tool's parameters, or a program's command line for the command tool)."""

    tool: str
    arguments: dict[str, Any] | None = None
    # A command line is never run for the model: prose names a command by its program (`wc -l`)
    # and leaves the file elsewhere in the sentence; run as written, it counted nothing.
    command_line: bool = False


@dataclass(frozen=True)
class Undecided:
    """What a reply that described a call instead of making one held: the call (None when the
    reply only announced a step), how the model calls, and the announcing sentence."""

    described: Described | None
    how: str = ""
    sentence: str = ""
    #: A tool the model called this turn that is not there, named again in the answer.
    missing_tool: str = ""


def _undecided(view: TurnView) -> Undecided | None:
    """The answer describes a call (with or without its arguments, or a command line), or is one
    sentence announcing the next step before any call of this turn."""
    described = described_call(view)
    if described is not None:
        return Undecided(described, call_format(view.text_mode))
    missing = _missing_tool_named(view)
    if missing is not None:
        return Undecided(None, call_format(view.text_mode), missing_tool=missing)
    if view.called or _ANNOUNCED.match(view.answer.strip()) is None:
        return None
    return Undecided(None, sentence=view.answer.strip())


def _decide_again(found: Undecided) -> Response:
    """The call the reply wrote out with its arguments is made for the model (told to make it,
    the bundled model answered that it would, or that it cannot); otherwise the model is asked
    again, constrained to a call or the answer, and where that cannot be, told "call it now"."""
    described, how = found.described, found.how
    why = DESCRIBED.description
    if described is None and found.missing_tool:
        message = (
            f"{found.missing_tool} is no tool here: call one of the tools you have now{how}, "
            "then answer with its result."
        )
        return Decide(why, Nudge(why, message))
    if described is None:
        return Decide(why, Nudge(why, ANNOUNCED_STEP))
    if described.arguments is not None and not described.command_line:
        return MakeCall(why, described.tool, described.arguments)
    if described.command_line and described.arguments is not None:
        arguments = json.dumps(described.arguments, ensure_ascii=False)
        what = f"Do not tell me the command: run it yourself now with {described.tool} {arguments}"
        return Decide(why, Nudge(why, f"{what}{how}, then answer with its result."))
    message = f"Do not describe {described.tool}: call it yourself now{how}, then answer with its result."
    return Decide(why, Nudge(why, message))


#: Said to an answer that only announces the work ("I will search for lines containing ...").
ANNOUNCED_STEP = (
    "Do not tell me what you will do: call the tool for it now (a real tool call), "
    "then answer with its result."
)
# "To find the file, I will search for ...", "Let me check the log.": the whole answer is a step to
# take, with a verb of the work tools do. Not "I'll add a note: ..." (no tool's work).
_ANNOUNCED = re.compile(
    r"^(?:to [^.!?\n]{1,120}, )?(?:i will|i'll|i am going to|i'm going to|let me|first,? i will)"
    r"\s+(?:now\s+)?"
    r"(?:search|find|read|list|check|calculate|compute|look|run|get|open|count|convert|fetch|"
    r"determine|retrieve)\b[^.!?\n]*[.:]?$",
    re.IGNORECASE,
)

# Where a reply's first sentence is complete: a stop followed by a space, or a line break.
_FIRST_SENTENCE_END = re.compile(r"[.!?:](?=\s)|\n")


def _may_apply(view: TurnView) -> bool:
    """Before a reply any reply may describe a call; while it streams, until its first sentence is
    complete, and then while what is written describes one. The description comes first ("To find
    which of your notes mentions the dentist, you can use the search_in_files function with the
    pattern dentist."): held, it is not spoken, and the call the loop makes for it is answered
    once. A reply whose first sentence names no call is let out at that sentence's end, which is
    when ``stream_sentences`` would say it anyway; a later sentence that describes a call is then
    talk before it (``after_speech``)."""
    if _FIRST_SENTENCE_END.search(view.answer) is None:
        return True
    return _undecided(view) is not None


#: One rule where there were three (a call described with its arguments, without them, a step
#: announced): each is a reply that made no decision, and the decision step asks for one.
DESCRIBED: Rule[Undecided] = Rule(
    "described_call",
    Stage.ON_ANSWER,
    _undecided,
    _decide_again,
    description="a described call",
    languages=frozenset({"en"}),
    holds_stream=True,
    may_apply=_may_apply,
    after_speech=True,
)


def described_call(view: TurnView) -> Described | None:
    """The tool ``view.answer`` describes calling instead of calling it, or None."""
    answer, tools, called, runner = view.answer, view.tools.tools, view.called, view.runner

    def described(tool: ToolSpec) -> Described:
        return Described(tool.name, _written_arguments(answer, tool), command_line=tool.name == runner)

    for tool in tools:
        if tool.name not in called and names_tool(answer, tool.name):
            return described(tool)
    for tool in tools:  # a tool called before, announced again: "I will call X with ..."
        if tool.name in called and _announces(answer, tool.name):
            return described(tool)
    by_parameter = _names_parameter(answer, tools)
    if by_parameter is not None:
        return described(by_parameter)
    role = view.role("runner")
    if runner is None or role is None or runner in called:
        return None
    for command in _written_commands(answer):
        if is_program(command.split()[0], view.tools, view.which):
            return Described(runner, {role.argument: command}, command_line=True)
    return None


def _missing_tool_named(view: TurnView) -> str | None:
    """A tool the model called this turn that is not offered (its call answered "there is no
    tool named ..."), which the answer names: it describes that call instead of calling a tool it
    has ("you would use the `multiply` function with a=347 and b=28", stock template)."""
    offered = {tool.name for tool in view.tools.tools}
    for name in sorted(view.called - offered):
        if names_tool(view.answer, name):
            return name
    return None


def _written_arguments(answer: str, tool: ToolSpec) -> dict[str, Any] | None:
    """The arguments of ``tool`` as the answer wrote them: a JSON object of its parameters with
    every required one ("with the expression {"expression": "sqrt(1764)"}"), or the quoted value
    of its only required text parameter ("with the expression "sqrt(1764)""); else None."""
    known, required = set(tool.properties), set(tool.required)
    for value in json_values(answer[:MAX_CALL_SCAN_CHARS]):
        if isinstance(value, dict) and value and set(value) <= known and required <= set(value):
            return value
    if len(required) == 1:  # "with the expression "sqrt(1764)"": the one required text, quoted
        (only,) = required
        if (tool.properties.get(only) or {}).get("type") == "string":
            quoted = re.search(
                rf"\b{re.escape(only)}\s*[:=]?\s*(?:\\)?([\"'`])([^\"'`\n]{{1,500}})\1",
                answer[:MAX_CALL_SCAN_CHARS],
                re.IGNORECASE,
            )
            if quoted:
                return {only: quoted.group(2)}
    return None


def _announces(answer: str, name: str) -> bool:
    """The answer says it is about to call ``name``, or tells the user to ("I will call the
    evaluate_expression function with ...", "you can use the `days_between` function with ..."):
    a summary of a call made says what was done, not what will be."""
    pattern = rf"{_WHO}{_VERB}[^.\n]{{0,40}}?(?<![\w-]){re.escape(name)}(?![\w-])"
    return re.search(pattern, answer, re.IGNORECASE | re.MULTILINE) is not None


def _names_parameter(answer: str, tools: tuple[ToolSpec, ...]) -> ToolSpec | None:
    """The tool whose distinctive parameter (``end_date``, with an underscore) the answer writes
    backticked while telling how to set it: a description of its call without its name."""
    if not _SETS_PARAMETER.search(answer):
        return None
    for tool in tools:
        for parameter in tool.properties:
            if "_" in parameter and f"`{parameter}`" in answer:
                return tool
    return None


def _written_commands(answer: str) -> list[str]:
    """Command lines in an answer: backticked spans, and "run X ..." with an intent cue."""
    found = []
    for match in _BACKTICKED.finditer(answer):
        text = (match.group(1) or match.group(2) or "").strip().removeprefix("$").strip()
        if text:
            found.append(text.splitlines()[0].strip())
    if _INTENT.search(answer):
        for match in _RUN_VERB.finditer(answer):
            if match.group(1).lower() not in NOT_PROGRAM_WORDS:
                rest = answer[match.start(1) :].split("\n")[0]
                found.append(re.split(r"[.,;:!?](?:\s|$)", rest)[0].strip().strip("\"'`"))
    return found
