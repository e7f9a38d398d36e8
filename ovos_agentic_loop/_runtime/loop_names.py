"""The names of this project's loops, written once: each ``opm.agents.chat`` entry point, the engine
class it loads and one line on what a turn does.

The engine classes take their ``engine_name`` from here, and so do the config's list of loop names
(a name that can never be a brain) and doctor. ``pyproject.toml``'s entry points and the README's
loop tables cannot import a module, so ``tests/test_loop_names.py`` checks them against this one.
Importing it costs nothing (no imports beyond ``dataclasses``): the config module needs it early.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["LOOPS", "LOOP_NAMES", "LoopEntry", "loop_name"]


@dataclass(frozen=True)
class LoopEntry:
    """One loop: its entry-point name, the ``module:Class`` it loads (as in pyproject.toml), what it does."""

    name: str
    target: str
    summary: str

    @property
    def class_name(self) -> str:
        return self.target.partition(":")[2]


#: Every loop this project installs, in the order the README and pyproject list them.
LOOPS: tuple[LoopEntry, ...] = (
    LoopEntry(
        "ovos-react-loop",
        "ovos_agentic_loop.engine:ReActLoopEngine",
        "native tool calls when the brain has them, the ReAct text protocol otherwise (mode auto)",
    ),
    LoopEntry(
        "ovos-native-toolcall-loop",
        "ovos_agentic_loop.engine:NativeToolCallEngine",
        "the same loop in mode native: the brain's native tool calls",
    ),
    LoopEntry(
        "ovos-plan-execute-loop",
        "ovos_agentic_loop.loops:PlanExecuteLoopEngine",
        "plan, run each step with tools, re-plan on failure, synthesise",
    ),
    LoopEntry(
        "ovos-reflexion-loop",
        "ovos_agentic_loop.loops:ReflexionLoopEngine",
        "answer with tools, judge the answer, retry with the reflection",
    ),
    LoopEntry(
        "ovos-self-ask-loop",
        "ovos_agentic_loop.loops:SelfAskLoopEngine",
        "follow-up questions answered with tools, then the answer",
    ),
    LoopEntry(
        "ovos-chain-of-thought-loop",
        "ovos_agentic_loop.loops:ChainOfThoughtLoopEngine",
        "reasoning, then the answer; the reasoning is never spoken",
    ),
    LoopEntry(
        "ovos-critic-loop",
        "ovos_agentic_loop.loops:CriticLoopEngine",
        "draft, critique (doubts checked with tools), revise",
    ),
    LoopEntry(
        "ovos-tree-of-thoughts-loop",
        "ovos_agentic_loop.loops:TreeOfThoughtsLoopEngine",
        "candidate thoughts scored per level, the best carried out",
    ),
)

#: The entry-point names alone: a persona handler that reads a loop section, and a name that can
#: never be a brain.
LOOP_NAMES: frozenset[str] = frozenset(loop.name for loop in LOOPS)


def loop_name(class_name: str) -> str:
    """The entry-point name of the engine class called ``class_name`` (its ``engine_name``)."""
    for loop in LOOPS:
        if loop.class_name == class_name:
            return loop.name
    raise LookupError(
        f"engine class {class_name!r} has no entry in ovos_agentic_loop._runtime.loop_names.LOOPS; "
        "add it there and to pyproject.toml's opm.agents.chat entry points"
    )
