"""The loop's reactions to what small models write instead of a tool call.

Each habit of small local models is met with one short, bounded reaction; all reactions that
cost a model call share one budget, :data:`MAX_NUDGES` per turn, and none is repeated.

- **A described call**: the reply names a tool it should call ("you can use the
  ``search_in_files`` function", "I'll run ``wc -w story.txt``", also "I will call X" for a tool
  called before) and makes no call. Taken as the final answer, the user hears instructions
  instead of a result. When the reply wrote the arguments too (a JSON object of the tool's
  parameters with every required one, or a command line the command tool may run), that IS
  the call: the loop makes it, as if the model had. Otherwise it says "call it now".
- **An unread file**: the question names a file (``notes.txt``) and the answer comes without
  any call of this turn touching it, while a file-reading tool is loaded: the loop reads the
  file itself and the model answers again (the made-up answer is dropped). Told to read it, the
  bundled model answered "I have not read notes.txt" or "I don't have the ability to read files".
- **Head arithmetic**: a question that asks for a calculation, answered with a number
  nothing in the conversation holds (not the question, not a tool result, not rounded),
  while a calculator tool is loaded and was not called this turn. Small models read a
  value with one tool, then "work out" the rest and get it wrong ("15% of the budget is
  12"). The loop asks to calculate it with the tool.
- **An unstated result**: the answer comes right after tool results, talks about the call,
  and holds none of their values ("This is the result of the calculation.", "The command
  executed successfully"). The bundled model on its stock template says this after most
  single calls. The loop asks for the answer with the result.
- **A program or a calculator function used as a tool name** (``ls``, ``mean``): the
  unknown-tool observation says how to make the call with the tool that has it
  (:func:`unknown_tool_hint`, used by ``_observations.observation_for_error``), instead of
  only listing tool names, which small models read as "give up".

The rules are about the kind of reply, never about a task: a tool name is only
meaningful to the model, so a final answer that names a tool not yet called this
turn is a description of a call; a command line is recognised by its first word
being a program the command tool can run.
"""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from ovos_plugin_manager.templates.agents import AgentMessage, MessageRole

from ovos_agentic_loop._protocol import MAX_CALL_SCAN_CHARS, json_values

__all__ = [
    "Nudges",
    "Reaction",
    "calculator_tool",
    "command_tool",
    "head_arithmetic",
    "last_results",
    "may_be_nudged",
    "unknown_tool_hint",
    "unread_file",
    "unstated_message",
    "unstated_result",
]

#: At most this many corrective messages per turn: two model calls more at worst. One was too few:
#: after "call it now" the bundled model calls the first tool of a chain, then describes the second.
MAX_NUDGES = 2

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
# Words that follow "use" in ordinary answers and must never count as a program name.
_NOT_PROGRAMS = frozenset(
    {"a", "an", "the", "it", "this", "that", "these", "those", "your", "my", "our", "some", "any"}
)


@dataclass(frozen=True)
class DescribedCall:
    """A tool the reply talks about calling; its ``arguments`` when the reply wrote them (a JSON
    object of the tool's parameters, or a program's command line for the command tool)."""

    tool: str
    arguments: dict[str, Any] | None = None
    # A command line is never run for the model: prose names a command by its program (`wc -l`)
    # and leaves the file elsewhere in the sentence; run as written, it counted nothing.
    command_line: bool = False


@dataclass(frozen=True)
class Reaction:
    """What the loop does with an answer that does not stand: sends ``message`` back, or makes
    ``call`` (tool name, arguments) itself. ``why`` names the reaction in the step events."""

    why: str
    message: str | None = None
    call: tuple[str, dict[str, Any]] | None = None

    @property
    def key(self) -> str:
        return (
            self.message if self.message is not None else json.dumps(self.call, sort_keys=True, default=str)
        )


