"""The brain's HTTP client: every connection can be closed by the call that is using it.

See :mod:`ovos_agentic_loop._runtime.cancellation` for why. The ``openai`` client sends its requests
through an httpx client; this one differs from the default only in its connections: each
read or write first registers the connection with the current :class:`CancelScope` (the brain
call running in this thread), and cancelling that scope shuts the socket down. The blocked
read in the worker thread then returns at once, and llama-server, seeing the connection
closed, cancels the task (while reading the prompt too, at its next batch).

Connections stay pooled and kept alive as usual: a connection is tied to the scope of the
call that last used it, not to the call that opened it.
"""

from __future__ import annotations

import contextlib
import socket
from typing import Any

from ovos_agentic_loop._runtime import cancellation as cancellation

__all__ = ["cancellable_http_client"]


def _http_modules() -> tuple[Any, Any]:
    """The httpx flavour the installed ``openai`` uses: ``httpx2`` (openai 3) or ``httpx``."""
    try:
        import httpcore2
        import httpx2
    except ImportError:
        import httpcore as httpcore2  # type: ignore[no-redef]
        import httpx as httpx2  # type: ignore[no-redef]
    return httpx2, httpcore2


class _ScopedStream:
    """A network stream that joins the current cancel scope before each read and write."""

    def __init__(self, inner: Any) -> None:
        self._inner = inner
        self._scope: cancellation.CancelScope | None = None

    def _join_scope(self) -> None:
        scope = cancellation.current()
        if scope is not None and scope is not self._scope:
            self._scope = scope
            scope.on_cancel(self, self._shut_down)

    def _shut_down(self) -> None:
        sock = self._inner.get_extra_info("socket")
        if isinstance(sock, socket.socket):
            with contextlib.suppress(OSError):  # already closed: nothing left to cancel
                sock.shutdown(socket.SHUT_RDWR)

    def read(self, max_bytes: int, timeout: float | None = None) -> bytes:
        self._join_scope()
        return bytes(self._inner.read(max_bytes, timeout))

    def write(self, buffer: bytes, timeout: float | None = None) -> None:
        self._join_scope()
        self._inner.write(buffer, timeout)

    def close(self) -> None:
        self._inner.close()

    def start_tls(self, *args: Any, **kwargs: Any) -> _ScopedStream:
        return _ScopedStream(self._inner.start_tls(*args, **kwargs))

    def get_extra_info(self, info: str) -> Any:
        return self._inner.get_extra_info(info)


class _ScopedBackend:
    """httpcore's sync network backend, handing out :class:`_ScopedStream` connections."""

    def __init__(self, inner: Any) -> None:
        self._inner = inner

    def connect_tcp(self, *args: Any, **kwargs: Any) -> _ScopedStream:
        return _ScopedStream(self._inner.connect_tcp(*args, **kwargs))

    def connect_unix_socket(self, *args: Any, **kwargs: Any) -> _ScopedStream:
        return _ScopedStream(self._inner.connect_unix_socket(*args, **kwargs))

    def sleep(self, seconds: float) -> None:
        self._inner.sleep(seconds)


def cancellable_http_client(timeout: Any) -> Any:
    """An ``httpx(2).Client`` like the one ``openai`` builds by default, with cancellable connections."""
    httpx, httpcore = _http_modules()
    transport = httpx.HTTPTransport()
    pool = getattr(transport, "_pool", None)
    # httpx has no public hook for the network backend; its pool keeps it in ``_network_backend``.
    # Without it (a proxy pool, a changed httpx) requests still work, they just cannot be cancelled.
    if isinstance(pool, httpcore.ConnectionPool) and hasattr(pool, "_network_backend"):
        pool._network_backend = _ScopedBackend(pool._network_backend)
    return httpx.Client(transport=transport, timeout=timeout, follow_redirects=True)
