"""The engine stays the public contract and its wiring: its step-event fan-out, its brain's loading,
its warm-up and its toolboxes each live in a module of their own. Measured from the source."""

from __future__ import annotations

import ast
from pathlib import Path

ENGINE = Path(__file__).resolve().parent.parent / "ovos_agentic_loop" / "engine.py"
MAX_ENGINE_LINES = 250


def test_the_engine_class_is_short() -> None:
    tree = ast.parse(ENGINE.read_text(encoding="utf-8"))
    engine = next(n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "AgentLoopEngine")
    assert engine.end_lineno is not None
    assert engine.end_lineno - engine.lineno + 1 <= MAX_ENGINE_LINES
