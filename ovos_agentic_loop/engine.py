"""The chat-engine plugins: ``ovos-react-loop`` and ``ovos-native-toolcall-loop``.

A persona lists one of them in ``handlers``; the engine loads its brain and
toolboxes from its own persona section (see :mod:`ovos_agentic_loop.config`) and
runs a :class:`~ovos_agentic_loop._turn.turn.Turn` for every ``continue_chat`` call.
The instance holds only configuration and shared resources (brain, toolboxes, a
thread pool); every turn's state lives in its own ``Turn``, so one instance serves
many sessions at once.
"""

from __future__ import annotations

import datetime as dt
import time
from collections.abc import Callable, Generator, Iterable, Iterator
from functools import partial
from typing import Any

from ovos_plugin_manager.templates.agent_tools import ToolBox
from ovos_plugin_manager.templates.agents import AgentMessage, ChatEngine, MessageRole

from ovos_agentic_loop._confirmation.voice_bus import message_on_stack
from ovos_agentic_loop._confirmation.wiring import wire
from ovos_agentic_loop._memory import ConversationMemory, Recall
from ovos_agentic_loop._runtime.brain_slot import BrainSlot
from ovos_agentic_loop._runtime.daemon_pool import shared_pool
from ovos_agentic_loop._runtime.loading import load_brain, require_installed_brain
from ovos_agentic_loop._runtime.loop_names import loop_name
from ovos_agentic_loop._runtime.warm_up import WARM_UP_MESSAGE, WarmUp
from ovos_agentic_loop._text.progress import ProgressHook
from ovos_agentic_loop._tools.engine_toolboxes import EngineToolboxes
from ovos_agentic_loop._tools.toolset import CallerTools, ToolSet
from ovos_agentic_loop._turn import driving
from ovos_agentic_loop._turn.brain_call import BrainHandle
from ovos_agentic_loop._turn.state import TurnSetup
from ovos_agentic_loop._turn.turn import Turn
from ovos_agentic_loop.config import LoopConfig, LoopPlan, Mode, parse_config
from ovos_agentic_loop.events import StepListener