@dataclass
class Nudges:
    """Per-turn state of the reactions (lives in the ``Turn``, never on the engine)."""

    sent: int = 0
    done: set[str] = field(default_factory=set)  # a reaction the model did not act on is not repeated

    def react(
        self,
        answer: str,
        specs: list[dict[str, Any]],
        transcript: list[AgentMessage],
        *,
        text_mode: bool,
    ) -> Reaction | None:
        """The reaction to a final answer that does not stand, or None when it stands (or this turn's
        budget is spent)."""
        if self.sent >= MAX_NUDGES or not specs:
            return None
        # Sent twice, a message is parroted back ("The file notes.txt does not exist."): the next
        # reaction that applies is taken instead, or the answer stands.
        for reaction in self._reactions(answer, specs, transcript, text_mode):
            if reaction.key not in self.done:
                self.sent += 1
                self.done.add(reaction.key)
                return reaction
        return None

    def _reactions(
        self, answer: str, specs: list[dict[str, Any]], transcript: list[AgentMessage], text_mode: bool
    ) -> Iterator[Reaction]:
        """Every reaction that applies to ``answer``, the most useful first."""
        called = {c.name for m in transcript if m.tool_calls for c in m.tool_calls}
        described = described_call(answer, specs, called)
        if described is None and not called and announces_work(answer):
            yield Reaction("an announced step", ANNOUNCED_STEP)
        if described is not None and described.arguments is not None and not described.command_line:
            # The reply wrote the tool and every required argument: that is the call. Told to make
            # it, the bundled model answered that it would, or that it cannot.
            yield Reaction("a call described with its arguments", call=(described.tool, described.arguments))
        elif described is not None:
            yield Reaction("a described call", corrective_message(described, text_mode=text_mode))
        unread = unread_file(specs, transcript)
        if unread is not None:
            # Told to read it, the bundled model answered "I don't have the ability to read files".
            reader, name = unread
            yield Reaction(f"{name} was not read", call=(reader, {"path": name}))
        made_up = head_arithmetic(answer, specs, transcript, called)
        if made_up is not None:
            calculator, number = made_up
            yield Reaction("head arithmetic", calculate_message(calculator, number, text_mode=text_mode))
        values = unstated_result(answer, transcript)
        if values is not None:
            yield Reaction("the result is not stated", unstated_message(values))


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


def announces_work(answer: str) -> bool:
    """The answer is one sentence that says which step comes next, and does not take it."""
    return _ANNOUNCED.match(answer.strip()) is not None


# A file named in a question: notes.txt, data/numbers.csv, logs/app.log.
_FILE_NAME = re.compile(
    r"(?<![\w/.-])((?:[\w-]+/)*[\w-]+\.(?:txt|csv|json|log|md|ya?ml|xml|ini|cfg|conf|toml|tsv|html?))\b",
    re.IGNORECASE,
)


def reader_tool(specs: list[dict[str, Any]]) -> str | None:
    """The name of the tool that reads a file: its only required argument is ``path``."""
    for spec in specs:
        function = spec.get("function", {})
        if (function.get("parameters") or {}).get("required") == ["path"] and "read" in str(
            function.get("name", "")
        ):
            return str(function["name"])
    return None


def unread_file(specs: list[dict[str, Any]], transcript: list[AgentMessage]) -> tuple[str, str] | None:
    """(reader tool, file) when the question names a file that no call of this turn touched.

    Small models answer "15% of the budget" in notes.txt from the numbers they have, without
    opening the file. Any call whose arguments name the file counts (read, search, a command)."""
    reader = reader_tool(specs)
    if reader is None:
        return None
    named = _FILE_NAME.findall(_question(transcript))
    if not named:
        return None
    touched = " ".join(
        json.dumps(c.arguments, default=str) for m in transcript if m.tool_calls for c in m.tool_calls
    )
    for name in named:
        if name.rsplit("/", 1)[-1] not in touched:
            return reader, name
    return None


def _call_format(text_mode: bool) -> str:
    """How the model is asked to make the call: the text protocol's two lines, or a native call."""
    return (
        " in the format\nAction: <tool name>\nAction Input: <JSON object>"
        if text_mode
        else " (a real tool call)"
    )


