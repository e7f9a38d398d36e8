"""Closing what the engine built: its toolboxes, and any child process a toolbox left running.

OPM's ``ToolBox`` has no ``close()``; toolboxes that hold a resource define one (ovos-tool-adapters'
``MCPToolBox`` runs an MCP server as a child process). Nothing in the ecosystem calls it, and even
``MCPToolBox.close()`` cannot stop a server command that started but never spoke MCP: its connect
task is stuck waiting for the handshake, so the process outlives the host. So the engine records
which child processes appeared while it built each toolbox, calls ``close()`` (bounded: a close
that hangs must not hang shutdown), and then terminates those children that are still running.

Children are read from ``/proc`` (Linux); elsewhere none are found and only ``close()`` runs.
"""

from __future__ import annotations

import contextlib
import os
import signal
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, TypeVar

from ovos_utils.log import LOG

__all__ = ["BuiltToolbox", "ChildWatch", "child_pids", "close_toolboxes", "tracking_children"]

T = TypeVar("T")

#: Seconds every ``close()`` together gets before leftover children are terminated.
CLOSE_GRACE = 3.0
#: Seconds a terminated child gets before it is killed.
TERM_GRACE = 2.0


@dataclass(frozen=True)
class BuiltToolbox:
    """A toolbox the engine built, with the child processes that appeared while it was built."""

    name: str
    toolbox: Any
    children: frozenset[int] = frozenset()


def child_pids() -> set[int]:
    """The live (not zombie) child processes of this process.

    One read of ``/proc/<pid>/stat`` per process of the machine (the kernel here has no
    ``/proc/<pid>/task/<tid>/children``), with plain ``os`` calls: a few milliseconds a scan,
    paid around every toolbox a persona loads.
    """
    me = os.getpid()
    found: set[int] = set()
    try:
        names = os.listdir("/proc")
    except OSError:
        return found
    for name in names:
        if name.isdigit():
            state = _stat(int(name))
            if state is not None and state[1] == me and state[0] != "Z":
                found.add(int(name))
    return found


def _stat(pid: int) -> tuple[str, int] | None:
    """``(state, parent pid)`` of ``pid``, or ``None`` when it is gone."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            text = stat.read()
    except OSError:
        return None
    # The command name (field 2) is in parentheses and may contain spaces: split after it.
    fields = text[text.rfind(b")") + 2 :].split(None, 2)
    return fields[0].decode("ascii", "replace"), int(fields[1])


class ChildWatch:
    """The child processes that appeared since the last look: one ``/proc`` scan per look.

    Building several toolboxes in a row, the look after one is the look before the next, so
    N toolboxes cost N + 1 scans instead of 2N. A process another thread of this program starts
    meanwhile is counted too; it is only ever terminated if it is still running when the toolbox
    it was counted with is closed.
    """

    def __init__(self) -> None:
        self._seen = child_pids()

    def new(self) -> frozenset[int]:
        now = child_pids()
        appeared, self._seen = frozenset(now - self._seen), now
        return appeared


def tracking_children(build: Callable[[], T], watch: ChildWatch | None = None) -> tuple[T, frozenset[int]]:
    """``build()`` and the child processes that appeared while it ran (since ``watch``'s last look,
    when one is given)."""
    watch = watch or ChildWatch()
    try:
        result = build()
    finally:  # a build that raised: its children are not the next build's
        started = watch.new()
    return result, started


def close_toolboxes(built: Iterable[BuiltToolbox], *, engine_name: str, grace: float = CLOSE_GRACE) -> None:
    """Unbind and ``close()`` every toolbox (at once, within ``grace`` seconds in all), then stop the
    child processes each left running. Every failure is logged by name; none is raised."""
    built = list(built)
    closers: list[threading.Thread] = []
    for item in built:
        _unbind(item, engine_name)
        close = getattr(item.toolbox, "close", None)
        if callable(close):
            thread = threading.Thread(
                target=_close_one, args=(item, close, engine_name), name=f"close-{item.name}", daemon=True
            )
            try:
                thread.start()
            except RuntimeError:  # at interpreter exit newer Pythons refuse new threads: close inline
                _close_one(item, close, engine_name)
                continue
            closers.append(thread)
    deadline = time.monotonic() + grace
    for thread in closers:
        thread.join(max(0.0, deadline - time.monotonic()))
    for item in built:
        _stop_children(item, engine_name)
    # A close() that waited on a child we just stopped can finish now; give it a moment.
    deadline = time.monotonic() + grace
    for thread in closers:
        thread.join(max(0.0, deadline - time.monotonic()))
        if thread.is_alive():
            LOG.warning(f"{engine_name}: toolbox {thread.name[6:]!r}: close() did not return; left behind")


def _unbind(item: BuiltToolbox, engine_name: str) -> None:
    unbind = getattr(item.toolbox, "unbind", None)  # OPM >= 3.1: the bus handlers bind() registered
    if getattr(item.toolbox, "bus", None) is None or not callable(unbind):
        return
    try:
        unbind()
    except Exception as exc:  # noqa: BLE001 - a third-party toolbox may raise anything; reported
        LOG.warning(f"{engine_name}: toolbox {item.name!r}: unbind() raised {type(exc).__name__}: {exc}")


def _close_one(item: BuiltToolbox, close: Callable[[], Any], engine_name: str) -> None:
    try:
        close()
    except Exception as exc:  # noqa: BLE001 - a third-party toolbox may raise anything; reported
        LOG.warning(f"{engine_name}: toolbox {item.name!r}: close() raised {type(exc).__name__}: {exc}")
    else:
        LOG.debug(f"{engine_name}: toolbox {item.name!r} closed")


def _stop_children(item: BuiltToolbox, engine_name: str) -> None:
    running = [pid for pid in sorted(item.children) if _is_our_live_child(pid)]
    for pid in running:
        LOG.warning(
            f"{engine_name}: toolbox {item.name!r} left its child process {pid} ({_command(pid)}) "
            "running after close(); terminating it"
        )
        _signal(pid, signal.SIGTERM)
    deadline = time.monotonic() + TERM_GRACE
    while running and time.monotonic() < deadline:
        running = [pid for pid in running if _is_our_live_child(pid)]
        time.sleep(0.05)
    for pid in running:
        LOG.warning(f"{engine_name}: child process {pid} ignored SIGTERM; killing it")
        _signal(pid, signal.SIGKILL)


def _is_our_live_child(pid: int) -> bool:
    # The parent check guards against a recycled pid: only a process of ours is ever signalled.
    state = _stat(pid)
    return state is not None and state[1] == os.getpid() and state[0] != "Z"


def _signal(pid: int, sig: signal.Signals) -> None:
    with contextlib.suppress(ProcessLookupError):  # it ended meanwhile
        os.kill(pid, sig)


def _command(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as cmdline:
            raw = cmdline.read()
    except OSError:
        return "?"
    return " ".join(part.decode(errors="replace") for part in raw.split(b"\0") if part)[:120] or "?"
