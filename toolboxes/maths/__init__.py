"""Exact arithmetic, equations, units and statistics as agent tools (entry point ``ovos-math-tools``).

``toolbox`` holds the tools; its private helpers are ``_parse`` (the ``ast`` allowlist),
``_eval`` (the exact evaluator), ``_solve`` (equations) and ``_units`` (pint conversions).
"""

from __future__ import annotations

from ovos_agentic_loop_toolboxes.maths.toolbox import (
    EvaluateExpressionArgs,
    EvaluateExpressionOutput,
    MathError,
    MathSettings,
    MathToolBox,
)

__all__ = ["EvaluateExpressionArgs", "EvaluateExpressionOutput", "MathError", "MathSettings", "MathToolBox"]
