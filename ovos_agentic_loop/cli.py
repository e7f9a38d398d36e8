"""``ovos-agentic-loop``: run the local server, chat with a persona, diagnose a persona.

    ovos-agentic-loop setup                      check for a server, fetch the model, write the templates
    ovos-agentic-loop server start|stop|status [--port N] [--template tools|stock]
    ovos-agentic-loop server build               compile the native llama-server (faster; optional)
    ovos-agentic-loop chat PERSONA [QUESTION]    one question, or an interactive session
    ovos-agentic-loop doctor PERSONA             what would fail silently, and how to fix it

Steps (tool calls, results, timings) and every log line go to stderr, the answer to stdout, so
``ovos-agentic-loop chat local-assistant "..." > answer.txt`` keeps only the answer. PERSONA is a
path, a name in ./personas/, or the name of a persona shipped in the package.
"""

from __future__ import annotations

import argparse
import json
import logging
import sys
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TextIO

from ovos_agentic_loop.events import StepEvent
from ovos_agentic_loop.local import DEFAULT_PORT

__all__ = ["StepPrinter", "main"]

_RESULT_PREVIEW = 160


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
            return f"  {'…' if d.get('progress') else '!'} {d.get('message')}"
        if event.kind == "progress":  # what a voice would say while a tool runs
            return f"  … {d.get('text')}"
        if event.kind == "plan":  # ovos-plan-execute-loop
            steps = "; ".join(f"{i}. {step}" for i, step in enumerate(d.get("steps") or [], 1))
            return f"  ☰ plan{' (revised)' if d.get('revision') else ''}: {steps or '(none readable)'}"
        if event.kind == "strategy_step":  # the other loops: critiques, scores, sub-answers
            text = " ".join(str(d.get("text", "")).split())
            text = text if len(text) <= _RESULT_PREVIEW else text[:_RESULT_PREVIEW] + "…"
            return f"  ∴ {d.get('phase')}: {text}"
        if event.kind == "final":
            took = f"{d.get('duration_s') or 0:.1f} s"
            return f"  ✓ {d.get('iterations', '?')} model calls, {took} ({d.get('reason')})"
        return None


# -- commands ------------------------------------------------------------------------
def _ask(engine: Any, messages: list[Any], session_id: str, out: TextIO) -> str:
    started = time.monotonic()
    sentences: list[str] = []
    for sentence in engine.stream_sentences(messages, session_id=session_id):
        if not sentences:
            print(f"  (first sentence after {time.monotonic() - started:.1f} s)", file=sys.stderr)
        sentences.append(sentence)
        print(sentence, file=out, flush=True)
    return " ".join(sentences)


def _read_question(out: TextIO) -> str:
    """One line from the user. On a terminal, ``input`` runs with the real stdout so line editing
    (readline) works; when stdout is redirected, the prompt goes to stderr with the steps."""
    if not out.isatty():
        return input("you> ").strip()  # sys.stdout is stderr here (see _answers_only)
    saved, sys.stdout = sys.stdout, out
    try:
        return input("you> ").strip()
    finally:
        sys.stdout = saved


def _persona(args: argparse.Namespace) -> Any:
    """The persona ``args`` name, its brain pointed at ``--model-url`` when one is given."""
    from ovos_agentic_loop.personas import find_persona, with_model_url

    persona = find_persona(args.persona)
    return with_model_url(persona, args.model_url) if args.model_url else persona


def cmd_chat(args: argparse.Namespace) -> int:
    from ovos_agentic_loop.personas import build_engine

    engine = build_engine(_persona(args))
    try:
        return _chat(engine, args)
    finally:
        # The engine closes what it built (an MCP toolbox's server process, ...): the CLI leaves no child.
        shutdown = getattr(engine, "shutdown", None)
        if callable(shutdown):
            shutdown()


def _chat(engine: Any, args: argparse.Namespace) -> int:
    from ovos_agentic_loop.messages import AgentMessage, MessageRole

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
                question = _read_question(args.out)
            except EOFError:
                print(file=sys.stderr)
                return 0
            if question in {"exit", "quit", "/exit", "/quit"}:
                return 0
            if not question:
                continue
        history.append(AgentMessage(role=MessageRole.USER, content=question))
        answer = _ask(engine, history, args.session, args.out)
        history.append(AgentMessage(role=MessageRole.ASSISTANT, content=answer))