def may_be_nudged(nudges: Nudges, specs: list[dict[str, Any]], transcript: list[AgentMessage]) -> bool:
    """Whether the next answer could be sent back for an unread file or a calculation: everything
    but the answer itself is in place. A stream holds such an answer until it is decided, so a
    voice never speaks a made-up number and then the corrected one."""
    if nudges.sent >= MAX_NUDGES:
        return False
    if unread_file(specs, transcript) is not None:
        return True
    calculator = calculator_tool(specs)
    if calculator is None:
        return False
    if any(c.name == calculator for m in transcript if m.tool_calls for c in m.tool_calls):
        return False
    return bool(_CALCULATION.search(_question(transcript)))


def _question(transcript: list[AgentMessage]) -> str:
    return next((m.content or "" for m in reversed(transcript) if m.role == MessageRole.USER), "")


def described_call(answer: str, specs: list[dict[str, Any]], called: set[str]) -> DescribedCall | None:
    """The tool an answer describes calling instead of calling it, or None."""
    runner = command_tool(specs)

    def described(name: str) -> DescribedCall:
        return DescribedCall(name, _written_arguments(answer, name, specs), command_line=name == runner)

    names = [str(s.get("function", {}).get("name", "")) for s in specs]
    for name in names:
        if name and name not in called and _names_tool(answer, name):
            return described(name)
    for name in names:  # a tool called before, announced again: "I will call X with ..."
        if name and name in called and _announces(answer, name):
            return described(name)
    by_parameter = _names_parameter(answer, specs)
    if by_parameter is not None:
        return described(by_parameter)
    if runner is None or runner in called:
        return None
    for command in _written_commands(answer):
        program = command.split()[0]
        if is_program(program, specs):
            return DescribedCall(runner, {"command": command}, command_line=True)
    return None


def _function(specs: list[dict[str, Any]], name: str | None) -> dict[str, Any]:
    """The ``function`` part of the spec of the tool called ``name`` ({} when there is none)."""
    return next((s["function"] for s in specs if s.get("function", {}).get("name") == name), {})


def _description(specs: list[dict[str, Any]], name: str | None) -> str:
    return str(_function(specs, name).get("description", ""))


def _written_arguments(answer: str, name: str, specs: list[dict[str, Any]]) -> dict[str, Any] | None:
    """The arguments of ``name`` as the answer wrote them: a JSON object of its parameters with
    every required one ("with the expression {"expression": "sqrt(1764)"}"), or the quoted value
    of its only required text parameter ("with the expression "sqrt(1764)""); else None."""
    parameters = _function(specs, name).get("parameters") or {}
    known = set(parameters.get("properties") or {})
    required = set(parameters.get("required") or [])
    for value in json_values(answer[:MAX_CALL_SCAN_CHARS]):
        if isinstance(value, dict) and value and set(value) <= known and required <= set(value):
            return value
    if len(required) == 1:  # "with the expression "sqrt(1764)"": the one required text, quoted
        (only,) = required
        if ((parameters.get("properties") or {}).get(only) or {}).get("type") == "string":
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
    # "I will call", "you can use", or an imperative at a clause start ("To find it, use the ...").
    who = (
        r"(?:\b(?:i will|i'll|let me|i am going to|i'm going to|i need to|now i|you can|you could|"
        r"you should|you need to|we can)\s+(?:now\s+)?|(?:^|[.,;:!?]\s*)(?:just\s+)?)"
    )
    verb = r"(?:call|use|run|invoke|try)\b"
    return (
        re.search(
            rf"{who}{verb}[^.\n]{{0,40}}?(?<![\w-]){re.escape(name)}(?![\w-])",
            answer,
            re.IGNORECASE | re.MULTILINE,
        )
        is not None
    )


# "use `end_date` as `2026-12-31`": a parameter written as code, with a cue that it is to be set.
_SETS_PARAMETER = re.compile(r"\b(?:use|set|sets|setting|with|as|to|pass|give)\b", re.IGNORECASE)


def _names_parameter(answer: str, specs: list[dict[str, Any]]) -> str | None:
    """The tool whose distinctive parameter (``end_date``, with an underscore) the answer writes
    backticked while telling how to set it: a description of its call without its name."""
    if not _SETS_PARAMETER.search(answer):
        return None
    for spec in specs:
        function = spec.get("function", {})
        for parameter in (function.get("parameters") or {}).get("properties") or {}:
            if "_" in parameter and f"`{parameter}`" in answer:
                return str(function.get("name", "")) or None
    return None


