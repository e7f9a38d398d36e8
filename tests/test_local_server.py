"""llama-server lifecycle against a fake binary: start, idempotent start, stop by PID, SIGKILL fallback."""

from __future__ import annotations

import os
import socket
import sys
import textwrap
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path
from threading import Thread
from typing import Any

import pytest

from ovos_agentic_loop.local import model as model_mod
from ovos_agentic_loop.local import server
from ovos_agentic_loop.local import template as template_mod
from ovos_agentic_loop.local.paths import CACHE_ENV

# Answers /health and /v1/models like llama-server; with IGNORE_TERM it ignores SIGTERM, with CRASH it exits.
FAKE_SERVER = textwrap.dedent(
    """\
    #!{python}
    import json, os, signal, sys
    from http.server import BaseHTTPRequestHandler, HTTPServer
    if os.environ.get("FAKE_CRASH"):
        print("error: model file is broken"); sys.exit(3)
    if os.environ.get("FAKE_IGNORE_TERM"):
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
    port = int(sys.argv[sys.argv.index("--port") + 1])
    with open(os.environ["FAKE_ARGV_FILE"], "w") as f:
        json.dump(sys.argv[1:], f)
    class H(BaseHTTPRequestHandler):
        def log_message(self, *a): pass
        def do_GET(self):
            health = self.path == "/health"
            body = json.dumps({{"status": "ok"}} if health else {{"data": [{{"id": "local"}}]}})
            self.send_response(200); self.end_headers(); self.wfile.write(body.encode())
    HTTPServer(("127.0.0.1", port), H).serve_forever()
    """
)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@pytest.fixture
def fake_binary(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    binary = tmp_path / "fake-llama-server"
    binary.write_text(FAKE_SERVER.format(python=sys.executable))
    binary.chmod(0o755)
    monkeypatch.setenv(server.SERVER_BINARY_ENV, str(binary))
    monkeypatch.setenv(CACHE_ENV, str(tmp_path / "cache"))
    monkeypatch.setenv("FAKE_ARGV_FILE", str(tmp_path / "argv.json"))
    model = tmp_path / "model.gguf"
    model.write_bytes(b"GGUF")
    monkeypatch.setattr(model_mod, "ensure_model", lambda progress=None: model)
    templates = {"tools": tmp_path / "t.tools.jinja", "stock": tmp_path / "t.stock.jinja"}
    monkeypatch.setattr(template_mod, "ensure_templates", lambda: templates)
    return binary


@pytest.fixture
def port(fake_binary: Path) -> Iterator[int]:
    port = _free_port()
    yield port
    server.stop_server(port, grace=1)


def quiet(_message: str) -> None:
    pass


def test_find_binary_honours_the_environment(fake_binary: Path) -> None:
    assert server.find_server_binary() == fake_binary


def test_start_status_stop(port: int, tmp_path: Path) -> None:
    info = server.start_server(port=port, template="tools", threads=2, progress=quiet, ready_timeout=20)
    argv = (tmp_path / "argv.json").read_text()
    for expected in (
        '"--jinja"',
        '"--threads", "2"',
        '"-c", "8192"',
        '"--host", "127.0.0.1"',
        "t.tools.jinja",
    ):
        assert expected in argv
    state = server.status(port)
    assert state["ours"] and state["healthy"] and state["pid"] == info.pid and state["models"] == ["local"]
    assert server.stop_server(port, grace=5) == info.pid
    assert not server._alive(info.pid)
    assert server.status(port)["ours"] is False
    assert server.stop_server(port) is None


def test_start_is_idempotent(port: int) -> None:
    first = server.start_server(port=port, progress=quiet, ready_timeout=20)
    messages: list[str] = []
    second = server.start_server(port=port, progress=messages.append)
    assert second.pid == first.pid
    assert "already running" in messages[0]


def test_other_template_on_the_same_port_is_refused(port: int) -> None:
    server.start_server(port=port, template="tools", progress=quiet, ready_timeout=20)
    with pytest.raises(server.ServerError, match="stop it first"):
        server.start_server(port=port, template="stock", progress=quiet)


def test_port_taken_by_another_program(port: int) -> None:
    class H(BaseHTTPRequestHandler):
        def log_message(self, *args: Any) -> None:
            pass

    other = HTTPServer(("127.0.0.1", port), H)
    Thread(target=other.serve_forever, daemon=True).start()
    try:
        with pytest.raises(server.ServerError, match="taken by another program"):
            server.start_server(port=port, progress=quiet)
    finally:
        other.shutdown()
        other.server_close()


def test_a_crash_at_start_reports_the_log(port: int, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FAKE_CRASH", "1")
    with pytest.raises(server.ServerError, match="model file is broken"):
        server.start_server(port=port, progress=quiet, ready_timeout=20)
    assert server.read_info(port) is None


def test_stop_kills_a_server_that_ignores_sigterm(port: int, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FAKE_IGNORE_TERM", "1")
    info = server.start_server(port=port, progress=quiet, ready_timeout=20)
    assert server.stop_server(port, grace=0.5) == info.pid
    assert not server._alive(info.pid)


def test_stale_pid_file_is_ignored(port: int) -> None:
    info = server.start_server(port=port, progress=quiet, ready_timeout=20)
    os.kill(info.pid, 9)
    os.waitpid(info.pid, 0)
    assert server.read_info(port) is None
    assert server.start_server(port=port, progress=quiet, ready_timeout=20).pid != info.pid
