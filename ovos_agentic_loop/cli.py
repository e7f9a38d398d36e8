"""``ovos-agentic-loop``: run the local server, chat with a persona, diagnose a persona.

    ovos-agentic-loop setup                      install llama-server, fetch the model, write templates
    ovos-agentic-loop server start|stop|status|install [--port N] [--template tools|stock]
    ovos-agentic-loop chat PERSONA [QUESTION]    one question, or an interactive session
    ovos-agentic-loop doctor PERSONA             what would fail silently, and how to fix it

Steps (tool calls, results, timings) go to stderr, the answer to stdout, so
``ovos-agentic-loop chat local-assistant "..." > answer.txt`` keeps only the answer.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any, TextIO

from ovos_agentic_loop.events import StepEvent
from ovos_agentic_loop.local import DEFAULT_PORT

__all__ = ["StepPrinter", "load_persona", "main", "resolve_persona"]

_RESULT_PREVIEW = 160


# -- personas ------------------------------------------------------------------------
def resolve_persona(name_or_path: str) -> Path:
    """A persona JSON path, or ``personas/<name>.json`` relative to the cwd or to this package's parent."""
    direct = Path(name_or_path).expanduser()
    if direct.is_file():
        return direct
    file_name = name_or_path if name_or_path.endswith(".json") else f"{name_or_path}.json"
    roots = [Path.cwd(), Path(__file__).resolve().parent.parent]
    for root in roots:
        candidate = root / "personas" / file_name
        if candidate.is_file():
            return candidate
    searched = ", ".join(str(r / "personas") for r in roots)
    raise SystemExit(f"persona {name_or_path!r} not found: not a file, and no {file_name} in {searched}")


def load_persona(name_or_path: str) -> tuple[Path, dict[str, Any]]:
    path = resolve_persona(name_or_path)
    try:
        persona = json.loads(path.read_text())
    except json.JSONDecodeError as exc:
        raise SystemExit(f"{path}: not valid JSON ({exc})") from exc
    handlers = persona.get("handlers") or persona.get("solvers")
    if not isinstance(persona, dict) or not handlers:
        raise SystemExit(f"{path}: a persona needs a non-empty 'handlers' list of chat plugin names")
    return path, persona


def persona_handler(persona: dict[str, Any]) -> str:
    handlers = persona.get("handlers") or persona.get("solvers") or [""]
    return str(handlers[0])


def build_engine(persona: dict[str, Any]) -> Any:
    """The persona's first handler, built the way ovos-persona builds it."""
    from ovos_plugin_manager.agents import find_chat_plugins, load_chat_plugin

    handler = persona_handler(persona)
    cls = load_chat_plugin(handler)
    if cls is None:
        installed = ", ".join(sorted(find_chat_plugins())) or "none"
        raise SystemExit(f"chat plugin {handler!r} is not installed (installed: {installed}); run doctor")
    return cls(config=persona.get(handler) or {"enabled": True})


# -- live steps ------------------------------------------------------------------------
class StepPrinter:
    """Prints each ``StepEvent`` as one line as it happens."""

    def __init__(self, out: TextIO | None = None) -> None:
        self.out = out  # None: whatever sys.stderr is at print time

    def __call__(self, event: StepEvent) -> None:
        line = self.format(event)
        if line:
            print(line, file=self.out or sys.stderr, flush=True)

    @staticmethod
    def format(event: StepEvent) -> str | None:
        d = event.data
        if event.kind == "turn_start":
            tools = d.get("tools") or []
            return f"  · {d.get('mode', '?')} mode, {len(tools)} tools"
        if event.kind == "model_call":
            calls = d.get("tool_calls") or []
            wanted = f" -> {', '.join(calls)}" if calls else ""
            return f"  · model call {d.get('iteration', '?')}: {d.get('duration_s', 0):.1f} s{wanted}"
        if event.kind == "tool_call":
            args = json.dumps(d.get("arguments"), ensure_ascii=False)
            return f"  → {d.get('name')}({args})"
        if event.kind == "tool_result":
            took = f"{d.get('duration_s', 0):.2f} s"
            if d.get("ok"):
                result = str(d.get("result"))
                result = result if len(result) <= _RESULT_PREVIEW else result[:_RESULT_PREVIEW] + "…"
                return f"  ← {d.get('name')} ({took}): {result}"
            return f"  ✗ {d.get('name')} ({took}): {d.get('error')}"
        if event.kind == "notice":
            return f"  ! {d.get('message')}"
        if event.kind == "final":
            took = f"{d.get('duration_s', 0):.1f} s"
            return f"  ✓ {d.get('iterations', '?')} model calls, {took} ({d.get('reason')})"
        return None


