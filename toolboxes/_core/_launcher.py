"""The child side of ``run_process``: confine this process, then become the program.

Run as ``python -S -E -s _launcher.py SPEC PROGRAM ARGV0 ARGS...`` (no site packages, no PYTHON*
variables), so it imports only the standard library and ``landlock.py`` beside it (the script's
folder is ``sys.path[0]``). ``preexec_fn`` would do the same work between fork and exec, but is
not safe in a process with threads, which the voice assistant always is; a launcher that
``exec``s is.

In order, each before the program starts:

1. ``PR_SET_PDEATHSIG``: the kernel SIGKILLs this process (and so the program it becomes) when
   the thread that started it dies, including when the assistant is killed with SIGKILL. A parent
   that died before the call is caught by comparing ``getppid()`` with the pid it passed.
2. Resource limits (``RLIMIT_AS`` / ``RLIMIT_FSIZE`` / ``RLIMIT_NPROC``), never above the hard limit.
3. SIGXFSZ ignored, so a too-large write fails with EFBIG instead of killing the program silently.
4. The Landlock policy, when the spec has one; if it cannot be applied the program is NOT run.

Exit code 126 (the shell's "cannot execute") with a message on stderr means a step failed.
"""

import ctypes
import json
import os
import resource
import signal
import sys

_PR_SET_PDEATHSIG = 1
EXIT_CANNOT_RUN = 126


def _die(message: str) -> None:
    sys.stderr.write(f"ovos sandbox: {message}; the program was not started\n")
    sys.stderr.flush()
    os._exit(EXIT_CANNOT_RUN)


def main(argv: list[str]) -> None:
    spec = json.loads(argv[1])
    program, target_argv = argv[2], argv[3:]
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0) != 0:
        _die("prctl(PR_SET_PDEATHSIG) failed")
    if os.getppid() != spec["parent"]:
        os._exit(EXIT_CANNOT_RUN)  # The assistant is already gone: nobody waits for this run.
    for name, value in spec["rlimits"].items():
        which = getattr(resource, name)
        _soft, hard = resource.getrlimit(which)
        value = value if hard == resource.RLIM_INFINITY else min(value, hard)
        resource.setrlimit(which, (value, hard))
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    if spec.get("landlock") is not None:
        import landlock  # Beside this file; see the module docstring.

        policy = landlock.Policy(**spec["landlock"])
        try:
            landlock.restrict(policy)
        except OSError as exc:
            _die(f"the Landlock sandbox could not be applied ({exc})")
    try:
        os.execv(program, target_argv)
    except OSError as exc:
        _die(f"cannot execute {program}: {exc.strerror or exc}")


if __name__ == "__main__":
    main(sys.argv)
