"""A turn's state: what the engine gives it (``TurnSetup``) and what it learns as it goes (``TurnState``).

Everything a turn remembers lives here, created for each ``continue_chat`` call, so one engine
serves any number of sessions at once. The jobs of a turn (``model_call``, ``speaker``, ``reading``,
``tool_steps``, ``confirming``, ``forced``, ``closing``) are functions over this state, and
``turn.Turn`` adds the dispatcher and the seam the other loops use.
"""

from __future__ import annotations

import datetime as dt
import shutil
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from ovos_plugin_manager.templates.agents import AgentMessage, MessageRole, ToolCall

from ovos_agentic_loop._confirmation import Confirmation, Reply, cleaned, last_user_text
from ovos_agentic_loop._rules.registry import Rules
from ovos_agentic_loop._rules.view import TurnView
from ovos_agentic_loop._runtime.cancellation import CancelScope
from ovos_agentic_loop._runtime.daemon_pool import DaemonPool
from ovos_agentic_loop._runtime.session_key import session_key
from ovos_agentic_loop._text.language import answer_language_line
from ovos_agentic_loop._text.progress import ProgressHook
from ovos_agentic_loop._text.protocol import NATIVE_GUIDANCE, text_tool_prompt
from ovos_agentic_loop._tools.observations import ToolOutcome
from ovos_agentic_loop._tools.programs import ProgramLookup
from ovos_agentic_loop._tools.selection import Shortlist, shortlist
from ovos_agentic_loop._tools.toolset import ToolSet
from ovos_agentic_loop._turn.brain_call import BrainHandle
from ovos_agentic_loop._turn.limits import Limits
from ovos_agentic_loop._turn.progress import ProgressVoice
from ovos_agentic_loop._turn.repeats import CallHistory
from ovos_agentic_loop._turn.speaker import Speaker
from ovos_agentic_loop._turn.timings import TurnTimings
from ovos_agentic_loop._turn.transcript import fold_system, persona_instructions
from ovos_agentic_loop.config import LoopConfig
from ovos_agentic_loop.events import Final, ModelCall, StepEvent, TurnStart

__all__ = ["CallCount", "TurnSetup", "TurnState"]

#: The events that name the session key (the other kinds keep their data as it was).
_KEYED_EVENTS = (TurnStart, ModelCall, Final)  # the events that carry the session key


@dataclass(frozen=True)
class TurnSetup:
    """What a turn needs from the engine; nothing here changes during the turn."""

    engine_name: str
    config: LoopConfig
    brain: BrainHandle
    toolset: ToolSet
    text_mode: bool
    executor: DaemonPool
    emit: Callable[[StepEvent], None]
    #: Which calls wait for the user's yes, and the key of their questions (None: none ever waits).
    confirm: Confirmation | None = None
    #: The world the rules read, injected: today's date and where a program is installed.
    today: Callable[[], dt.date] = dt.date.today
    which: ProgramLookup = shutil.which
    #: A host's own progress lines (``engine.progress_lines``), asked before the toolboxes' phrases.
    progress_hook: ProgressHook | None = None


@dataclass
class CallCount:
    """The model calls a turn has made, shared by its sub-runs (one budget for the whole turn)."""

    used: int = 0


