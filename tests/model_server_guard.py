"""A unit test must never talk to a real model server: this guard fails one that connects to it.

On a developer's machine the bundled llama-server listens on 127.0.0.1 at
``ovos_agentic_loop.local.DEFAULT_PORT``; a test that reaches it by accident (a brain left on its
default URL, a persona's real ``api_url``) passes or fails on whatever that server says, and slowly.
The guard wraps ``socket.socket.connect``/``connect_ex`` (so httpx, the openai client and urllib are
all covered): a connection to that port on a loopback or unspecified address is refused at once, and
the test fails with who connected where and how to fix it, even when the code under test catches
the refused connection. ``tests/conftest.py`` imports the fixture and the report hook from here.

- ``@pytest.mark.real_model`` tests are not guarded: talking to a model is their point (they use
  servers on free ports).
- ``@pytest.mark.model_port_refused``: for the rare test that means to find NOTHING at the default
  address (a brain's "cannot reach" message for its default URL). The guard refuses the connection
  itself, as an idle port would, so such a test is the same on a machine whose server runs.
"""

from __future__ import annotations

import errno
import ipaddress
import socket
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from ovos_agentic_loop.local import DEFAULT_PORT

__all__ = [
    "MODEL_SERVER_PORTS",
    "ModelServerGuard",
    "ModelServerReached",
    "no_model_server_connections",
    "pytest_runtest_makereport",
    "register_marker",
]

#: The ports where a real model server listens on a developer's machine: the bundled llama-server's.
MODEL_SERVER_PORTS = frozenset({DEFAULT_PORT})
REFUSED_MARK = "model_port_refused"
_GUARD = pytest.StashKey["ModelServerGuard"]()


class ModelServerReached(ConnectionRefusedError):
    """Raised in place of the connection: to the code under test it looks like an idle port."""


def is_model_server(address: Any) -> bool:
    """Whether a ``connect`` address is a model server's port on this machine (loopback or unspecified)."""
    if not isinstance(address, tuple) or len(address) < 2 or address[1] not in MODEL_SERVER_PORTS:
        return False  # an AF_UNIX path, or another port
    host = str(address[0]).split("%", 1)[0]  # an IPv6 scope id ("fe80::1%lo")
    if host == "localhost":
        return True
    try:
        ip = ipaddress.ip_address(host)
    except ValueError:
        return False  # a name: connect() is only ever given addresses by getaddrinfo's callers
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    return ip.is_loopback or ip.is_unspecified


class ModelServerGuard:
    """Refuses connections to :data:`MODEL_SERVER_PORTS` for one test and remembers the ones that count."""

    def __init__(self, test: str, *, expect_refused: bool = False) -> None:
        self.test = test
        self.expect_refused = expect_refused
        self.reached: list[str] = []  # "host:port" of each connection attempt that fails the test
        self._reported = 0

    def message(self, where: str) -> str:
        return (
            f"{self.test} opened a TCP connection to {where}, the bundled model server's address "
            f"(ovos_agentic_loop.local.DEFAULT_PORT = {DEFAULT_PORT}): a unit test must never talk to a "
            "running llama-server. Point the brain at a fake server (tests/fake_openai_server.py: "
            "FakeOpenAIServer), use ovos_agentic_loop.testing.ScriptedBrain, or mark the test "
            f"@pytest.mark.real_model; a test that means to find nothing listening there can be marked "
            f"@pytest.mark.{REFUSED_MARK} (the guard then refuses the connection as an idle port would)."
        )

    def refusal(self, address: Any) -> ModelServerReached | None:
        """The error to raise instead of connecting to ``address``, or ``None`` to let it through."""
        if not is_model_server(address):
            return None
        where = f"{address[0]}:{address[1]}"
        if self.expect_refused:
            return ModelServerReached(errno.ECONNREFUSED, f"Connection refused ({where}, by the test guard)")
        self.reached.append(where)
        return ModelServerReached(errno.ECONNREFUSED, self.message(where))

    def unreported(self) -> list[str]:
        """The connections since the last report (each phase of a test is reported once)."""
        fresh = self.reached[self._reported :]
        self._reported = len(self.reached)
        return fresh

    def install(self, monkeypatch: pytest.MonkeyPatch) -> None:
        """Wrap ``socket.socket.connect``/``connect_ex`` until ``monkeypatch`` is undone."""
        connect: Callable[..., None] = socket.socket.connect
        connect_ex: Callable[..., int] = socket.socket.connect_ex

        def guarded_connect(sock: socket.socket, address: Any) -> None:
            refused = self.refusal(address)
            if refused is not None:
                raise refused
            connect(sock, address)

        def guarded_connect_ex(sock: socket.socket, address: Any) -> int:
            return errno.ECONNREFUSED if self.refusal(address) is not None else connect_ex(sock, address)

        monkeypatch.setattr(socket.socket, "connect", guarded_connect)
        monkeypatch.setattr(socket.socket, "connect_ex", guarded_connect_ex)


@pytest.fixture(autouse=True)
def no_model_server_connections(request: pytest.FixtureRequest) -> Iterator[None]:
    """Every test but a ``real_model`` one runs with the guard (see the module's docstring)."""
    node = request.node
    if node.get_closest_marker("real_model") is not None:
        yield
        return
    guard = ModelServerGuard(node.nodeid, expect_refused=node.get_closest_marker(REFUSED_MARK) is not None)
    node.stash[_GUARD] = guard
    with pytest.MonkeyPatch.context() as monkeypatch:
        guard.install(monkeypatch)
        yield


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Any:
    """A phase that reached the model server fails, even when the code under test caught the refusal."""
    report = yield
    guard = item.stash.get(_GUARD, None)
    reached = guard.unreported() if guard is not None else []
    if reached and report.passed:
        assert guard is not None
        report.outcome = "failed"
        report.longrepr = guard.message(", ".join(dict.fromkeys(reached)))
    return report


def register_marker(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        f"{REFUSED_MARK}: the test expects nothing to listen at the bundled model server's port; the guard "
        "refuses connections there itself (tests/model_server_guard.py)",
    )