def _names_tool(answer: str, name: str) -> bool:
    """A tool name in prose: as written (``read_file``), or a plain word (``search``) only when
    backticked or called a tool/function, since a plain word also occurs in ordinary answers."""
    word = re.escape(name)
    if re.search(r"[_.]", name) or re.search(r"[a-z][A-Z]", name):
        return re.search(rf"(?<![\w-]){word}(?![\w-])", answer) is not None
    marked = rf"`{word}(?:\(\))?`|\b{word}\s+(?:tool|function)\b|\b(?:tool|function)\s+[\"']?{word}\b"
    return re.search(marked, answer, re.IGNORECASE) is not None


def _written_commands(answer: str) -> list[str]:
    """Command lines in an answer: backticked spans, and "run X ..." with an intent cue."""
    found = []
    for match in _BACKTICKED.finditer(answer):
        text = (match.group(1) or match.group(2) or "").strip().removeprefix("$").strip()
        if text:
            found.append(text.splitlines()[0].strip())
    if _INTENT.search(answer):
        for match in _RUN_VERB.finditer(answer):
            if match.group(1).lower() not in _NOT_PROGRAMS:
                rest = answer[match.start(1) :].split("\n")[0]
                found.append(re.split(r"[.,;:!?](?:\s|$)", rest)[0].strip().strip("\"'`"))
    return found


def _tool_requiring(specs: list[dict[str, Any]], argument: str) -> str | None:
    """The name of the first tool with a required, described argument called ``argument``."""
    for spec in specs:
        function = spec.get("function", {})
        parameters = function.get("parameters") or {}
        described = (parameters.get("properties") or {}).get(argument)
        if isinstance(described, dict) and argument in (parameters.get("required") or []):
            return str(function.get("name", "")) or None
    return None


def command_tool(specs: list[dict[str, Any]]) -> str | None:
    """The name of the tool that runs a program from a command line (a required ``command`` string)."""
    return _tool_requiring(specs, "command")


def is_program(name: str, specs: list[dict[str, Any]]) -> bool:
    """True when ``name`` is a program the command tool may run: listed in its description, or
    (with no such list) installed on this machine's PATH."""
    if not re.fullmatch(r"[A-Za-z][\w.+-]*", name) or name.lower() in _NOT_PROGRAMS:
        return False
    description = _description(specs, command_tool(specs))
    listed = re.search(r"allowed programs?:\s*([^.]+)", description, re.IGNORECASE)
    if listed:
        return name in {p.strip() for p in listed.group(1).split(",")}
    return shutil.which(name) is not None


# A question that asks for a calculation. "how many days" counts days between dates; a bare
# "how many" counts what a tool listed and is not one.
_CALCULATION = re.compile(
    r"%|\b(?:percent\w*|per cent|sum|total|add(?:ed)? up|multipl\w*|times|divid\w*|average|mean|"
    r"median|compute|calculat\w*|how many (?:days|weeks|months|years|hours|minutes)|difference|"
    r"product|square root|convert\w*|interest|discount)\b",
    re.IGNORECASE,
)
# A number as written in prose: 1,065 / 1065 / 2.33 / -4 (a hyphen between digits is no sign).
_NUMBER = re.compile(r"(?<![\w.])-?\d{1,3}(?:,\d{3})+(?:\.\d+)?(?![\d.])|(?<![\w.,])-?\d+(?:\.\d+)?")


# "1." / "2)" opening a line of a numbered list: a step's number, not a result.
_LIST_MARKER = re.compile(r"^[ \t]*\d{1,2}[.)](?=\s)", re.MULTILINE)


def calculator_tool(specs: list[dict[str, Any]]) -> str | None:
    """The name of the tool that calculates an expression (a required ``expression`` string)."""
    return _tool_requiring(specs, "expression")


