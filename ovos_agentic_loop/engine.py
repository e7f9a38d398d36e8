"""The chat-engine plugins: ``ovos-react-loop`` and ``ovos-native-toolcall-loop``.

A persona lists one of them in ``handlers``; the engine loads its brain and
toolboxes from its own persona section (see :mod:`ovos_agentic_loop.config`) and
runs a :class:`~ovos_agentic_loop._turn.turn.Turn` for every ``continue_chat`` call.
The instance holds only configuration and shared resources (brain, toolboxes, a
thread pool, the conversations' memory store); every turn's state lives in its own
``Turn``, so one instance serves many sessions at once.
"""

from __future__ import annotations

import atexit
import datetime as dt
import functools
import logging
import threading
import time
import weakref
from collections.abc import Callable, Generator, Iterable, Iterator
from typing import Any

from ovos_plugin_manager.templates.agent_tools import ToolBox
from ovos_plugin_manager.templates.agents import AgentMessage, ChatEngine, MessageRole, ToolCall
from ovos_utils.log import LOG

from ovos_agentic_loop._confirmation import Confirmation
from ovos_agentic_loop._confirmation.bus import BusAnswers
from ovos_agentic_loop._confirmation.policy import ConfirmPolicy
from ovos_agentic_loop._confirmation.sessions import last_words, running_turns
from ovos_agentic_loop._confirmation.voice_bus import EngineBus, message_on_stack, voice_listeners
from ovos_agentic_loop._memory import ConversationMemory, Recall, corrected_call
from ovos_agentic_loop._runtime import cancellation as cancellation
from ovos_agentic_loop._runtime.cancellation import CancelScope
from ovos_agentic_loop._runtime.daemon_pool import shared_pool
from ovos_agentic_loop._runtime.lifecycle import BuiltToolbox, close_toolboxes
from ovos_agentic_loop._runtime.loading import (
    load_brain,
    load_toolboxes,
    prepare_brain,
    require_installed_brain,
)
from ovos_agentic_loop._runtime.log import ovos_logger
from ovos_agentic_loop._runtime.loop_names import loop_name
from ovos_agentic_loop._text.progress import ProgressHook
from ovos_agentic_loop._tools.toolset import CallerTools, PersonaTools, ToolSet
from ovos_agentic_loop._turn.brain_call import BrainHandle
from ovos_agentic_loop._turn.state import TurnSetup
from ovos_agentic_loop._turn.turn import Turn
from ovos_agentic_loop.config import LoopConfig, LoopPlan, Mode, parse_config
from ovos_agentic_loop.events import (
    BUS_CONFIRM_TOPIC,
    BUS_STEP_TOPIC,
    ConfirmStep,
    Progress,
    StepEvent,
    StepListener,
    progress_speech,
)

__all__ = ["AgentLoopEngine", "NativeToolCallEngine", "ReActLoopEngine"]


WARM_UP_MESSAGE = "Reply with the single word OK."
#: Shown (as a step event) when a turn waits for the warm-up, which may take a minute on a CPU.
WARM_UP_PROGRESS = "reading the tool list, first time only..."


#: Engines holding toolboxes they built: shut down at interpreter exit if no one did it before.
_LIVE_ENGINES: weakref.WeakSet[AgentLoopEngine] = weakref.WeakSet()


@atexit.register
def _shut_down_live_engines() -> None:
    for engine in list(_LIVE_ENGINES):
        engine.shutdown()


