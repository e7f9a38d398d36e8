"""The guard against real model servers (tests/model_server_guard.py) catches what it must, and only that."""

from __future__ import annotations

import _socket
import errno
import os
import socket
from pathlib import Path

import pytest
from model_server_guard import ModelServerGuard, ModelServerReached, is_model_server

from ovos_agentic_loop.local import DEFAULT_PORT

pytest_plugins = ["pytester"]

TESTS = Path(__file__).resolve().parent


@pytest.mark.parametrize(
    ("address", "guarded"),
    [
        (("127.0.0.1", DEFAULT_PORT), True),
        (("localhost", DEFAULT_PORT), True),
        (("127.0.0.2", DEFAULT_PORT), True),
        (("0.0.0.0", DEFAULT_PORT), True),
        (("::1", DEFAULT_PORT, 0, 0), True),
        (("::ffff:127.0.0.1", DEFAULT_PORT, 0, 0), True),
        (("127.0.0.1", DEFAULT_PORT + 1), False),
        (("192.0.2.7", DEFAULT_PORT), False),  # another machine's server is not this guard's business
        ("/run/some.sock", False),
    ],
)
def test_the_guarded_addresses_are_the_bundled_servers_port_on_this_machine(
    address: object, guarded: bool
) -> None:
    assert is_model_server(address) is guarded


def test_a_connection_is_refused_before_it_is_made_and_remembered(monkeypatch: pytest.MonkeyPatch) -> None:
    # A guard of its own on top of this test's: its refusal never reaches the outer one.
    guard = ModelServerGuard("tests/x.py::test_y")
    guard.install(monkeypatch)
    with pytest.raises(ModelServerReached) as refused, socket.create_connection(("127.0.0.1", DEFAULT_PORT)):
        pass
    assert refused.value.errno == errno.ECONNREFUSED
    message = str(refused.value)
    assert f"tests/x.py::test_y opened a TCP connection to 127.0.0.1:{DEFAULT_PORT}" in message
    assert "FakeOpenAIServer" in message and "ScriptedBrain" in message and "real_model" in message
    with socket.socket() as sock:
        assert sock.connect_ex(("127.0.0.1", DEFAULT_PORT)) == errno.ECONNREFUSED
    assert guard.unreported() == [f"127.0.0.1:{DEFAULT_PORT}"] * 2
    assert guard.unreported() == []  # each phase reports its own


def test_an_expected_refusal_is_refused_and_not_held_against_the_test(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    guard = ModelServerGuard("t", expect_refused=True)
    guard.install(monkeypatch)
    with (
        pytest.raises(ConnectionRefusedError, match="by the test guard"),
        socket.create_connection(("localhost", DEFAULT_PORT)),
    ):
        pass
    assert guard.unreported() == []


INNER_CONFTEST = """
from model_server_guard import no_model_server_connections, pytest_runtest_makereport, register_marker


def pytest_configure(config):
    register_marker(config)
    config.addinivalue_line("markers", "real_model: talks to a model")
"""

INNER_TESTS = f"""
import _socket
import socket
import threading
from http.server import BaseHTTPRequestHandler, HTTPServer

import httpx
import pytest

from ovos_agentic_loop.brain import OpenAIBrain
from ovos_agentic_loop.errors import BrainError
from ovos_agentic_loop.messages import AgentMessage, MessageRole

PORT = {DEFAULT_PORT}


def test_httpx_with_the_error_caught():
    try:
        httpx.get(f"http://127.0.0.1:{{PORT}}/v1/models", timeout=2)
    except httpx.ConnectError:
        pass  # code under test that swallows the failure: the guard fails the test anyway


def test_a_brain_left_on_its_default_url():
    brain = OpenAIBrain({{"max_retries": 0}})
    with pytest.raises(BrainError):
        brain.continue_chat([AgentMessage(role=MessageRole.USER, content="hi")])


@pytest.fixture
def warmed_up_brain():
    try:  # a fixture that warms a brain up and swallows the failure
        socket.create_connection(("127.0.0.1", PORT), timeout=2).close()
    except OSError:
        pass


def test_with_a_fixture_that_connects(warmed_up_brain):
    pass


def test_the_error_not_caught():
    socket.create_connection(("localhost", PORT), timeout=2)


@pytest.mark.model_port_refused
def test_expecting_nothing_there():
    with pytest.raises(ConnectionRefusedError):
        socket.create_connection(("127.0.0.1", PORT), timeout=2)


@pytest.mark.real_model
def test_a_real_model_test_is_not_guarded():
    assert socket.socket.connect is _socket.socket.connect


def test_another_port_is_untouched():
    class Ok(BaseHTTPRequestHandler):
        def do_GET(self):
            self.send_response(204)
            self.end_headers()

        def log_message(self, *args):
            pass

    server = HTTPServer(("127.0.0.1", 0), Ok)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        assert httpx.get(f"http://127.0.0.1:{{server.server_address[1]}}/").status_code == 204
    finally:
        server.shutdown()
        server.server_close()
"""


def test_in_a_test_run_a_connection_to_the_model_port_fails_the_test_that_made_it(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytester.makeconftest(INNER_CONFTEST)
    pytester.makepyfile(test_inner=INNER_TESTS)
    path = [str(TESTS), os.environ.get("PYTHONPATH", "")]  # the inner conftest imports the guard
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(filter(None, path)))
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-q")
    result.assert_outcomes(passed=3, failed=3, errors=1)
    out = result.stdout.str()
    assert "ERROR at setup of test_with_a_fixture_that_connects" in out
    for name in (
        "test_httpx_with_the_error_caught",
        "test_a_brain_left_on_its_default_url",
        "test_with_a_fixture_that_connects",
    ):
        assert f"\ntest_inner.py::{name} opened a TCP connection to 127.0.0.1:{DEFAULT_PORT}, " in out
    assert "ModelServerReached: [Errno 111] test_inner.py::test_the_error_not_caught opened" in out
    assert "mark the test @pytest.mark.real_model" in out


def test_this_suite_runs_guarded() -> None:
    assert socket.socket.connect is not _socket.socket.connect