def cmd_server(args: argparse.Namespace) -> int:
    from ovos_agentic_loop.local import server

    if args.action == "build":
        running = server.read_info(args.port)
        binary = server.build_native()
        print(f"native llama-server: {binary}", file=args.out)
        if running is not None and running.build != "native":
            print(
                f"the server on port {args.port} is still the prebuilt one; it runs the native build after "
                f"`ovos-agentic-loop server stop --port {args.port}` and `server start`",
                file=args.out,
            )
    elif args.action == "start":
        server.start_server(
            port=args.port, template=args.template, threads=args.threads, ctx=args.ctx, build=args.build
        )
    elif args.action == "stop":
        pid = server.stop_server(args.port)
        message = f"stopped llama-server pid {pid}" if pid else f"no llama-server of ours on port {args.port}"
        print(message, file=args.out)
    else:
        state = server.status(args.port)
        print(json.dumps(state, indent=2), file=args.out)
        return 0 if state["healthy"] and state["ours"] else 1
    return 0


def cmd_setup(args: argparse.Namespace) -> int:
    from ovos_agentic_loop.local.model import ensure_model
    from ovos_agentic_loop.local.server import choose_server, describe_choice
    from ovos_agentic_loop.local.template import ensure_templates

    print(f"server: {describe_choice(choose_server())}", file=args.out)
    print(f"model: {ensure_model()}", file=args.out)
    for mode, path in ensure_templates().items():
        print(f"{mode} template: {path}", file=args.out)
    print(f"next: ovos-agentic-loop server start --port {DEFAULT_PORT}", file=args.out)
    return 0


def cmd_doctor(args: argparse.Namespace) -> int:
    from ovos_agentic_loop._doctor import run_doctor

    return run_doctor(_persona(args), out=args.out)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="ovos-agentic-loop", description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "-v",
        "--verbose",
        action="store_true",
        help="show the OVOS log (INFO and up) on stderr; without it, warnings go to the log file "
        "(~/.cache/ovos-agentic-loop/logs/cli.log) and only errors show",
    )
    sub = parser.add_subparsers(dest="command", required=True)

    server = sub.add_parser(
        "server",
        help="the embedded llama.cpp server (start/stop/status; build compiles the faster native one)",
    )
    server.add_argument("action", choices=["start", "stop", "status", "build"])
    server.add_argument("--port", type=int, default=DEFAULT_PORT, help=f"default {DEFAULT_PORT}")
    server.add_argument(
        "--template", choices=["tools", "stock"], default="tools", help="chat template (default: tools)"
    )
    server.add_argument(
        "--threads",
        type=int,
        default=None,
        help="threads writing tokens (default: the cores other programs leave idle at start)",
    )
    server.add_argument("--ctx", type=int, default=8192, help="context size in tokens (default 8192)")
    server.add_argument(
        "--build",
        choices=["native", "prebuilt"],
        default=None,
        help="start: which llama.cpp server (default: the native one when built, else the prebuilt one)",
    )
    server.set_defaults(func=cmd_server)

    setup = sub.add_parser("setup", help="check for a server, fetch the model, write the templates")
    setup.set_defaults(func=cmd_setup)

    chat = sub.add_parser("chat", help="ask a persona (interactive without QUESTION)")
    chat.add_argument("persona", help="persona JSON path, a name in ./personas/, or a shipped persona's name")
    chat.add_argument("question", nargs="?")
    chat.add_argument("--session", default="cli", help="session id (default: cli)")
    chat.set_defaults(func=cmd_chat)

    doctor = sub.add_parser("doctor", help="check a persona: plugins, server, tool calls, toolboxes")
    doctor.add_argument("persona")
    doctor.set_defaults(func=cmd_doctor)
    for command in (chat, doctor):
        command.add_argument(
            "--model-url",
            metavar="URL",
            help="the model server the persona's brain asks (its api_url), e.g. http://127.0.0.1:8097/v1",
        )
    return parser


def log_path() -> Path:
    """Where the CLI writes the log lines it keeps off the terminal (without ``--verbose``)."""
    from ovos_agentic_loop.local.paths import cache_dir

    return cache_dir() / "logs" / "cli.log"


