"""On the real llama-server: abandoned requests stop costing CPU, and the prompt cache survives a restart.

Proof is read from the server itself: ``GET /slots`` says whether a slot is still processing,
and the ``timings`` of a reply say how many prompt tokens were actually computed.
"""

from __future__ import annotations

import json
import time
import urllib.request
from typing import Any

import pytest

from ovos_agentic_loop._turn.brain_call import BrainCallTimeout, BrainHandle, call_brain
from ovos_agentic_loop.brain import OpenAIBrain
from ovos_agentic_loop.local import prompt_cache
from ovos_agentic_loop.local.server import log_file
from ovos_agentic_loop.messages import AgentMessage, MessageRole

# ~3,000 prompt tokens: a minute or more of prompt reading on 2 cores, far beyond the waits below.
LONG_TEXT = " ".join(f"Line {i}: the quick brown fox jumps over the lazy dog number {i}." for i in range(220))


def slots(base: str) -> list[dict[str, Any]]:
    with urllib.request.urlopen(f"{base}/slots", timeout=10) as response:
        return list(json.loads(response.read()))


def busy(base: str) -> bool:
    return any(slot.get("is_processing") for slot in slots(base))


def wait_idle(base: str, timeout: float) -> float:
    started = time.monotonic()
    while time.monotonic() - started < timeout:
        if not busy(base):
            return time.monotonic() - started
        time.sleep(0.2)
    raise AssertionError(f"llama-server still processing {timeout:g} s after the request was abandoned")


@pytest.mark.timeout(900)
def test_a_request_the_loop_gives_up_on_stops_on_the_server(real_server_url: str) -> None:
    base = real_server_url.removesuffix("/v1")
    log = log_file(int(base.rsplit(":", 1)[1]))
    wait_idle(base, 600)  # whatever an earlier test left
    brain = OpenAIBrain({"api_url": real_server_url, "timeout": 300, "max_tokens": 64})
    _ = brain.client
    handle = BrainHandle.wrap(brain, "ovos-openai-brain")
    messages = [AgentMessage(MessageRole.USER, f"{LONG_TEXT}\n\nSummarise the text above in one line.")]
    cancels_before = log.read_text(errors="replace").count("cancel task")
    with pytest.raises(BrainCallTimeout):
        for _ in call_brain(
            handle,
            messages,
            deadline=time.monotonic() + 5,
            stream=False,
            tools=None,
            stop=None,
            session_id="cancel",
            lang=None,
            units=None,
        ):
            pass
    gave_up = time.monotonic()
    # llama-server notices the closed connection within its polling interval (about a second)...
    while log.read_text(errors="replace").count("cancel task") == cancels_before:
        assert time.monotonic() - gave_up < 10, "llama-server did not cancel the abandoned request"
        time.sleep(0.2)
    # ...and stops after the batch it is reading (--batch-size 512), not after the whole ~4,000-token
    # prompt. On a loaded 2-core machine one batch can take a minute or more, so the proof is what
    # the server read, not how fast it stopped.
    took = wait_idle(base, 600)
    released = [line for line in log.read_text(errors="replace").splitlines() if "stop processing" in line]
    read = int(released[-1].split("n_tokens =")[1].split(",")[0])
    print(f"\nllama-server stopped {took:.1f} s after the loop gave up, having read {read} prompt tokens")
    assert read <= 1536, f"the server read {read} tokens of the abandoned prompt: it was not cancelled"


@pytest.mark.timeout(900)
def test_slot_save_and_restore_round_trip_and_a_stale_file(
    real_server_url: str, caplog: pytest.LogCaptureFixture
) -> None:
    cache = prompt_cache.slot_cache_for(real_server_url)
    assert cache is not None, "the test server was started without --slot-save-path"
    brain = OpenAIBrain({"api_url": real_server_url, "timeout": 600, "max_tokens": 8})
    system = f"You are a test persona {time.time()}. " + LONG_TEXT[:1200]  # unique: not in any cache yet
    messages = [AgentMessage(MessageRole.SYSTEM, system), AgentMessage(MessageRole.USER, "Reply OK.")]
    brain.prefill(messages)  # reads the prompt, saves the slot
    body, _ = brain._request(messages, None, None, stream=False, session_id="default")
    template = cache.chat_template()
    assert template is not None
    key = cache.key_for({**body, "max_tokens": 1}, template)
    assert (cache.folder / key.name).is_file() and cache.entry_valid(key)

    # Push the prompt out of the slot, restore it from disk: the next request computes only a few tokens.
    other = OpenAIBrain({"api_url": real_server_url, "max_tokens": 1})
    other.continue_chat([AgentMessage(MessageRole.USER, "Something else entirely.")], session_id="x")
    assert cache.restore(key)
    reply = brain.continue_chat(messages, session_id="after-restore")
    computed = (reply.timings or {}).get("prompt_n")
    assert computed is not None and computed < 50, f"{computed} prompt tokens computed after a restore"

    # A stale sidecar: ignored with a log line, deleted, and the warm-up still works (and saves again).
    meta = (cache.folder / key.name).with_suffix(".json")
    record = json.loads(meta.read_text())
    record["key"]["template_sha256"] = "0" * 64
    meta.write_text(json.dumps(record))
    with caplog.at_level("WARNING"):
        brain.prefill(messages)
    assert "ignored and deleted" in caplog.text
    assert cache.entry_valid(key)