# -- commands ------------------------------------------------------------------------
def _ask(engine: Any, messages: list[Any], session_id: str) -> str:
    started = time.monotonic()
    sentences: list[str] = []
    for sentence in engine.stream_sentences(messages, session_id=session_id):
        if not sentences:
            print(f"  (first sentence after {time.monotonic() - started:.1f} s)", file=sys.stderr)
        sentences.append(sentence)
        print(sentence, flush=True)
    return " ".join(sentences)


def cmd_chat(args: argparse.Namespace) -> int:
    from ovos_agentic_loop.messages import AgentMessage, MessageRole

    _, persona = load_persona(args.persona)
    engine = build_engine(persona)
    if hasattr(engine, "add_step_listener"):
        engine.add_step_listener(StepPrinter())
    history: list[AgentMessage] = []
    questions = [args.question] if args.question else None
    while True:
        if questions is not None:
            if not questions:
                return 0
            question = questions.pop(0)
        else:
            try:
                question = input("you> ").strip()
            except EOFError:
                print()
                return 0
            if question in {"exit", "quit", "/exit", "/quit"}:
                return 0
            if not question:
                continue
        history.append(AgentMessage(role=MessageRole.USER, content=question))
        answer = _ask(engine, history, args.session)
        history.append(AgentMessage(role=MessageRole.ASSISTANT, content=answer))


def cmd_server(args: argparse.Namespace) -> int:
    from ovos_agentic_loop.local import server

    if args.action == "install":
        print(f"llama-server: {server.install_server()}")
    elif args.action == "start":
        server.start_server(port=args.port, template=args.template, threads=args.threads, ctx=args.ctx)
    elif args.action == "stop":
        pid = server.stop_server(args.port)
        print(f"stopped llama-server pid {pid}" if pid else f"no llama-server of ours on port {args.port}")
    else:
        state = server.status(args.port)
        print(json.dumps(state, indent=2))
        return 0 if state["healthy"] and state["ours"] else 1
    return 0


def cmd_setup(args: argparse.Namespace) -> int:
    from ovos_agentic_loop.local.model import ensure_model
    from ovos_agentic_loop.local.server import install_server
    from ovos_agentic_loop.local.template import ensure_templates

    print(f"llama-server: {install_server()}")
    print(f"model: {ensure_model()}")
    for mode, path in ensure_templates().items():
        print(f"{mode} template: {path}")
    print(f"next: ovos-agentic-loop server start --port {DEFAULT_PORT}")
    return 0


def cmd_doctor(args: argparse.Namespace) -> int:
    from ovos_agentic_loop.doctor import run_doctor

    path, persona = load_persona(args.persona)
    return run_doctor(path, persona)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="ovos-agentic-loop", description=__doc__.split("\n\n")[0])
    parser.add_argument("-v", "--verbose", action="store_true", help="show the OVOS log (INFO and up)")
    sub = parser.add_subparsers(dest="command", required=True)

    server = sub.add_parser("server", help="the embedded llama-server")
    server.add_argument("action", choices=["install", "start", "stop", "status"])
    server.add_argument("--port", type=int, default=DEFAULT_PORT, help=f"default {DEFAULT_PORT}")
    server.add_argument(
        "--template", choices=["tools", "stock"], default="tools", help="chat template (default: tools)"
    )
    server.add_argument("--threads", type=int, default=2, help="CPU threads (default 2)")
    server.add_argument("--ctx", type=int, default=8192, help="context size in tokens (default 8192)")
    server.set_defaults(func=cmd_server)

    setup = sub.add_parser("setup", help="install llama-server, fetch the model, write the templates")
    setup.set_defaults(func=cmd_setup)

    chat = sub.add_parser("chat", help="ask a persona (interactive without QUESTION)")
    chat.add_argument("persona", help="persona JSON path or a name in personas/")
    chat.add_argument("question", nargs="?")
    chat.add_argument("--session", default="cli", help="session id (default: cli)")
    chat.set_defaults(func=cmd_chat)

    doctor = sub.add_parser("doctor", help="check a persona: plugins, server, tool calls, toolboxes")
    doctor.add_argument("persona")
    doctor.set_defaults(func=cmd_doctor)
    return parser


def _quiet_logs(verbose: bool) -> None:
    """The steps are printed by the CLI itself; the OVOS INFO log would repeat each of them."""
    from ovos_utils.log import LOG

    LOG.set_level("INFO" if verbose else "WARNING")


def main(argv: Sequence[str] | None = None) -> int:
    from ovos_agentic_loop.errors import BrainError, LoopError
    from ovos_agentic_loop.local.model import ModelError
    from ovos_agentic_loop.local.server import ServerError

    args = _parser().parse_args(argv)
    _quiet_logs(args.verbose)
    try:
        return int(args.func(args))
    except (BrainError, LoopError, ServerError, ModelError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
