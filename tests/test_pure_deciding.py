"""Deciding changes nothing: measured from the source, ``reading.decide`` and everything it asks
(the rules, the repeat counts, the corrections, the confirmation's question) store nothing but
local names and call no known mutator on anything else. What a decision counts travels with it as
its ``effects``, recorded by the dispatcher as it carries the decision out (``_turn/tally.py``)."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "ovos_agentic_loop"

#: The module whose every function is deciding, and the queries it asks elsewhere (class, method).
DECIDING_MODULE = "_turn/reading.py"
QUERIES = {
    "_turn/confirming.py": [(None, "held")],
    "_turn/repeats.py": [("CallHistory", "judge")],
    "_turn/limits.py": [("Limits", "correction"), ("Limits", "corrections_spent")],
    "_rules/registry.py": [
        ("Rules", "reaction"),
        ("Rules", "calls_held"),
        ("Rules", "_first"),
        ("Rules", "_asked"),
    ],
    "_confirmation/__init__.py": [("Confirmation", "propose"), ("Confirmation", "needs_yes")],
}

#: Methods and functions that change what they are called on (or the world).
MUTATORS = frozenset(
    {
        "append",
        "extend",
        "insert",
        "pop",
        "remove",
        "clear",
        "add",
        "discard",
        "update",
        "setdefault",
        "emit",
        "offer",
        "offer_called",
        "record",
        "note",
        "claim",
        "asked",
        "react",
        "decide",
        "check_calls",
        "answer_to_question",
        "drop_held",
    }
)

Function = ast.FunctionDef | ast.AsyncFunctionDef


def _functions(tree: ast.Module, wanted: list[tuple[str | None, str]] | None) -> list[Function]:
    """The functions of ``tree`` named in ``wanted`` ((class or None, name)); every one when None."""
    found: list[Function] = []
    for node in tree.body:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            if wanted is None or (None, node.name) in wanted:
                found.append(node)
        elif isinstance(node, ast.ClassDef):
            found += [
                f
                for f in node.body
                if isinstance(f, ast.FunctionDef | ast.AsyncFunctionDef)
                and (wanted is None or (node.name, f.name) in wanted)
            ]
    return found


def _locals(function: Function) -> set[str]:
    """The names ``function`` binds itself (its parameters are not its own objects)."""
    bound: set[str] = set()
    for node in ast.walk(function):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            bound.add(node.id)
    return bound


def _stores(target: ast.expr) -> list[ast.expr]:
    if isinstance(target, ast.Tuple | ast.List):
        return [t for element in target.elts for t in _stores(element)]
    if isinstance(target, ast.Starred):
        return _stores(target.value)
    return [target]


def changes(function: Function) -> list[str]:
    """What ``function`` changes beyond its local names: stores to attributes or items, global or
    nonlocal names, and calls of a known mutator on anything but a local name."""
    own = _locals(function)
    found = []
    for node in ast.walk(function):
        targets: list[ast.expr] = []
        if isinstance(node, ast.Assign):
            targets = [t for target in node.targets for t in _stores(target)]
        elif isinstance(node, ast.AugAssign | ast.AnnAssign):
            targets = _stores(node.target)
        for target in targets:
            if not isinstance(target, ast.Name):
                found.append(f"{function.name}:{node.lineno} stores to {ast.unparse(target)}")
        if isinstance(node, ast.Global | ast.Nonlocal):
            found.append(f"{function.name}:{node.lineno} {type(node).__name__.lower()} {node.names}")
        if isinstance(node, ast.Call):
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            receiver = func.value if isinstance(func, ast.Attribute) else None
            local = isinstance(receiver, ast.Name) and receiver.id in own
            if name in MUTATORS and not local:
                found.append(f"{function.name}:{node.lineno} calls {ast.unparse(func)}")
    return found


def _changes_in(relative: str, wanted: list[tuple[str | None, str]] | None) -> list[str]:
    tree = ast.parse((PACKAGE / relative).read_text(encoding="utf-8"))
    functions = _functions(tree, wanted)
    assert functions, f"nothing to check in {relative}"
    if wanted is not None:
        assert len(functions) == len(wanted), f"{relative}: {wanted} not all found"
    return [f"{relative}:{change}" for function in functions for change in changes(function)]


def test_deciding_changes_nothing() -> None:
    found = _changes_in(DECIDING_MODULE, None)
    for relative, wanted in QUERIES.items():
        found += _changes_in(relative, wanted)
    assert found == []


def test_the_check_sees_each_kind_of_change() -> None:
    source = """
def decide(turn, reply, items):
    mine = []
    mine.append(reply)
    count = 0
    count += 1
    turn.limits.corrections += 1
    items[0] = reply
    turn.history.latest, other = reply, 1
    turn.emit(reply)
    offer_called(turn, items)
    items.append(reply)
"""
    function = _functions(ast.parse(source), None)[0]
    assert changes(function) == [
        "decide:7 stores to turn.limits.corrections",
        "decide:8 stores to items[0]",
        "decide:9 stores to turn.history.latest",
        "decide:10 calls turn.emit",
        "decide:11 calls offer_called",
        "decide:12 calls items.append",
    ]
