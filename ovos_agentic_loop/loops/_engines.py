"""One thin chat-engine plugin per reasoning loop, with upstream's entry-point names.

Each is the ReAct engine (brain and toolbox loading, config keys, budgets, events,
streaming) with a strategy in place of the ReAct loop: the loop's own keys are a typed
settings model, taken out of the persona section before ``LoopConfig`` reads the rest.
"""

from __future__ import annotations

from collections.abc import Generator
from typing import Any, ClassVar

from ovos_plugin_manager.templates.agents import AgentMessage
from pydantic import BaseModel

from ovos_agentic_loop._memory import Recall
from ovos_agentic_loop._runtime.loop_names import loop_name
from ovos_agentic_loop._tools.toolset import WarnOnce
from ovos_agentic_loop._turn.turn import Turn
from ovos_agentic_loop.engine import AgentLoopEngine
from ovos_agentic_loop.errors import ConfigError
from ovos_agentic_loop.loops._chain_of_thought import ChainOfThought, ChainOfThoughtSettings
from ovos_agentic_loop.loops._context import Strategy, drive
from ovos_agentic_loop.loops._critic import Critic, CriticSettings
from ovos_agentic_loop.loops._plan_execute import PlanExecute, PlanExecuteSettings
from ovos_agentic_loop.loops._reflexion import Reflexion, ReflexionSettings
from ovos_agentic_loop.loops._self_ask import SelfAsk, SelfAskSettings
from ovos_agentic_loop.loops._tree_of_thoughts import TreeOfThoughts, TreeOfThoughtsSettings
from ovos_agentic_loop_settings import config_errors

__all__ = [
    "ChainOfThoughtLoopEngine",
    "CriticLoopEngine",
    "PlanExecuteLoopEngine",
    "ReflexionLoopEngine",
    "SelfAskLoopEngine",
    "StrategyLoopEngine",
    "TreeOfThoughtsLoopEngine",
]


class StrategyLoopEngine(AgentLoopEngine):
    """An agent loop whose turns run a strategy (``ovos_agentic_loop.loops``) over the turn core.

    Caller tools (``tools=``) are not offered to these loops: their sub-steps run the
    persona's tools themselves and cannot hand a call back to the caller mid-plan, so
    ``supports_tools`` is False and tools passed anyway are ignored with a warning.
    """

    supports_tools = False
    settings_model: ClassVar[type[BaseModel]]
    strategy_class: ClassVar[type[Any]]

    def __init__(self, config: dict[str, Any] | None = None, **kwargs: Any) -> None:
        self.loop_settings: BaseModel = _parse_loop_settings(self.settings_model, config, self.engine_name)
        self._warn_once = WarnOnce(self.engine_name)  # a server passing tools on every call: one line
        super().__init__(config, **kwargs)

    @classmethod
    def core_section(cls, config: dict[str, Any] | None) -> dict[str, Any] | None:
        own = set(cls.settings_model.model_fields)
        return {k: v for k, v in (config or {}).items() if k not in own}

    def _strategy(self) -> Strategy:
        strategy: Strategy = self.strategy_class(self.loop_settings)
        return strategy

    def _run(self, turn: Turn, *, stream: bool) -> Generator[str, None, AgentMessage]:
        return drive(self._strategy(), turn, stream=stream)

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
        if tools:
            self._warn_once(
                "caller-tools",
                "caller tools are not supported by this loop and are ignored; "
                "use ovos-react-loop for a caller that passes its own tools",
            )
        return super()._new_turn(messages, session_id, lang, units, None, recall=recall)


def _parse_loop_settings(
    model: type[BaseModel], config: dict[str, Any] | None, engine_name: str
) -> BaseModel:
    own = {k: v for k, v in (config or {}).items() if k in model.model_fields}
    with config_errors(engine_name, ConfigError):
        return model.model_validate(own)


class PlanExecuteLoopEngine(StrategyLoopEngine):
    """``ovos-plan-execute-loop``: plan, run each step with tools, re-plan on failure, synthesise."""

    engine_name = loop_name("PlanExecuteLoopEngine")
    settings_model = PlanExecuteSettings
    strategy_class = PlanExecute


class ReflexionLoopEngine(StrategyLoopEngine):
    """``ovos-reflexion-loop``: answer with tools, judge it, retry with the reflection."""

    engine_name = loop_name("ReflexionLoopEngine")
    settings_model = ReflexionSettings
    strategy_class = Reflexion


class SelfAskLoopEngine(StrategyLoopEngine):
    """``ovos-self-ask-loop``: follow-up questions answered with tools, then the answer."""

    engine_name = loop_name("SelfAskLoopEngine")
    settings_model = SelfAskSettings
    strategy_class = SelfAsk


class ChainOfThoughtLoopEngine(StrategyLoopEngine):
    """``ovos-chain-of-thought-loop``: reasoning, then the answer; the reasoning is never spoken."""

    engine_name = loop_name("ChainOfThoughtLoopEngine")
    settings_model = ChainOfThoughtSettings
    strategy_class = ChainOfThought


class CriticLoopEngine(StrategyLoopEngine):
    """``ovos-critic-loop``: draft, critique (doubts checked with tools), revise."""

    engine_name = loop_name("CriticLoopEngine")
    settings_model = CriticSettings
    strategy_class = Critic


class TreeOfThoughtsLoopEngine(StrategyLoopEngine):
    """``ovos-tree-of-thoughts-loop``: candidate thoughts scored per level, the best carried out."""

    engine_name = loop_name("TreeOfThoughtsLoopEngine")
    settings_model = TreeOfThoughtsSettings
    strategy_class = TreeOfThoughts