class AgentLoopEngine(ChatEngine):
    """A ``ChatEngine`` that runs a tool-calling agent loop around another chat plugin (the brain).

    Args:
        config: the persona's section for this engine (see :class:`LoopConfig`).
        brain: a ``ChatEngine`` to use instead of loading ``config["brain"]``.
        toolboxes: ``ToolBox`` instances to use instead of loading ``config["toolboxes"]``.
        extra_toolboxes: ``ToolBox`` instances offered after the persona's (e.g. plain functions made a
            toolbox by :mod:`ovos_agentic_loop.function_tools`); a persona tool wins a name collision.
        bus: a messagebus client; toolboxes are bound to it and step events are emitted on it.
            Without one, the engine may connect its own (``voice_bus``; see
            :mod:`ovos_agentic_loop._confirmation.voice_bus`): ovos-persona under ovos-core gives none.
        persona: the whole persona JSON, when the caller has it: a toolbox section missing from
            ``config`` is then looked for at its top level (ovos-persona passes only ``config``).

    Lifecycle: :meth:`shutdown` closes every toolbox the engine built itself (``close()`` where the
    toolbox has one, and any child process it left running); ovos-persona's ``QuestionSolversService``
    calls it, the CLI calls it at exit, and an engine nobody shut down is shut down when the
    interpreter exits. Toolboxes handed in (``toolboxes=``, ``extra_toolboxes=``) stay the caller's.
    """

    #: Callers (ovos-persona-server) may pass their own tools; see ``continue_chat``.
    supports_tools = True
    engine_name = "ovos-agentic-loop"
    default_mode: Mode = "auto"
    #: The clock the loop's date rules read (today's date, once per turn); set on an engine it is
    #: that engine's clock, which is how the tests run the loop on each day of a week.
    today: Callable[[], dt.date] = staticmethod(dt.date.today)
    #: The wall clock the conversation memory dates its turns by (``memory_max_age``); set on an
    #: engine it is that engine's clock, which is how the tests age a conversation without waiting.
    memory_clock: Callable[[], float] = staticmethod(time.time)

    def __init__(
        self,
        config: dict[str, Any] | None = None,
        *,
        brain: ChatEngine | None = None,
        toolboxes: Iterable[ToolBox] | None = None,
        extra_toolboxes: Iterable[ToolBox] | None = None,
        bus: Any = None,
        persona: dict[str, Any] | None = None,
    ) -> None:
        super().__init__(config=config)
        self.settings: LoopConfig = parse_config(
            self.core_section(config), engine_name=self.engine_name, default_mode=self.default_mode
        )
        if self.settings.context_plugins:  # prompts of opm.agents.memory plugins (e.g. AGENTS.md)
            from ovos_agentic_loop.context.loop_context import with_context

            self.settings = with_context(self.settings, engine_name=self.engine_name)
        self._plan = LoopPlan.from_settings(self.engine_name, self.settings, persona)
        # The conversations' memory: a shared store, no turn's state (``_memory``); a setting that
        # cannot work fails here, before any toolbox is built.
        self._memory = ConversationMemory.of(
            self.settings,
            engine_name=self.engine_name,
            config=config,
            persona=persona,
            clock=lambda: self.memory_clock(),
        )
        self.bus = bus
        self._caller_tools = CallerTools(
            accept_toolboxes=self.settings.caller_toolboxes, engine_name=self.engine_name
        )
        self._listeners: list[StepListener] = []
        #: A host's or persona's own progress lines: ``(tool, arguments, lang) -> str | None``
        #: (``_text.progress``); None keeps the persona's ``progress_lines`` and the toolboxes' phrases.
        self.progress_lines: ProgressHook | None = None
        self._lock = threading.Lock()
        settings = self.settings
        self._confirmation = Confirmation(
            ConfirmPolicy(tuple(settings.confirm_tools), settings.confirm_side_effects),
            key=settings.confirm_key,
            expiry=settings.confirm_expiry,
            engine_name=self.engine_name,
            section=config,
        )
        # A GUI may answer a question on the bus instead of the user's voice; on a voice assistant's
        # bus the engine also hears "stop" and reopens the microphone after its question.
        self._voice = EngineBus(
            bus,
            settings.voice_bus,
            engine_name=self.engine_name,
            attach=BusAnswers(self._confirmation, self._carry_out_for_bus).listen,
        )
        self._brain: BrainHandle | None = None
        self._brain_prepared = False
        if brain is not None:
            self.set_brain(brain)
        elif self.settings.brain:
            require_installed_brain(self.settings.brain, engine_name=self.engine_name)
        self._built: list[BuiltToolbox] = []  # what this engine must close; see shutdown()
        if toolboxes is None:
            self._built = load_toolboxes(
                self._plan.toolbox_sources.values(), bus=bus, engine_name=self.engine_name
            )
            toolboxes = [built.toolbox for built in self._built]
            if self._built:
                _LIVE_ENGINES.add(self)
        self._tools = PersonaTools([*toolboxes, *(extra_toolboxes or [])], engine_name=self.engine_name)
        self._confirmation.check(self._tools.toolboxes)
        self.warmed_up = threading.Event()
        self._warm_up_scope = CancelScope()  # a turn that stops waiting for the warm-up cancels it
        # Last, so the brain loads while the caller goes on, not while the toolboxes above load: both
        # are imports, and two threads importing at once share one interpreter lock, so an earlier
        # start only slowed the toolboxes' loading.
        if self.settings.warm_up:
            shared_pool().submit(self._warm_up)  # which loads the brain first thing
        elif self._brain is None:
            shared_pool().submit(self._load_brain_early)

    # -- wiring (compatible with upstream ovos-agentic-loop) -------------------------
    @property
    def brain(self) -> ChatEngine:
        """The brain, ready for its first request; loading it starts in the background at construction
        (this waits for that)."""
        return self._brain_handle().engine

    def _load_brain_early(self) -> None:
        """Background, from the end of construction on: load the brain plugin, which starts its own
        preparation (``ovos-openai-brain`` imports ``openai`` and builds its client in a thread of its
        own), so the first question does not pay for it. Without this the brain loaded at the first
        question, however long after construction it came. Not prepared here: this pool thread would
        only wait for the brain's, and the next engine's load would need another one."""
        try:
            self._loaded_brain()
        except Exception as exc:  # noqa: BLE001 - the first turn loads it again and raises the error there
            ovos_logger(__name__).debug(f"{self.engine_name}: loading the brain early failed: {exc!r}")

    def set_brain(self, brain: ChatEngine) -> None:
        """Use ``brain`` for every following turn."""
        name = self.settings.brain or type(brain).__name__
        self._brain = BrainHandle.wrap(brain, name)
        self._brain_prepared = False
        if not self._brain.keeps_system:
            LOG.warning(
                f"{self.engine_name}: brain {name!r} drops system messages ('allow_system_prompts' is off), "
                "so the loop puts its instructions into the first user message instead; set "
                f'"allow_system_prompts": true in the {name!r} section to give them their proper place'
            )
        if self.settings.mode == "native" and not self._brain.supports_tools:
            LOG.warning(
                f"{self.engine_name}: mode 'native' but brain {name!r} has no native tool calling "
                "(supports_tools is False); using the text protocol instead"
            )

    @property
    def toolboxes(self) -> list[ToolBox]:
        return list(self._tools.toolboxes)

    def load_toolboxes(self, toolboxes: Iterable[ToolBox]) -> None:
        """Replace the persona's toolboxes (the engine closes those it built and no longer uses)."""
        toolboxes = list(toolboxes)
        kept = {id(toolbox) for toolbox in toolboxes}
        with self._lock:
            dropped = [b for b in self._built if id(b.toolbox) not in kept]
            self._built = [b for b in self._built if id(b.toolbox) in kept]
            self._tools = PersonaTools(toolboxes, engine_name=self.engine_name)
        close_toolboxes(dropped, engine_name=self.engine_name)

    def add_toolboxes(self, *toolboxes: ToolBox) -> None:
        """Offer ``toolboxes`` after the current ones (a tool already offered wins a name collision)."""
        with self._lock:
            self._tools = PersonaTools([*self._tools.toolboxes, *toolboxes], engine_name=self.engine_name)

    # -- lifecycle ------------------------------------------------------------------
    def shutdown(self) -> None:
        """Close every toolbox this engine built; idempotent. Their tools are no longer offered.

        ovos-persona's ``QuestionSolversService.shutdown()`` calls this for each handler; a ``with``
        block calls it on leaving. Toolboxes handed in by the caller are not closed: they are the caller's.
        """
        with self._lock:
            built, self._built = self._built, []
            mine = {id(b.toolbox) for b in built}
            kept = [toolbox for toolbox in self._tools.toolboxes if id(toolbox) not in mine]
            self._tools = PersonaTools(kept, engine_name=self.engine_name)
        _LIVE_ENGINES.discard(self)
        close_toolboxes(built, engine_name=self.engine_name)

    def __enter__(self) -> AgentLoopEngine:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.shutdown()

    @property
    def max_iterations(self) -> int:
        return self.settings.max_iterations

    def add_step_listener(self, listener: StepListener) -> None:
        """Call ``listener(StepEvent)`` for every step of every turn (from the turn's thread)."""
        self._listeners.append(listener)

    def remove_step_listener(self, listener: StepListener) -> None:
        self._listeners.remove(listener)

    # -- the ChatEngine contract ----------------------------------------------------
    def continue_chat(
        self,
        messages: list[AgentMessage],
        session_id: str = "default",
        lang: str | None = None,
        units: str | None = None,
        tools: Any = None,
    ) -> AgentMessage:
        """Run one turn and return the final assistant message.

        ``tools``: the caller's client tools (OpenAI tool dicts), offered beside the
        persona's. When the model calls one of them, the returned message carries
        those ``tool_calls`` for the caller to run; send the TOOL results back in the
        next call to continue. Toolboxes the caller hands over are offered only with
        ``caller_toolboxes: true`` (see :mod:`ovos_agentic_loop._tools.toolset`).
        """
        voice = self._voice.for_turn()
        recall = self._memory.recall(session_id, messages, lang)
        turn = self._new_turn(messages, session_id, lang, units, tools, recall=recall)
        refused = self._refused(turn, messages, session_id, lang, voice=voice)
        if refused is not None:
            self._memory.remember(recall, turn.transcript, turn.outcomes, refused.content or "")
            return refused
        self._await_warm_up(turn)
        run = self._run(turn, stream=False)
        with running_turns.running(session_id, turn.interrupt):  # a spoken stop interrupts it
            while True:
                try:
                    next(run)
                except StopIteration as done:
                    final: AgentMessage = done.value
                    break
        if not final.tool_calls:  # the caller's own calls are no answer: its next call carries on
            self._memory.remember(recall, turn.transcript, turn.outcomes, final.content or "")
        return final

    def stream_tokens(
        self,
        messages: list[AgentMessage],
        session_id: str = "default",
        lang: str | None = None,
        units: str | None = None,
        tools: Any = None,
    ) -> Iterator[str]:
        """The final answer's text as the model writes it (tool steps run silently first)."""
        return self._streamed(messages, session_id, lang, units, tools, speech=False)

    def stream_sentences(
        self,
        messages: list[AgentMessage],
        session_id: str = "default",
        lang: str | None = None,
        units: str | None = None,
        tools: Any = None,
    ) -> Iterator[str]:
        """Complete sentences of the final answer, each as soon as it is written (for TTS): as a
        voice can read them, without markdown, LaTeX, code or JSON (``_text.speech``)."""
        return self._streamed(messages, session_id, lang, units, tools, speech=True)

    def _streamed(
        self,
        messages: list[AgentMessage],
        session_id: str,
        lang: str | None,
        units: str | None,
        tools: Any,
        *,
        speech: bool,
    ) -> Iterator[str]:
        """The answer's deltas (or its spoken sentences, ``speech``); the conversation's memory keeps
        what was delivered: all of it, or what went out before the consumer stopped reading (the
        user said stop, a client went away), which is what the user heard."""
        from ovos_agentic_loop._text.speech import spoken

        voice = self._voice.for_turn()
        recall = self._memory.recall(session_id, messages, lang)
        turn = self._new_turn(messages, session_id, lang, units, tools, recall=recall)
        said: list[str] = []
        over = False
        try:
            deltas = self._deltas(turn, messages, session_id, lang, voice)
            for piece in spoken(deltas) if speech else deltas:
                said.append(piece)
                yield piece
            over = True
        finally:
            if (over or said) and turn.ending != "caller_tools":
                self._memory.remember(recall, turn.transcript, turn.outcomes, "".join(said))

    def _deltas(
        self, turn: Turn, messages: list[AgentMessage], session_id: str, lang: str | None, voice: bool
    ) -> Iterator[str]:
        refused = self._refused(turn, messages, session_id, lang, voice=voice)
        if refused is not None:
            yield refused.content or ""
            return
        self._await_warm_up(turn)
        run = self._run(turn, stream=True)
        with running_turns.running(session_id, turn.interrupt):  # a spoken stop interrupts it
            yield from self._run_deltas(turn, run)

    @staticmethod
    def _run_deltas(turn: Turn, run: Generator[str, None, AgentMessage]) -> Iterator[str]:
        while True:
            try:
                delta = next(run)
            except StopIteration as done:
                final: AgentMessage = done.value
                break
            turn.progress_voice.heard()  # said: a progress line waits for a new silence
            yield delta
        # The part of the answer the gate held back (or all of it, from a call that could not stream).
        rest = turn.unspoken(final)
        if rest:
            yield rest

    # -- internals ------------------------------------------------------------------
    def _run(self, turn: Turn, *, stream: bool) -> Generator[str, None, AgentMessage]:
        """The reasoning loop of this engine over ``turn``: the ReAct loop here; the other loops
        (``ovos_agentic_loop.loops``) run their strategy instead."""
        return turn.run(stream=stream)

    @classmethod
    def core_section(cls, config: dict[str, Any] | None) -> dict[str, Any] | None:
        """The part of the persona section that ``LoopConfig`` parses (a loop takes out its own keys)."""
        return config

    def _await_warm_up(self, turn: Turn) -> None:
        """A turn that starts during the warm-up waits for it, within the turn's own time budget.

        The warm-up is reading the very prefix the turn needs; a second request in parallel would
        only halve a CPU server's speed. The wait is part of the turn's budget (the turn's clock
        started before it), and when the budget runs out first the warm-up is cancelled, so the
        server is not left computing it.
        """
        if not self.settings.warm_up or self.warmed_up.is_set():
            return
        turn.progress(WARM_UP_PROGRESS)
        if not self.warmed_up.wait(max(0.0, turn.deadline - time.monotonic())):
            self._warm_up_scope.cancel()

    def _warm_up(self) -> None:
        """Prime the brain: its prompt cache gets this persona's system prompt and tool list."""
        started = time.monotonic()
        try:
            turn = self._new_turn(
                [AgentMessage(MessageRole.USER, WARM_UP_MESSAGE)], "warm-up", None, None, None
            )
            with cancellation.active(self._warm_up_scope):
                turn.warm_up()
        except Exception as exc:  # noqa: BLE001 - reported; the first real turn will meet (and raise) it again
            LOG.warning(f"{self.engine_name}: warm-up failed ({type(exc).__name__}: {exc})")
        else:
            ovos_logger(__name__).info(f"{self.engine_name}: warmed up in {time.monotonic() - started:.1f} s")
        finally:
            self.warmed_up.set()

    def _new_turn(
        self,
        messages: list[AgentMessage],
        session_id: str,
        lang: str | None,
        units: str | None,
        tools: Any,
        *,
        recall: Recall | None = None,
    ) -> Turn:
        brain = self._brain_handle()
        toolset: ToolSet = self._tools.current()
        if tools:
            toolset = self._caller_tools.add_to(toolset, tools)
        text_mode = self.settings.mode == "text" or not brain.supports_tools
        # Under a voice assistant the turn's bus message: a progress line is said in its session.
        origin = message_on_stack() if self._voice.current() is not None else None
        setup = TurnSetup(
            engine_name=self.engine_name,
            config=self.settings,
            brain=brain,
            toolset=toolset,
            text_mode=text_mode,
            executor=shared_pool(),
            emit=self._emit if origin is None else functools.partial(self._emit, origin=origin),
            confirm=self._confirmation,
            today=self.today,
            progress_hook=self.progress_lines,
        )
        if recall is None:
            return Turn(setup, list(messages), session_id=session_id, lang=lang, units=units)
        redo = self._redo(recall, toolset, lang)
        return Turn(
            setup,
            recall.messages,
            session_id=session_id,
            lang=lang,
            units=units,
            earlier_calls=recall.call_ids,
            first_calls=(redo,) if redo is not None else (),
        )

    def _redo(self, recall: Recall, toolset: ToolSet, lang: str | None) -> ToolCall | None:
        """The last turn's calculation with the number the user corrected, when it can be told for
        sure and runs without a yes; else None (the model sees the remembered call and decides)."""
        last, correction = recall.last, recall.correction
        calculator = toolset.with_role("calculator")
        if last is None or correction is None or calculator is None:
            return None
        spec, role = calculator
        call = corrected_call(correction, last, spec.name, role.argument, lang)
        owner = toolset.owners.get(spec.name)
        if call is None or self._confirmation.needs_yes(spec, getattr(owner, "config", None)):
            return None
        return call

    def _refused(
        self, turn: Turn, messages: list[AgentMessage], session_id: str, lang: str | None, *, voice: bool
    ) -> AgentMessage | None:
        """A yes that must run nothing here (its question was stopped, or another persona asked it)
        ends the turn with one line that says so; no model call (the model would answer a bare
        "yes" with whatever it guesses)."""
        line = self._confirmation.refusal(messages, session=session_id, lang=lang or turn.lang, voice=voice)
        return None if line is None else turn.finish(line, "declined")

    def _carry_out_for_bus(self, session_id: str, call: Any) -> Any:
        """Run a pending call a GUI said yes to on the bus: the tool steps of a turn, no model call."""
        turn = self._new_turn([], session_id, None, None, None)
        turn.emit(
            ConfirmStep(
                tool=call.name,
                arguments=call.arguments,
                id=call.id[len("call_") :],
                decision="yes",
                data={"source": "bus"},
            )
        )
        return turn.carry_out(call)

    def _brain_handle(self) -> BrainHandle:
        """The brain, loaded and prepared (see :func:`~ovos_agentic_loop._runtime.loading.prepare_brain`)."""
        brain = self._loaded_brain()
        if not self._brain_prepared:  # outside the lock: this may wait for the brain's own warm-up
            try:
                prepare_brain(brain.engine)
            except Exception as exc:  # noqa: BLE001 - reported; the brain's own request meets it again
                LOG.warning(
                    f"{self.engine_name}: preparing brain {brain.name!r} failed "
                    f"({type(exc).__name__}: {exc}); its first request will try again and report the error"
                )
            self._brain_prepared = True
        return brain

    def _loaded_brain(self) -> BrainHandle:
        if self._brain is None:
            with self._lock:
                if self._brain is None:
                    engine = load_brain(
                        self._plan.brain, self._plan.brain_section, engine_name=self.engine_name
                    )
                    self.set_brain(engine)
        assert self._brain is not None
        return self._brain

    def _emit(self, event: StepEvent, origin: Any = None) -> None:
        """Log ``event``, put it on the bus and hand it to the listeners; ``origin``: the bus message
        the turn runs under, in whose session a progress line is spoken."""
        kind, session_id, data = event.kind, event.session_id, event.data
        if kind in ("final", "notice"):  # once or twice a turn
            ovos_logger(__name__).info(f"{self.engine_name} [{session_id}] {kind}: {_brief(data)}")
        elif _debug_enabled():  # checked first: formatting every step is per-step cost
            ovos_logger(__name__).debug(f"{self.engine_name} [{session_id}] {kind}: {_brief(data)}")
        if kind == "final" and data.get("reason") != "confirm":  # an answer: no question is open now
            last_words.spoke(session_id)
        bus = self._voice.current()
        if bus is not None:
            try:
                from ovos_bus_client.message import Message

                bus.emit(Message(BUS_STEP_TOPIC, {"engine": self.engine_name, **event.as_dict()}))
                if isinstance(event, Progress) and origin is not None:
                    bus.emit(origin.forward("speak", progress_speech(event, self.engine_name)))
                if kind == "confirm" and data.get("decision") == "asked":
                    payload = {"engine": self.engine_name, "session": session_id, **data}
                    bus.emit(Message(BUS_CONFIRM_TOPIC, payload))
                    listeners = voice_listeners(bus)
                    if listeners is not None and data.get("token"):
                        listeners.expect_answer(session_id, str(data["token"]), self.settings.confirm_expiry)
            except Exception as exc:  # noqa: BLE001 - a broken bus must not break the turn; reported
                LOG.warning(f"{self.engine_name}: could not emit step event on the bus: {exc}")
        for listener in list(self._listeners):
            try:
                listener(event)
            except Exception as exc:  # noqa: BLE001 - a listener's bug must not break the turn; reported
                LOG.warning(
                    f"{self.engine_name}: step listener {listener!r} raised {type(exc).__name__}: {exc}"
                )


def _debug_enabled() -> bool:
    # LOG.is_enabled_for exists only in newer ovos-utils; older ones keep the level in LOG.level.
    check = getattr(LOG, "is_enabled_for", None)
    if check is not None:
        return bool(check(logging.DEBUG))
    level = getattr(LOG, "level", logging.INFO)
    return (logging.getLevelName(level) if isinstance(level, str) else level) <= logging.DEBUG


def _brief(data: dict[str, Any], limit: int = 300) -> str:
    text = ", ".join(f"{k}={v!r}" for k, v in data.items() if v not in (None, [], {}))
    return text if len(text) <= limit else text[:limit] + "..."


class ReActLoopEngine(AgentLoopEngine):
    """``ovos-react-loop``: native tool calls when the brain supports them, the text protocol otherwise,
    and calls written in the reply text are run either way (``mode: auto``)."""

    engine_name = loop_name("ReActLoopEngine")
    default_mode: Mode = "auto"


class NativeToolCallEngine(AgentLoopEngine):
    """``ovos-native-toolcall-loop``: the same loop in ``mode: native`` (the brain's native tool calls)."""

    engine_name = loop_name("NativeToolCallEngine")
    default_mode: Mode = "native"
