"""Real llama-server with the bundled model, once per test session.

Every test under ``tests/real`` is marked ``real_model``. The servers are started
on free ports of 127.0.0.1 and stopped by PID at the end. At most ONE runs at a
time: on 2 cores two servers would halve each other's speed, so asking for the
other template stops the current server first (a restart costs ~2 s).

When llama-server is not installed the tests are skipped with a loud message on a
developer machine, and FAIL in CI (``CI`` set): CI must never pass by skipping.
"""

from __future__ import annotations

import os
import socket
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from ovos_agentic_loop.local.model import ensure_model
from ovos_agentic_loop.local.server import ServerInfo, find_server, log_file, start_server, stop_server
from ovos_agentic_loop.local.template import TemplateMode, ensure_templates

_HERE = Path(__file__).parent


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if _HERE in Path(str(item.fspath)).parents:
            item.add_marker(pytest.mark.real_model)


def _free_port() -> int:
    # A run that must use a given port (several people share one machine) names it.
    if os.environ.get("OVOS_AGENTIC_LOOP_TEST_PORT"):
        return int(os.environ["OVOS_AGENTIC_LOOP_TEST_PORT"])
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class RealServers:
    """Starts llama-server per template on demand, keeping at most one alive."""

    def __init__(self) -> None:
        self.current: ServerInfo | None = None

    def url(self, template: TemplateMode) -> str:
        """The ``/v1`` base URL of a running server with ``template``."""
        if self.current is not None and self.current.template != template:
            self.stop()
        if self.current is None:
            self.current = start_server(
                port=_free_port(), template=template, ready_timeout=180, progress=lambda _msg: None
            )
        return f"{self.current.base_url}/v1"

    def stop(self) -> None:
        if self.current is not None:
            stop_server(self.current.port, grace=20)
            log_file(self.current.port).unlink(missing_ok=True)  # one log per random port would pile up
            self.current = None


@pytest.fixture(scope="session")
def real_servers() -> Iterator[RealServers]:
    if find_server() is None:  # the native llama-server, or the prebuilt one of the local extra
        message = (
            "no llama.cpp server is installed, so the real-model tests cannot run. "
            "Install the prebuilt one with scripts/setup-local (or pip install -e '.[local]')."
        )
        if os.environ.get("CI"):
            pytest.fail(f"CI: {message}", pytrace=False)
        print(f"\n{'!' * 78}\n!!! SKIPPING REAL-MODEL TESTS: {message}\n{'!' * 78}", file=sys.stderr)
        pytest.skip(f"SKIPPING REAL-MODEL TESTS: {message}")
    ensure_model(progress=lambda msg: print(msg, file=sys.stderr))
    ensure_templates()
    servers = RealServers()
    try:
        yield servers
    finally:
        servers.stop()


@pytest.fixture
def real_server_url(real_servers: RealServers) -> str:
    """A llama-server with the derived tool-call template: tool calls come back as native ``tool_calls``."""
    return real_servers.url("tools")


@pytest.fixture
def real_server_url_stock(real_servers: RealServers) -> str:
    """A llama-server with the model's stock template: tool calls come back as JSON in ``content``."""
    return real_servers.url("stock")
