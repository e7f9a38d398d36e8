"""The on-disk prompt cache: keys, stale and corrupt files, and the warm-up that uses it.

A fake llama-server here answers ``/props``, ``/slots/{id}?action=save|restore`` and chat
completions, writing and reading slot files the way the real one does (tests/real runs the
round trip on the real server).
"""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest

from ovos_agentic_loop.local import prompt_cache
from ovos_agentic_loop.local.prompt_cache import CacheKey, SlotCache, model_identity, prefix_hash

TOOLS = [{"type": "function", "function": {"name": "now", "parameters": {"type": "object"}}}]
BODY = {"model": "local", "messages": [{"role": "system", "content": "You are Ada."}], "tools": TOOLS}


class FakeLlamaServer:
    """Slot files are ``SLOT <n_tokens>``; anything else is refused as llama-server refuses a bad file."""

    def __init__(self, folder: Path, template: str = "{{ messages }}") -> None:
        self.folder, self.template = folder, template
        self.log: list[str] = []
        self.completions: list[dict[str, Any]] = []
        self.restore_answered = threading.Event()  # cleared: restores wait for it (a busy server)
        self.restore_answered.set()
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_GET(self) -> None:
                self._reply(200, {"chat_template": fake.template, "model_path": "/m.gguf"})

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))) or b"{}")
                url = urlsplit(self.path)
                if url.path.startswith("/slots/"):
                    action = parse_qs(url.query)["action"][0]
                    fake.log.append(f"{action} {body['filename']}")
                    path = fake.folder / body["filename"]
                    if action == "save":
                        path.write_text("SLOT 1234")
                        self._reply(200, {"id_slot": 0, "filename": body["filename"], "n_saved": 1234})
                    elif not fake.restore_answered.wait(10):
                        return
                    elif path.is_file() and path.read_text().startswith("SLOT "):
                        self._reply(200, {"id_slot": 0, "n_restored": int(path.read_text().split()[1])})
                    else:
                        self._reply(500, {"error": {"message": "Unable to restore slot"}})
                    return
                fake.completions.append(body)
                fake.log.append("complete")
                self._reply(
                    200, {"choices": [{"index": 0, "message": {"role": "assistant", "content": "O"}}]}
                )

            def _reply(self, status: int, body: dict[str, Any]) -> None:
                data = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.base_url = f"http://127.0.0.1:{self.httpd.server_address[1]}"
        threading.Thread(target=self.httpd.serve_forever, args=(0.05,), daemon=True).start()


@pytest.fixture
def llama(tmp_path: Path) -> Iterator[FakeLlamaServer]:
    server = FakeLlamaServer(tmp_path)
    yield server
    server.httpd.shutdown()


def cache_for(llama: FakeLlamaServer, model: str = "a" * 64) -> SlotCache:
    return SlotCache(llama.base_url, llama.folder, model)


# -- keys -------------------------------------------------------------------------------
def test_the_prefix_hash_covers_the_prompt_and_nothing_else() -> None:
    sampled = {**BODY, "max_tokens": 1, "temperature": 0.9, "stream": True, "id_slot": 0}
    assert prefix_hash(sampled) == prefix_hash(BODY)
    assert prefix_hash({**BODY, "tools": []}) != prefix_hash(BODY)
    changed = {**BODY, "messages": [{"role": "system", "content": "You are Bob."}]}
    assert prefix_hash(changed) != prefix_hash(BODY)


def test_the_file_name_changes_with_model_template_and_prompt() -> None:
    key = CacheKey("m", "t", "p")
    names = {
        key.name,
        CacheKey("m2", "t", "p").name,
        CacheKey("m", "t2", "p").name,
        CacheKey("m", "t", "p2").name,
    }
    assert len(names) == 4 and key.name == CacheKey("m", "t", "p").name
    assert key.name.startswith("prompt-") and key.name.endswith(".bin")


def test_model_identity_is_the_verified_sha256_else_size_and_mtime(tmp_path: Path) -> None:
    model = tmp_path / "m.gguf"
    model.write_bytes(b"weights")
    fallback = model_identity(model)
    assert fallback.startswith(f"{model}:7:")
    (tmp_path / "m.gguf.sha256").write_text("b" * 64 + "\n")
    assert model_identity(model) == "b" * 64


# -- save / restore ---------------------------------------------------------------------
def test_save_then_restore_round_trip(llama: FakeLlamaServer) -> None:
    cache = cache_for(llama)
    key = cache.key_for(BODY, cache.chat_template() or "")
    assert not cache.restore(key)  # nothing saved yet: no request sent
    assert llama.log == []
    assert cache.save(key)
    sidecar = json.loads((llama.folder / key.name).with_suffix(".json").read_text())
    assert sidecar["key"]["prefix_sha256"] == prefix_hash(BODY) and sidecar["n_tokens"] == 1234
    assert cache.restore(key)
    assert llama.log == [f"save {key.name}", f"restore {key.name}"]