class _BelowError(logging.Filter):
    """Lets through only what a user must act on: ERROR and worse."""

    def filter(self, record: logging.LogRecord) -> bool:
        return record.levelno >= logging.ERROR


@contextmanager
def _quiet_logs(verbose: bool) -> Iterator[None]:
    """The steps are printed by the CLI itself: log lines between them only get in the way.

    With ``--verbose`` the OVOS log shows on stderr from INFO up. Without it, WARNING and up are
    kept, but written to :func:`log_path`; only ERROR and worse still reach stderr. That holds for
    the OVOS loggers (``ovos_utils.log.LOG`` makes one per caller, with its own stdout handler,
    the first time each logs: its ``create_logger`` is wrapped while the command runs) and for
    plain ``logging`` loggers (root handlers; without any, Python prints WARNINGs to stderr).
    Undone afterwards, so ``main`` can run again in one process.
    """
    from ovos_utils.log import LOG

    if verbose:
        LOG.set_level("INFO")
        yield
        return
    LOG.set_level("WARNING")
    path = log_path()
    path.parent.mkdir(parents=True, exist_ok=True)
    to_file = logging.FileHandler(path, delay=True)  # no file until there is a line to keep
    to_file.setFormatter(LOG.formatter)
    to_file.setLevel(logging.WARNING)
    errors_only = _BelowError()
    to_terminal = logging.StreamHandler(sys.stderr)
    to_terminal.addFilter(errors_only)

    def quieten(logger: logging.Logger) -> None:
        for handler in logger.handlers:
            if isinstance(handler, logging.StreamHandler) and not isinstance(handler, logging.FileHandler):
                handler.addFilter(errors_only)
        if to_file not in logger.handlers:
            logger.addHandler(to_file)

    original = LOG.__dict__["create_logger"]  # the classmethod object itself, to put back

    def create_logger(name: str, tostdout: bool = True) -> logging.Logger:
        logger: logging.Logger = original.__get__(None, LOG)(name, tostdout)
        quieten(logger)
        return logger

    LOG.create_logger = create_logger
    for logger in list(LOG._loggers.values()):
        quieten(logger)
    root = logging.getLogger()
    root.addHandler(to_file)
    root.addHandler(to_terminal)
    try:
        yield
    finally:
        LOG.create_logger = original
        root.removeHandler(to_file)
        root.removeHandler(to_terminal)
        for logger in list(LOG._loggers.values()):
            logger.removeHandler(to_file)
            for handler in logger.handlers:
                handler.removeFilter(errors_only)
        to_file.close()


@contextmanager
def _answers_only() -> Iterator[TextIO]:
    """Yield the real stdout for the command's own output, and send everything else to stderr.

    OVOS's log handlers write to stdout, and plugins may print: while a command runs,
    ``sys.stdout`` is stderr (for handlers and prints created meanwhile), and every logging
    handler already bound to the real stdout is pointed at stderr. Both are undone after.
    """
    out = sys.stdout
    moved: list[logging.StreamHandler[Any]] = []
    loggers = [logging.getLogger(), *logging.Logger.manager.loggerDict.values()]
    for logger in loggers:
        for handler in getattr(logger, "handlers", []):
            if isinstance(handler, logging.StreamHandler) and handler.stream in (out, sys.__stdout__):
                handler.setStream(sys.stderr)
                moved.append(handler)
    sys.stdout = sys.stderr
    try:
        yield out
    finally:
        sys.stdout = out
        for handler in moved:
            handler.setStream(out)


def main(argv: Sequence[str] | None = None) -> int:
    from ovos_agentic_loop.errors import BrainError, LoopError
    from ovos_agentic_loop.local.model import ModelError
    from ovos_agentic_loop.local.server import ServerError

    args = _parser().parse_args(argv)
    with _answers_only() as out, _quiet_logs(args.verbose):
        args.out = out
        try:
            return int(args.func(args))
        except (BrainError, LoopError, ServerError, ModelError) as exc:
            print(f"error: {exc}", file=sys.stderr)
            return 2
        except KeyboardInterrupt:
            return 130


if __name__ == "__main__":
    sys.exit(main())
