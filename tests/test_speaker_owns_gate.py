"""A turn speaks through one object, its ``Speaker`` (``_turn/speaker.py``): measured from the source,
no other module reads or writes the stream gate's fields, and THE model call stays the brain loop
and its events."""

from __future__ import annotations

import ast
from pathlib import Path

from ovos_agentic_loop._turn.speaker import Pass, Say, Speaker

PACKAGE = Path(__file__).resolve().parent.parent / "ovos_agentic_loop"
GATE_MODULE = PACKAGE / "_text" / "stream_gate.py"
SPEAKER_MODULE = PACKAGE / "_turn" / "speaker.py"
MAX_CALL_LINES = 30


def _class(tree: ast.Module, name: str) -> ast.ClassDef:
    return next(node for node in tree.body if isinstance(node, ast.ClassDef) and node.name == name)


def gate_fields() -> set[str]:
    """The attributes of ``FinalAnswerGate``: what its ``__init__`` sets on ``self``, and its properties."""
    gate = _class(ast.parse(GATE_MODULE.read_text(encoding="utf-8")), "FinalAnswerGate")
    fields = {
        node.name
        for node in gate.body
        if isinstance(node, ast.FunctionDef)
        and any(isinstance(d, ast.Name) and d.id == "property" for d in node.decorator_list)
    }
    init = next(node for node in gate.body if isinstance(node, ast.FunctionDef) and node.name == "__init__")
    for node in ast.walk(init):
        targets = node.targets if isinstance(node, ast.Assign) else [getattr(node, "target", None)]
        for target in targets:
            if isinstance(target, ast.Attribute) and getattr(target.value, "id", "") == "self":
                fields.add(target.attr)
    return fields


def gate_accesses(source: str, fields: set[str]) -> list[str]:
    """Where ``source`` reads or writes one of ``fields`` on anything but its own ``self``."""
    found = []
    for node in ast.walk(ast.parse(source)):
        own = getattr(getattr(node, "value", None), "id", "") == "self"
        if isinstance(node, ast.Attribute) and node.attr in fields and not own:
            found.append(f"{node.lineno}: .{node.attr}")
    return found


def test_the_gates_fields_are_found() -> None:
    assert {"passed_chars", "held", "part"} <= gate_fields()


def test_the_check_sees_a_read_and_a_write_of_the_gate() -> None:
    fields = gate_fields()
    assert gate_accesses("turn.gate.held = ''\nx = turn.gate.passed_chars\n", fields) == [
        "1: .held",
        "2: .passed_chars",
    ]
    assert gate_accesses("self.held = ''\n", fields) == []


def test_only_the_speaker_touches_the_gate() -> None:
    fields = gate_fields()
    touching = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        if path in (GATE_MODULE, SPEAKER_MODULE):
            continue
        found = gate_accesses(path.read_text(encoding="utf-8"), fields)
        if found:
            touching[str(path.relative_to(PACKAGE))] = found
    assert touching == {}


def test_only_the_speaker_makes_a_gate() -> None:
    """The turn's gates are made in one place: the speaker (the gate's own tests make their own)."""
    makers = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if path in (GATE_MODULE, SPEAKER_MODULE):
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and any(a.name == "FinalAnswerGate" for a in node.names):
                makers.append(str(path.relative_to(PACKAGE)))
    assert makers == []


def test_the_model_call_is_the_brain_loop_and_its_events() -> None:
    tree = ast.parse((PACKAGE / "_turn" / "model_call.py").read_text(encoding="utf-8"))
    call = next(node for node in tree.body if isinstance(node, ast.FunctionDef) and node.name == "call")
    assert call.end_lineno is not None
    assert call.end_lineno - call.lineno + 1 <= MAX_CALL_LINES


def test_gate_and_pass_are_declared_once() -> None:
    declared: dict[str, list[str]] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            if isinstance(node, ast.ClassDef) and node.name.lstrip("_") in ("Gate", "Pass"):
                declared.setdefault(node.name.lstrip("_"), []).append(str(path.relative_to(PACKAGE)))
    assert declared == {"Gate": ["_turn/speaker.py"], "Pass": ["_turn/speaker.py"]}


def test_the_speaker_says_what_was_spoken_so_far() -> None:
    speaker = Speaker()
    said = speaker.reply(Say(Pass()))
    out = [said.hear(d) for d in ("It is ", "42. And", " then")]
    assert "".join(out) + "".join(said.end(lambda: False)) == "It is 42. And then"
    assert speaker.spoken() == "It is 42. And then"
    assert speaker.reply_begun()
    assert speaker.rest("It is 42. And then some.") == " some."


def test_a_held_reply_is_said_by_the_rest_unless_dropped() -> None:
    held = Say(Pass(), hold=True, release=lambda _written: False)
    for drop, rest in ((False, "It is 42."), (True, "It is 7.")):
        speaker = Speaker()
        said = speaker.reply(held)
        assert said.hear("It is 42.") == "" and said.end(lambda: False) == []
        assert speaker.spoken() == "" and not speaker.reply_begun()
        if drop:
            speaker.drop_held()
        assert speaker.rest("It is 42." if not drop else "It is 7.") == rest