def test_a_stale_file_is_ignored_with_a_log_line_and_deleted(
    llama: FakeLlamaServer, caplog: pytest.LogCaptureFixture
) -> None:
    cache = cache_for(llama)
    key = cache.key_for(BODY, "template")
    assert cache.save(key)
    data, meta = llama.folder / key.name, (llama.folder / key.name).with_suffix(".json")
    record = json.loads(meta.read_text())
    record["key"]["model_sha256"] = "another model"
    meta.write_text(json.dumps(record))
    with caplog.at_level(logging.WARNING, logger=prompt_cache.__name__):
        assert not cache.restore(key)
    assert "ignored and deleted: written for another model" in caplog.text
    assert not data.exists() and not meta.exists()
    assert llama.log == [f"save {key.name}"]  # never sent to the server


def test_a_file_without_sidecar_is_stale(llama: FakeLlamaServer, caplog: pytest.LogCaptureFixture) -> None:
    cache = cache_for(llama)
    key = cache.key_for(BODY, "template")
    (llama.folder / key.name).write_text("SLOT 5")  # e.g. the save was interrupted before the sidecar
    with caplog.at_level(logging.WARNING, logger=prompt_cache.__name__):
        assert not cache.restore(key)
    assert "no readable sidecar" in caplog.text and not (llama.folder / key.name).exists()


def test_a_corrupt_file_the_server_refuses_is_ignored_and_deleted(
    llama: FakeLlamaServer, caplog: pytest.LogCaptureFixture
) -> None:
    cache = cache_for(llama)
    key = cache.key_for(BODY, "template")
    assert cache.save(key)
    (llama.folder / key.name).write_bytes(b"\x00garbage")
    with caplog.at_level(logging.WARNING, logger=prompt_cache.__name__):
        assert not cache.restore(key)
    assert "could not load it" in caplog.text and "HTTP 500" in caplog.text
    assert not (llama.folder / key.name).exists()


def test_a_restore_the_server_does_not_confirm_in_time_keeps_the_file(
    llama: FakeLlamaServer, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A busy server that has not answered says nothing about the file: only a refusal deletes it."""
    cache = cache_for(llama)
    key = cache.key_for(BODY, "template")
    assert cache.save(key)
    monkeypatch.setattr(prompt_cache, "_TIMEOUT", 0.2)
    llama.restore_answered.clear()
    try:
        with caplog.at_level(logging.WARNING, logger=prompt_cache.__name__):
            assert not cache.restore(key)
    finally:
        llama.restore_answered.set()
    assert "did not confirm the restore; the file is kept" in caplog.text
    assert (llama.folder / key.name).is_file() and cache.entry_valid(key)


def test_an_unreachable_server_is_a_log_line_not_an_error(tmp_path: Path) -> None:
    cache = SlotCache("http://127.0.0.1:9", tmp_path, "m")
    key = cache.key_for(BODY, "t")
    assert cache.chat_template() is None
    assert not cache.save(key)


# -- the warm-up uses it -------------------------------------------------------------------
def test_prefill_saves_the_first_time_and_restores_after(
    llama: FakeLlamaServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    from ovos_agentic_loop.brain import OpenAIBrain
    from ovos_agentic_loop.messages import AgentMessage, MessageRole

    monkeypatch.setattr(prompt_cache, "slot_cache_for", lambda _url: cache_for(llama))
    brain = OpenAIBrain({"api_url": f"{llama.base_url}/v1"})
    messages = [AgentMessage(MessageRole.SYSTEM, "You are Ada."), AgentMessage(MessageRole.USER, "OK?")]
    brain.prefill(messages, tools=TOOLS)
    brain.prefill(messages, tools=TOOLS)
    name = next(llama.folder.glob("prompt-*.bin")).name
    assert llama.log == ["complete", f"save {name}", f"restore {name}", "complete"]
    assert all(body["max_tokens"] == 1 and body["id_slot"] == 0 for body in llama.completions)


def test_slot_cache_only_for_our_own_local_server(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from ovos_agentic_loop.local import server

    assert prompt_cache.slot_cache_for("https://api.openai.com/v1") is None
    monkeypatch.setattr(server, "read_info", lambda port: None)
    assert prompt_cache.slot_cache_for("http://127.0.0.1:8091/v1") is None
    info = server.ServerInfo(1, 8091, "127.0.0.1", "tools", str(tmp_path / "m.gguf"), "llama-server", 0.0)
    monkeypatch.setattr(server, "read_info", lambda port: info)
    assert prompt_cache.slot_cache_for("http://127.0.0.1:8091/v1") is None  # an old server: no slot path
    info.slot_save_path = str(tmp_path)
    cache = prompt_cache.slot_cache_for("http://127.0.0.1:8091/v1")
    assert cache is not None and cache.folder == tmp_path and cache.base_url == "http://127.0.0.1:8091"
