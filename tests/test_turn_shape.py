"""``Turn`` keeps the turn's state and its dispatch; each job lives in a module of ``_turn/`` of its own.
Measured from the source: the class stays short, and every ``match`` in the package (on a decision or
a rule's answer) ends in ``case _: assert_never(...)``, so mypy proves its cases cover the union."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "ovos_agentic_loop"
MAX_TURN_LINES = 250


def _class(path: Path, name: str) -> ast.ClassDef:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return next(node for node in tree.body if isinstance(node, ast.ClassDef) and node.name == name)


def _ends_in_assert_never(match: ast.Match) -> bool:
    last = match.cases[-1]
    wildcard = isinstance(last.pattern, ast.MatchAs) and last.pattern.pattern is None and last.guard is None
    call = last.body[0] if len(last.body) == 1 else None
    return (
        wildcard
        and isinstance(call, ast.Expr)
        and isinstance(call.value, ast.Call)
        and isinstance(call.value.func, ast.Name)
        and call.value.func.id == "assert_never"
    )


def test_the_turn_class_is_short() -> None:
    turn = _class(PACKAGE / "_turn" / "turn.py", "Turn")
    assert turn.end_lineno is not None
    assert turn.end_lineno - turn.lineno + 1 <= MAX_TURN_LINES


def test_every_match_ends_in_assert_never() -> None:
    matches = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Match):
                matches[f"{path.relative_to(PACKAGE)}:{node.lineno}"] = _ends_in_assert_never(node)
    assert matches, "the dispatcher's match was not found"
    assert [where for where, ok in matches.items() if not ok] == []


def test_the_check_tells_an_open_match_from_a_closed_one() -> None:
    closed, open_ = (
        ast.parse(f"match x:\n    case 1:\n        pass\n    case _:\n        {last}\n").body[0]
        for last in ("assert_never(x)", "pass")
    )
    assert isinstance(closed, ast.Match) and isinstance(open_, ast.Match)
    assert _ends_in_assert_never(closed) and not _ends_in_assert_never(open_)


def test_step_events_are_built_typed_where_they_happen() -> None:
    """``turn.emit(Notice(message=...))``, never a kind string and loose keyword arguments: a
    misspelt field is then a type error, not a key nobody reads."""
    loose = []
    for path in sorted(PACKAGE.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
                continue
            if node.func.attr != "emit" or getattr(node.func.value, "id", "") == "bus":
                continue
            first = node.args[0] if node.args else None
            if node.keywords or isinstance(first, ast.Constant):
                loose.append(f"{path.relative_to(PACKAGE)}:{node.lineno}")
    assert loose == []