@dataclass
class TurnState:
    setup: TurnSetup
    incoming: list[AgentMessage]
    session_id: str = "default"
    lang: str | None = None
    units: str | None = None
    started: float = field(default_factory=time.monotonic)
    count: CallCount = field(default_factory=CallCount)
    #: A sub-run counts every call on the shared budget, its forced answer too.
    every_call_counts: bool = False
    #: Names the conversation to the model servers and in every step event (``_runtime.session_key``);
    #: worked out from the session id and the incoming messages unless given (a sub-run: its parent's).
    session_key: str = ""
    timings: TurnTimings = field(default_factory=TurnTimings)
    #: What was said to a waiting listener while tools ran (``_turn.progress``); a sub-run shares its turn's.
    progress_voice: ProgressVoice = field(default_factory=ProgressVoice)
    #: Cancelled when the user interrupts the turn (a spoken "stop", the wake word): its waits for
    #: the model and for tools end at once (``_runtime.cancellation.TurnInterrupted``).
    interrupt: CancelScope = field(default_factory=CancelScope)
    #: The user message this turn answers (a sub-run's is its parent's): a question is bound to it.
    asker: str | None = None
    #: A sub-run's: its turn's limits, shared (None: this turn's own, from its config).
    shared_limits: Limits | None = None
    # per-turn state
    transcript: list[AgentMessage] = field(default_factory=list)
    # Each TOOL message's outcome, by its index in the transcript (ids are the model's: not unique)
    outcomes: dict[int, ToolOutcome] = field(default_factory=dict)
    ending: str | None = None  # the reason of the final event, once the turn has ended
    #: What the turn says: the gate of its latest spoken model call and what was said so far.
    speaker: Speaker = field(default_factory=Speaker)
    #: The tools this turn offers when the persona has too many to offer all (``_tools.selection``).
    offered: Shortlist | None = None
    #: The ids of the calls of earlier turns the conversation's memory put into ``incoming``
    #: (``_memory``): the rules read them as results the conversation holds, not as this turn's calls.
    earlier_calls: frozenset[str] = frozenset()
    #: Calls the loop makes first, before the model's (the last turn's call, made again for a follow-up).
    first_calls: tuple[ToolCall, ...] = ()
    #: What the model is told after the question, as one message (not in the transcript, which the
    #: rules read as what the user said): files read earlier that changed since
    #: (``tool_steps.read_again``), the question a follow-up asks again (``_memory.restated_note``).
    after_question: list[str] = field(default_factory=list)
    #: The last question, when this one is a follow-up of it ("und zweihundert", "and in ounces"):
    #: the rules read what is asked from both (``_memory.followups``).
    follows: str = ""

    def __post_init__(self) -> None:
        # A reply to a question asked in the message before it, read before the marks are removed:
        # a mark is for this engine, never for the model (a forged one in user text goes too).
        confirm = self.setup.confirm
        self.opening: Reply | None = (
            confirm.reply_to_question(self.incoming, session=self.session_id, lang=self.lang)
            if confirm is not None
            else None
        )
        self.incoming = cleaned(self.incoming)
        if self.asker is None:
            self.asker = last_user_text(self.incoming)
        self.offered = shortlist(self.setup.config, self.setup.toolset, self.incoming)
        self.transcript = self._with_system_prompt(self.incoming)
        self.question_end = len(self.transcript)  # the caller's messages end here; the turn's follow
        self.session_key = self.session_key or session_key(self.session_id, self.incoming)
        self.deadline = self.started + self.setup.config.time_budget
        self.first_call = self.count.used
        self.limits = self.shared_limits or Limits.of(self.setup.config)
        self.history = CallHistory(allowed=self.limits.repeats_allowed)
        self.rules = Rules(self.limits.nudges, frozenset(self.setup.config.disabled_rules))

    @property
    def iterations(self) -> int:
        """This run's model calls counted against its ``max_iterations``."""
        return self.count.used - self.first_call

    @property
    def calls_used(self) -> int:
        """The model calls of the whole turn, sub-runs included."""
        return self.count.used

    @property
    def mode(self) -> str:
        return "text" if self.setup.text_mode else "native"

    def emit(self, event: StepEvent) -> None:
        """A step event of this turn, built typed where it happens (``Notice(message=...)``): given
        this turn's session (and key, and on the ``final`` event its timings), to the engine's log,
        bus and listeners."""
        self.timings.observe(event)
        # Filled in place, not with dataclasses.replace: a second construction of every event
        # (three a step) is per-step cost. ``data`` mirrors the typed fields, so both are set.
        event.session_id = self.session_id
        if isinstance(event, Final):
            event.timings = event.data["timings"] = self.timings.summary(time.monotonic() - self.started)
        if isinstance(event, _KEYED_EVENTS):
            event.session_key = event.data["session_key"] = self.session_key
        self.setup.emit(event)

    def view(self, answer: str = "") -> TurnView:
        """The turn as the reactions see it (read-only), with ``answer`` under judgement."""
        setup = self.setup
        return TurnView(
            setup.toolset,
            self.transcript,
            self.outcomes,
            setup.text_mode,
            answer,
            self.lang,
            today=setup.today(),
            which=setup.which,
            earlier=self.earlier_calls,
            asked_until=self.question_end,
            follows=self.follows,
        )

    def add_result(self, outcome: ToolOutcome) -> None:
        """The TOOL message of ``outcome``, with the outcome kept beside it."""
        self.outcomes[len(self.transcript)] = outcome
        call = outcome.call
        self.transcript.append(
            AgentMessage(MessageRole.TOOL, outcome.text, tool_call_id=call.id, name=call.name)
        )

    def persona_instructions(self) -> list[str]:
        """The caller's and persona's instructions, then (for a session in another language than
        English) the line asking for the answer in it: the system prompt of the calls without
        tools (the forced answer, the other loops' steps) starts here."""
        parts = persona_instructions(self.incoming, self.setup.config.system_prompt)
        language = answer_language_line(self.lang)
        return [*parts, language] if language else parts

    def for_brain(self, messages: list[AgentMessage]) -> list[AgentMessage]:
        """``messages`` as this brain takes them (the system message folded in for one that drops it)."""
        return messages if self.setup.brain.keeps_system else fold_system(messages)

    def _with_system_prompt(self, messages: list[AgentMessage]) -> list[AgentMessage]:
        """One leading system message: the persona's instructions, then the tool protocol. The
        answer's language is not in it (see ``model_call.brain_messages``): the tool list after it
        stays in the server's prompt cache whatever language a session speaks."""
        parts = persona_instructions(self.incoming, self.setup.config.system_prompt)
        toolset = self.setup.toolset
        if toolset.tools:
            offered = self.offered.tools() if self.offered is not None else toolset.tools
            parts.append(text_tool_prompt(offered) if self.setup.text_mode else NATIVE_GUIDANCE)
        rest = [m for m in messages if m.role != MessageRole.SYSTEM]
        return ([AgentMessage(MessageRole.SYSTEM, "\n\n".join(parts))] if parts else []) + rest