__all__ = ["AgentLoopEngine", "NativeToolCallEngine", "ReActLoopEngine"]


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

    Lifecycle: see :meth:`shutdown`.
    """

    #: Callers (ovos-persona-server) may pass their own tools; see ``continue_chat``.
    supports_tools = True
    engine_name = "ovos-agentic-loop"
    default_mode: Mode = "auto"
    #: The clock the loop's date rules read (today's date, once per turn); set on an engine it is
    #: that engine's clock, which is how the tests run the loop on each day of a week.
    today: Callable[[], dt.date] = staticmethod(dt.date.today)
    #: The wall clock memory dates turns by (``memory_max_age``); tests set an engine's to age them.
    memory_clock: Callable[[], float] = staticmethod(time.time)
    #: A host's own progress lines, ``(tool, arguments, lang) -> str | None`` (``_text.progress``).
    progress_lines: ProgressHook | None = None

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
        name = self.engine_name
        self.settings = settings = _loop_settings(self.core_section(config), name, self.default_mode)
        self._plan = plan = LoopPlan.from_settings(name, settings, persona)
        # A shared store, no turn's state; a setting that cannot work fails before any toolbox is built.
        clock = lambda: self.memory_clock()  # noqa: E731 - read when used: a test sets the engine's
        self._memory = ConversationMemory.of(
            settings, engine_name=name, config=config, persona=persona, clock=clock
        )
        self.bus = bus
        self._caller_tools = CallerTools(accept_toolboxes=settings.caller_toolboxes, engine_name=name)
        wired = wire(settings, config, bus, name, self._carry_out_for_bus)
        self._confirmation, self._voice, self._emit = wired.confirmation, wired.voice, wired.emit
        load = partial(load_brain, plan.brain, plan.brain_section, engine_name=name)
        self._brains: BrainSlot[BrainHandle] = BrainSlot(name, lambda: self._handle(load()))
        if brain is not None:
            self.set_brain(brain)
        elif settings.brain:
            require_installed_brain(settings.brain, engine_name=name)
        sources = plan.toolbox_sources.values() if toolboxes is None else None
        handed_in = [*(toolboxes or []), *(extra_toolboxes or [])]
        self._toolboxes = EngineToolboxes.load(sources, handed_in, bus=bus, engine_name=name)
        self._confirmation.check(self._toolboxes.tools.toolboxes)
        self._warm = WarmUp(name, enabled=settings.warm_up)
        self.warmed_up = self._warm.done
        # Last, so the brain loads (the warm-up loads it first thing) while the caller goes on, not
        # while the toolboxes above load: both are imports, and two threads importing at once share
        # one interpreter lock, so an earlier start only slowed the toolboxes' loading.
        early = self._brains.load_early if self._brains.current is None else None
        self._warm.start(self._warm_up_turn, otherwise=early)

    # -- wiring (compatible with upstream ovos-agentic-loop) -------------------------
    @property
    def brain(self) -> ChatEngine:
        """The brain, ready for its first request (loading it starts in the background at construction)."""
        return self._brains.ready().engine

    def set_brain(self, brain: ChatEngine) -> None:
        """Use ``brain`` for every following turn."""
        self._brains.set(self._handle(brain))

    def _handle(self, brain: ChatEngine) -> BrainHandle:
        """``brain`` as the turns use it; a warning for what it lacks that the loop works around."""
        name = self.settings.brain or type(brain).__name__
        native = self.settings.mode == "native"
        return BrainHandle.checked(brain, name, native=native, engine_name=self.engine_name)

    @property
    def toolboxes(self) -> list[ToolBox]:
        return list(self._toolboxes.tools.toolboxes)

    def load_toolboxes(self, toolboxes: Iterable[ToolBox]) -> None:
        """Replace the persona's toolboxes (the engine closes those it built and no longer uses)."""
        self._toolboxes.replace(toolboxes)

    def add_toolboxes(self, *toolboxes: ToolBox) -> None:
        """Offer ``toolboxes`` after the current ones (a tool already offered wins a name collision)."""
        self._toolboxes.add(toolboxes)

    # -- lifecycle ------------------------------------------------------------------
    def shutdown(self) -> None:
        """Close every toolbox this engine built (``close()`` where the toolbox has one, and any child
        process it left running); idempotent. Their tools are no longer offered.

        ovos-persona's ``QuestionSolversService.shutdown()`` calls this for each handler, the CLI at
        exit, a ``with`` block on leaving; an engine nobody shut down is shut down when the
        interpreter exits. Toolboxes handed in (``toolboxes=``, ``extra_toolboxes=``) are not closed:
        they are the caller's.
        """
        self._toolboxes.shut_down()

    def __enter__(self) -> AgentLoopEngine:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.shutdown()

    @property
    def max_iterations(self) -> int:
        return self.settings.max_iterations

    def add_step_listener(self, listener: StepListener) -> None:
        """Call ``listener(StepEvent)`` for every step of every turn (from the turn's thread)."""
        self._emit.listeners.append(listener)

    def remove_step_listener(self, listener: StepListener) -> None:
        self._emit.listeners.remove(listener)

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
        turn, recall, final = self._begin(messages, session_id, lang, units, tools)
        if final is None:
            final = driving.run_to_end(turn, self._run(turn, stream=False))
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

    def _streamed(self, *request: Any, speech: bool) -> Iterator[str]:
        """The deltas (spoken sentences: ``speech``) for ``request``; memory keeps what was delivered."""
        from ovos_agentic_loop._text.speech import spoken

        turn, recall, refused = self._begin(*request)
        run = self._run(turn, stream=True)  # a generator: nothing runs until it is read
        said = iter([refused.content or ""]) if refused else driving.deltas(turn, run)
        yield from driving.delivered(
            spoken(said, cut_off=lambda: turn.ending == "stopped") if speech else said,
            turn,
            lambda text: self._memory.remember(recall, turn.transcript, turn.outcomes, text),
        )

    # -- internals ------------------------------------------------------------------
    def _run(self, turn: Turn, *, stream: bool) -> Generator[str, None, AgentMessage]:
        """This engine's reasoning loop over ``turn``: ReAct here; ``loops`` run their strategy instead."""
        return turn.run(stream=stream)

    @classmethod
    def core_section(cls, config: dict[str, Any] | None) -> dict[str, Any] | None:
        """The part of the persona section that ``LoopConfig`` parses (a loop takes out its own keys)."""
        return config

    def _begin(
        self, messages: list[AgentMessage], session_id: str, lang: str | None, units: str | None, tools: Any
    ) -> tuple[Turn, Recall, AgentMessage | None]:
        """The turn, with what memory recalls of its conversation, after the warm-up (in its budget);
        and its answer when a yes must run nothing here (stopped, or another persona's question)."""
        voice = self._voice.for_turn()
        recall = self._memory.recall(session_id, messages, lang)
        turn = self._new_turn(messages, session_id, lang, units, tools, recall=recall)
        line = self._confirmation.refusal(messages, session=session_id, lang=lang or turn.lang, voice=voice)
        if line is not None:
            return turn, recall, turn.finish(line, "declined")
        self._warm.wait(turn)
        return turn, recall, None

    def _warm_up_turn(self) -> Turn:
        """The turn that primes the brain: its prompt cache gets this persona's system prompt and tools."""
        return self._new_turn([AgentMessage(MessageRole.USER, WARM_UP_MESSAGE)], "warm-up", None, None, None)

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
        brain = self._brains.ready()
        toolset: ToolSet = self._toolboxes.tools.current()
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
            emit=self._emit if origin is None else partial(self._emit, origin=origin),
            confirm=self._confirmation,
            today=self.today,
            progress_hook=self.progress_lines,
        )
        return driving.turn_of(setup, messages, recall, self._confirmation, session_id, lang, units)

    def _carry_out_for_bus(self, session_id: str, call: Any) -> Any:
        """Run a pending call a GUI said yes to on the bus: the tool steps of a turn, no model call."""
        return self._new_turn([], session_id, None, None, None).carry_out(call)


def _loop_settings(section: dict[str, Any] | None, engine_name: str, default_mode: Mode) -> LoopConfig:
    """The loop's settings from its persona section, with the prompts of its context plugins."""
    settings = parse_config(section, engine_name=engine_name, default_mode=default_mode)
    if settings.context_plugins:  # prompts of opm.agents.memory plugins (e.g. AGENTS.md)
        from ovos_agentic_loop.context.loop_context import with_context

        settings = with_context(settings, engine_name=engine_name)
    return settings


class ReActLoopEngine(AgentLoopEngine):
    """``ovos-react-loop``: native tool calls when the brain supports them, the text protocol otherwise,
    and calls written in the reply text are run either way (``mode: auto``)."""

    engine_name = loop_name("ReActLoopEngine")
    default_mode: Mode = "auto"


class NativeToolCallEngine(AgentLoopEngine):
    """``ovos-native-toolcall-loop``: the same loop in ``mode: native`` (the brain's native tool calls)."""

    engine_name = loop_name("NativeToolCallEngine")
    default_mode: Mode = "native"
