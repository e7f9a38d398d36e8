"""A real redis-server for the tests of the conversation memory's Redis store: one per test, on a free
port of 127.0.0.1, without persistence, stopped by its PID.

``tests/conftest.py`` makes :func:`redis_url` a fixture of every test. Without ``redis-server`` on
PATH (or the ``redis`` client) a test that asks for one is skipped with how to install it, and fails
under ``OVOS_AGENTIC_LOOP_TESTS_NEED_ALL=1`` (``scripts/check``).
"""

from __future__ import annotations

import contextlib
import shutil
import socket
import subprocess
from collections.abc import Iterator

import pytest
from optional_packages import need_all, require

__all__ = ["MISSING_SERVER", "free_port", "redis_url"]

MISSING_SERVER = (
    "needs redis-server on PATH (Debian/Ubuntu: apt-get install redis-server; scripts/bootstrap installs it)"
)
#: Each PING waits at most this long for an answer; the server gets PING_TRIES of them to start.
PING_TIMEOUT_S, PING_TRIES = 0.2, 200


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on right now."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


@pytest.fixture
def redis_url() -> Iterator[str]:
    """The URL of a redis-server of this test alone, answering PING before the test starts."""
    server = shutil.which("redis-server")
    if server is None:
        if need_all():
            pytest.fail(MISSING_SERVER)
        pytest.skip(MISSING_SERVER)
    redis = require("redis")
    port = free_port()
    process = subprocess.Popen(
        [server, "--save", "", "--appendonly", "no", "--port", str(port), "--bind", "127.0.0.1"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        client = redis.Redis(host="127.0.0.1", port=port, socket_connect_timeout=PING_TIMEOUT_S)
        for _ in range(PING_TRIES):  # ready once it answers a PING
            try:
                if client.ping():
                    break
            except redis.ConnectionError:
                if process.poll() is not None:
                    pytest.fail(f"redis-server exited with {process.returncode} before answering")
                with contextlib.suppress(subprocess.TimeoutExpired):
                    process.wait(timeout=0.05)  # a pause that ends early if the server exits
        else:
            pytest.fail("redis-server did not answer a PING")
        yield f"redis://127.0.0.1:{port}/0"
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
