"""The reasoning loops beside ReAct, each a small strategy over the one turn core.

A strategy (``_plan_execute``, ``_reflexion``, ``_self_ask``, ``_chain_of_thought``,
``_critic``, ``_tree_of_thoughts``) decides what to ask; :mod:`._context` is the seam
through which the core does the rest for it (bounded model calls, ReAct sub-runs with
tools, budgets, step events, the spoken final answer). The engines below are the
``opm.agents.chat`` plugins, named as upstream's.
"""

from __future__ import annotations

from ovos_agentic_loop.loops._engines import (
    ChainOfThoughtLoopEngine,
    CriticLoopEngine,
    PlanExecuteLoopEngine,
    ReflexionLoopEngine,
    SelfAskLoopEngine,
    StrategyLoopEngine,
    TreeOfThoughtsLoopEngine,
)

__all__ = [
    "ChainOfThoughtLoopEngine",
    "CriticLoopEngine",
    "PlanExecuteLoopEngine",
    "ReflexionLoopEngine",
    "SelfAskLoopEngine",
    "StrategyLoopEngine",
    "TreeOfThoughtsLoopEngine",
]
