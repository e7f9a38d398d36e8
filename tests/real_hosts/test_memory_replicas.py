"""A conversation goes on when the replica that served its last turn dies: the loop replicas share
their conversation memory through Redis.

Two loop replicas, each a real ovos-persona-server 0.18 process serving the same persona (its
handler ``ovos-native-toolcall-loop`` with ``"memory": "redis"`` and one ``memory_url``), stand
behind a real LiteLLM proxy as two deployments of one model group (``openai/<persona>`` at each
server's OpenAI API). Their brain is one scripted model server, which records what it was sent.
A client talks to the proxy as persona-server's clients do: the whole text history every turn,
and a ``user``, which persona-server passes to the loop as the session id. LiteLLM (1.108) drops a
request's top-level ``user`` on its way to an ``openai/`` deployment and passes on the ``user`` of
its ``extra_body``: the client sends both. Turn 1 makes a calculator call; the replica that served
it is killed (SIGKILL to its process group, by PID); turn 2, "and half of that?", reaches the other
replica, which puts turn 1's call and result back into the model's messages from Redis, although
neither the client's history nor that process ever held them, and calculates half of it from the
remembered call before the model is asked. Everything listens on 127.0.0.1
(redis-server, the model, both servers, the proxy) and is stopped by its PID. About 20 s on 2 busy
cores, most of it LiteLLM's start.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
from fake_openai_server import FakeOpenAIServer, answer
from host_processes import LOCALHOST, HostProcess, free_port, make_home, wait_for_port
from optional_packages import need_all, require, skip_unless_installed
from scale_hosts import MASTER_KEY, litellm_command, start_proxy

from ovos_agentic_loop._memory.conversation import KEY_PREFIX
from ovos_agentic_loop._runtime.session_key import session_key

pytestmark = [pytest.mark.scale, pytest.mark.timeout(240)]

NO_LITELLM = (
    "needs LiteLLM's proxy: scripts/bootstrap installs the scale extra's litellm[proxy] into "
    "build/litellm-venv (or set OVOS_AGENTIC_LOOP_LITELLM to a litellm command)"
)
PERSONA, GROUP, LOOP = "replicated-maths", "assistant", "ovos-native-toolcall-loop"
#: Who the client says it is: persona-server passes it to the loop as the session id.
USER = "kitchen-tablet"
#: The conversation's key: the loop's session key of that session id, in Redis and at the model.
KEY = session_key(USER, [])
#: The access log line of a chat request served by a persona-server (uvicorn's, at debug level).
CHAT_SERVED = '"POST /openai/v1/chat/completions HTTP/1.1" 200'
#: What a turn of the client may take at most, LiteLLM's retry on the other replica included.
TURN_TIMEOUT_S = 60


def calculate(call_id: str, expression: str) -> list[dict[str, Any]]:
    arguments = json.dumps({"expression": expression})
    return [
        {
            "id": call_id,
            "type": "function",
            "function": {"name": "evaluate_expression", "arguments": arguments},
        }
    ]


@dataclass
class LoopReplica:
    name: str
    port: int
    host: HostProcess

    @property
    def deployment_id(self) -> str:
        return f"loop-{self.name}"

    def chats_served(self) -> int:
        return self.host.log_tail(1_000_000).count(CHAT_SERVED)


@dataclass
class Deployment:
    model: FakeOpenAIServer
    replicas: list[LoopReplica]
    proxy_url: str
    redis_url: str

    def replica(self, deployment_id: str) -> LoopReplica:
        return next(r for r in self.replicas if r.deployment_id == deployment_id)


def persona(model_url: str, memory_url: str) -> dict[str, Any]:
    """The persona both replicas serve: with ``"memory": "process"`` instead, turn 2 fails."""
    return {
        "name": PERSONA,
        "handlers": [LOOP],
        LOOP: {
            "brain": "ovos-openai-brain",
            "ovos-openai-brain": {"api_url": model_url, "max_retries": 0, "timeout": 20},
            "toolboxes": ["ovos-math-tools"],
            "warm_up": False,
            "memory": "redis",
            "memory_url": memory_url,
        },
        # persona-server builds every installed toolbox with the persona's section of its name.
        "ovos-filesystem-tools": {},
        "ovos-shell-tools": {},
    }


def start_loop_replica(name: str, base: Path, persona_file: Path) -> LoopReplica:
    """An ovos-persona-server serving ``persona_file`` from ``/`` on 127.0.0.1; not waited for."""
    folder = base / name
    folder.mkdir()
    home = make_home(folder)
    port = free_port()
    argv = [sys.executable, "-m", "ovos_persona_server", "--persona", str(persona_file)]
    host = HostProcess(
        f"persona-server-{name}", [*argv, "--host", LOCALHOST, "--port", str(port)], home.env, folder
    )
    return LoopReplica(name, port, host)


def proxy_config(replicas: list[LoopReplica]) -> dict[str, Any]:
    """One model group over both replicas, spread at random; a replica that fails is left alone."""
    return {
        "model_list": [
            {
                "model_name": GROUP,
                "litellm_params": {
                    "model": f"openai/{PERSONA}",
                    "api_base": f"http://{LOCALHOST}:{r.port}/openai/v1",
                    "api_key": "sk-no-key",
                },
                "model_info": {"id": r.deployment_id},
            }
            for r in replicas
        ],
        "router_settings": {
            "routing_strategy": "simple-shuffle",
            "num_retries": 2,  # a turn sent to the dead replica is refused at connect: tried on the other
            "retry_after": 0,
            "allowed_fails": 0,
            "cooldown_time": 60,
        },
        "litellm_settings": {"telemetry": False, "request_timeout": TURN_TIMEOUT_S},
        "general_settings": {"master_key": MASTER_KEY},
    }


@pytest.fixture
def deployment(tmp_path: Path, redis_url: str) -> Iterator[Deployment]:
    if litellm_command() is None:
        if need_all():
            pytest.fail(NO_LITELLM)  # scripts/check: a missing proxy must not pass by skipping
        pytest.skip(NO_LITELLM)
    skip_unless_installed("ovos_persona_server")
    started: list[HostProcess] = []
    with FakeOpenAIServer() as model:
        try:
            persona_file = tmp_path / "persona.json"
            persona_file.write_text(json.dumps(persona(model.url, redis_url)))
            replicas = [start_loop_replica(name, tmp_path, persona_file) for name in ("a", "b")]
            started += [r.host for r in replicas]
            # The proxy starts (about 10 s) while both servers load their persona.
            url, proxy = start_proxy(proxy_config(replicas), tmp_path, make_home(tmp_path / "proxy").env)
            started.append(proxy)
            for replica in replicas:
                wait_for_port(replica.port, replica.host, timeout=90)
            yield Deployment(model, replicas, url, redis_url)
        finally:
            for host in reversed(started):
                host.stop()


def ask(client: httpx.Client, history: list[dict[str, str]]) -> tuple[str, str]:
    """One turn through the proxy: the answer, and the id of the deployment that served it."""
    body = {"model": GROUP, "messages": history, "user": USER, "extra_body": {"user": USER}}
    response = client.post("/chat/completions", json=body)
    assert response.status_code == 200, response.text
    return response.json()["choices"][0]["message"]["content"], response.headers["x-litellm-model-id"]


def refuses_connections(port: int) -> bool:
    try:
        with socket.create_connection((LOCALHOST, port), timeout=1):
            return False
    except OSError:
        return True


def test_a_conversation_continues_on_the_other_replica_when_the_first_is_killed(
    deployment: Deployment,
) -> None:
    model = deployment.model
    model.replies += [
        answer(tool_calls=calculate("call_1", "17*23")),
        answer("It is 391."),
        answer("Half of that is 195.5."),
    ]
    headers = {"Authorization": f"Bearer {MASTER_KEY}"}
    with httpx.Client(base_url=deployment.proxy_url, headers=headers, timeout=TURN_TIMEOUT_S) as client:
        history = [{"role": "user", "content": "What is 17 times 23?"}]
        first, served_first = ask(client, history)
        assert first == "It is 391."
        victim = deployment.replica(served_first)
        (survivor,) = [r for r in deployment.replicas if r is not victim]
        assert victim.chats_served() == 1 and survivor.chats_served() == 0

        os.killpg(victim.host.pid, signal.SIGKILL)  # between turns, as a crash would
        assert victim.host.popen.wait(timeout=10) == -signal.SIGKILL
        assert refuses_connections(victim.port)

        history += [{"role": "assistant", "content": first}, {"role": "user", "content": "And half of that?"}]
        second, served_second = ask(client, history)

    assert second == "Half of that is 195.5."
    assert served_second == survivor.deployment_id
    assert survivor.chats_served() == 1
    survivor.host.require_running()
    # What the model was sent in turn 2: turn 1's call and result, put back from Redis before turn
    # 1's answer, although the client sent text only and this process never ran turn 1; and the
    # calculation on its result, made by the loop from the remembered call before the model's step.
    assert len(model.requests) == 3, [r["messages"][-1] for r in model.requests]
    sent = model.requests[2]["messages"]
    calls = [c["function"] for m in sent for c in m.get("tool_calls") or []]
    results = [m["content"] for m in sent if m["role"] == "tool"]
    assert [(c["name"], json.loads(c["arguments"])) for c in calls] == [
        ("evaluate_expression", {"expression": "17*23"}),
        ("evaluate_expression", {"expression": "0.5 of (17*23)"}),
    ], sent
    assert [json.loads(r)["result"] for r in results] == ["391", "195.5"], sent
    roles = [m["role"] for m in sent if m["role"] != "system"]
    assert roles == ["user", "assistant", "tool", "assistant", "user", "assistant", "tool"], sent
    # One conversation, keyed by the caller's user: in Redis, and in every request to the model.
    redis = require("redis").Redis.from_url(deployment.redis_url)
    (stored,) = redis.keys(f"{KEY_PREFIX}*")
    assert stored.decode().endswith(f":{KEY}"), stored
    assert [r.get("user") for r in model.requests] == [KEY] * 3