def _numbers(text: str) -> list[str]:
    found = []
    for match in _NUMBER.finditer(text):
        value = match.group().replace(",", "")
        if match.start() > 0 and value.startswith("-") and text[match.start() - 1].isdigit():
            value = value[1:]  # 2026-11-30: a date, not minus eleven
        found.append(value)
    return found


def _grounded(number: str, known: set[float]) -> bool:
    """``number`` is in ``known``, or is one of them rounded to its own decimals (2.33 of 2.3333)."""
    value = float(number)
    decimals = len(number.partition(".")[2])
    return any(abs(k - value) < 1e-9 or round(k, decimals) == value for k in known)


def _known_numbers(transcript: list[AgentMessage], *, with_arguments: bool) -> set[float]:
    known: set[float] = set()
    for message in transcript:
        texts = [message.content or ""]
        if with_arguments:
            texts += [json.dumps(c.arguments, default=str) for c in message.tool_calls or []]
        for text in texts:
            known.update(float(n) for n in _numbers(text))
    return known


def head_arithmetic(
    answer: str, specs: list[dict[str, Any]], transcript: list[AgentMessage], called: set[str]
) -> tuple[str, str] | None:
    """(calculator tool, the made-up number) when ``answer`` computed a result in the head, else None."""
    calculator = calculator_tool(specs)
    if calculator is None or calculator in called:
        return None
    if not _CALCULATION.search(_question(transcript)):
        return None
    known = _known_numbers(transcript, with_arguments=True)
    for number in _numbers(_LIST_MARKER.sub("", answer)):
        if not _grounded(number, known):
            return calculator, number
    return None


def calculate_message(calculator: str, number: str, *, text_mode: bool) -> str:
    """One short instruction: calculate with the tool instead of in the head."""
    how = _call_format(text_mode)
    return (
        f"Do not calculate in your head ({number} may be wrong): call {calculator} now with the "
        f"calculation{how}, then answer with its result."
    )


def corrective_message(described: DescribedCall, *, text_mode: bool) -> str:
    """One short instruction: make the call now instead of describing it."""
    how = _call_format(text_mode)
    if described.command_line and described.arguments is not None:
        arguments = json.dumps(described.arguments, ensure_ascii=False)
        what = f"Do not tell me the command: run it yourself now with {described.tool} {arguments}"
        return f"{what}{how}, then answer with its result."
    return f"Do not describe {described.tool}: call it yourself now{how}, then answer with its result."


def unknown_tool_hint(name: str, arguments: Any, specs: list[dict[str, Any]]) -> str:
    """For an unknown tool named like a program or a calculator function: how to make the call
    with the tool that has it; else ""."""
    return _program_hint(name, arguments, specs) or _function_hint(name, arguments, specs)


def _program_hint(name: str, arguments: Any, specs: list[dict[str, Any]]) -> str:
    runner = command_tool(specs)
    if runner is None or not is_program(name, specs):
        return ""
    values = arguments.values() if isinstance(arguments, dict) else []
    words = [str(v) for v in values if isinstance(v, (str, int, float)) and str(v).strip()]
    command = " ".join([name, *words])
    example = json.dumps({"command": command}, ensure_ascii=False)
    return f" {name!r} is a program, not a tool: run it with {runner}, arguments {example}."


# The calculator's own list of what it knows ("Functions: sqrt, root(x, n), ..., mean, median").
_FUNCTIONS = re.compile(r"\bfunctions?:(.*)", re.IGNORECASE | re.DOTALL)


def _function_hint(name: str, arguments: Any, specs: list[dict[str, Any]]) -> str:
    """``mean`` called as a tool while the calculator lists ``mean`` among its functions."""
    calculator = calculator_tool(specs)
    if calculator is None or not re.fullmatch(r"[A-Za-z]\w{1,30}", name):
        return ""
    description = _description(specs, calculator)
    listed = _FUNCTIONS.search(description)
    # an item of the list ("..., max of numbers"), or written as a call ("root(x, n)"); not any word
    item = rf"(?:^|[,:;])\s*{re.escape(name)}\b|(?<![\w.]){re.escape(name)}\("
    if listed is None or not re.search(item, listed.group(1)):
        return ""
    inside = ", ".join(_leaves(arguments)) or "..."
    example = json.dumps({"expression": f"{name}({inside})"}, ensure_ascii=False)
    return f" {name!r} is a function of {calculator}, not a tool: call {calculator} with {example}."


def _leaves(value: Any) -> list[str]:
    """The plain values in a tool call's arguments, in order (lists and objects flattened)."""
    if isinstance(value, dict):
        return [leaf for item in value.values() for leaf in _leaves(item)]
    if isinstance(value, list):
        return [leaf for item in value for leaf in _leaves(item)]
    if isinstance(value, bool) or value is None:
        return []
    text = str(value).strip()
    return [text] if text else []


#: Most characters of the result's values quoted back to an answer that states none of them.
MAX_QUOTED_CHARS = 300


def unstated_message(values: str) -> str:
    """Said to an answer that follows tool results and states none of them. The values are
    quoted: asked only to "give the values", the bundled model repeated its narration."""
    quoted = values if len(values) <= MAX_QUOTED_CHARS else values[:MAX_QUOTED_CHARS] + "…"
    return (
        f"Your reply does not say what the result is. The result was: {quoted}\n"
        "Answer my question now with it, in plain sentences."
    )


# Words that carry no result: a narration ("This is the result of the calculation", "returning the
# total number of files") is made of them.
_FUNCTION_WORDS = (
    "a an and are as at be by for from has have in is it its of on or that the this to was were with "
    "true false null none yes no ok"
)
_RESULT_WORDS = (
    "total number count list listing files file folder directory lines line output result value "
    "returned exit code success successful error"
)
_EMPTY_WORDS = frozenset(f"{_FUNCTION_WORDS} {_RESULT_WORDS}".split())
# An answer about the call instead of its outcome speaks of these ("the result of the calculation",
# "the command executed successfully", "the statistics_summary function call"). A short answer
# without them ("Done.") is left alone: it may be all a write needs.
_NARRATION = re.compile(
    r"\b(?:results?|outputs?|returned|executed|successfully|functions?|tools?|commands?|calls?|"
    r"calculations?)\b|\w_\w",
    re.IGNORECASE,
)
_WORD = re.compile(r"[^\W\d_]{2,}")


def unstated_result(answer: str, transcript: list[AgentMessage]) -> str | None:
    """The results' values, when ``answer`` comes right after successful tool results, talks about
    the call or its result, and holds none of those values; else None.

    A value is a number of a result (0 and 1, which are mostly status codes, do not count), or a
    word in one that is not a JSON key and not an empty word. A result with no such value (an
    empty listing) asks for nothing; a number counts also rounded (21.33 of 21.3333).
    """
    texts = _last_values(transcript)
    numbers: set[float] = set()
    words: set[str] = set()
    for text in texts:
        numbers.update(float(n) for n in _numbers(text) if float(n) not in (0.0, 1.0))
        words.update(w for w in (m.lower() for m in _WORD.findall(text)) if w not in _EMPTY_WORDS)
    if (not numbers and not words) or not _NARRATION.search(answer):
        return None
    if any(_grounded(n, numbers) for n in _numbers(answer)):
        return None
    if any(w.lower() in words for w in _WORD.findall(answer)):
        return None
    return "; ".join(texts)


def last_results(transcript: list[AgentMessage]) -> str | None:
    """The values of the tool results the transcript ends with (those that succeeded), joined; None
    when it does not end with one."""
    texts = _last_values(transcript)
    return "; ".join(texts) if texts else None


def _last_values(transcript: list[AgentMessage]) -> list[str]:
    results = []
    for message in reversed(transcript):
        if message.role != MessageRole.TOOL:
            break
        content = message.content or ""
        if not content.startswith("Error") and not content.startswith("Not run again"):
            results.append(content)
    return [text for content in reversed(results) for text in _value_texts(content)]


def _value_texts(content: str) -> list[str]:
    """The values of a JSON result (its keys are names, not results); a text result whole."""
    try:
        parsed = json.loads(content.split("\n(Note:", 1)[0])
    except ValueError:
        return [content]
    return _leaves(parsed) if isinstance(parsed, (dict, list)) else [content]
