"""The scale-out deployment on 127.0.0.1: fake model replicas behind a real LiteLLM proxy.

Every process is a :class:`~host_processes.HostProcess` (its own group, stopped by its PID). The
replicas are ``fake_replica.py`` (stdlib, starts in well under a second); the proxy is LiteLLM's
(``litellm[proxy]``, the ``scale`` extra), which takes about 10 s to start on 2 busy cores, so a
test module starts one and reuses it. LiteLLM lives in a venv of its own (``build/litellm-venv``,
made by scripts/bootstrap), as an operator would run it: in the loop's venv its packages would
bring their AGENTS.md files into every persona that reads installed packages' AGENTS.md.
Its config is the one the README's "Scaling out" shows: one
model group per routing policy, so one proxy serves both affinity on (``local``) and off
(``local-shuffle``) over the same two replicas.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from host_processes import LOCALHOST, HostProcess, free_port, wait_for

__all__ = ["MASTER_KEY", "Replica", "litellm_command", "litellm_config", "start_proxy", "start_replica"]

#: The proxy refuses to start without a master key; a fixed one keeps the tests reproducible.
MASTER_KEY = "sk-scale-test-5f0c2b9e8d7a41c6b3e2f1a0d9c8b7a6"
HERE = Path(__file__).resolve().parent
AFFINE, SHUFFLED = "local", "local-shuffle"
#: Where scripts/bootstrap installs LiteLLM's proxy; OVOS_AGENTIC_LOOP_LITELLM names another command.
LITELLM_VENV = HERE.parent.parent / "build" / "litellm-venv"


def litellm_command() -> Path | None:
    """The ``litellm`` command: $OVOS_AGENTIC_LOOP_LITELLM, the bootstrap's venv, else one on PATH."""
    named = os.environ.get("OVOS_AGENTIC_LOOP_LITELLM")
    if named:
        return Path(named)
    built = LITELLM_VENV / "bin" / "litellm"
    if built.is_file():
        return built
    found = shutil.which("litellm")
    return Path(found) if found else None


@dataclass
class Replica:
    name: str
    port: int
    host: HostProcess

    @property
    def url(self) -> str:
        return f"http://{LOCALHOST}:{self.port}"

    def stats(self) -> dict[str, Any]:
        with urllib.request.urlopen(f"{self.url}/stats", timeout=5) as reply:
            return dict(json.load(reply))

    def admin(self, **settings: Any) -> None:
        request = urllib.request.Request(
            f"{self.url}/admin", data=json.dumps(settings).encode(), method="POST"
        )
        with urllib.request.urlopen(request, timeout=5):
            pass


def start_replica(name: str, log_dir: Path, env: dict[str, str], *extra: str) -> Replica:
    port = free_port()
    argv = [sys.executable, str(HERE / "fake_replica.py"), "--port", str(port), "--name", name, *extra]
    host = HostProcess(f"replica-{name}", argv, env, log_dir)
    replica = Replica(name, port, host)
    wait_for(f"replica {name} answering /stats", lambda: _try(replica.stats), 20, host)
    return replica


def litellm_config(replicas: list[Replica], *, retries: int = 2, cooldown_s: float = 30) -> dict[str, Any]:
    """Two model groups over the same replicas: ``local`` with session affinity, ``local-shuffle`` without."""
    deployments = [
        {
            "model_name": group,
            "litellm_params": {"model": "openai/local", "api_base": f"{r.url}/v1", "api_key": "sk-no-key"},
            "model_info": {"id": f"{group}-{r.name}"},
        }
        for group in (AFFINE, SHUFFLED)
        for r in replicas
    ]
    return {
        "model_list": deployments,
        "router_settings": {
            "routing_strategy": "simple-shuffle",
            # The pre-call check that pins x-litellm-session-id to the deployment that served it first.
            "optional_pre_call_checks": ["session_affinity"],
            "model_group_affinity_config": {AFFINE: ["session_affinity"], SHUFFLED: []},
            "num_retries": retries,
            "retry_after": 0,
            "allowed_fails": 1,
            "cooldown_time": cooldown_s,
        },
        "litellm_settings": {"telemetry": False, "request_timeout": 30},
        "general_settings": {"master_key": MASTER_KEY},
    }


def start_proxy(
    config: dict[str, Any], log_dir: Path, env: dict[str, str], timeout: float = 90
) -> tuple[str, HostProcess]:
    """LiteLLM's proxy on a free port with ``config``; returns its ``/v1`` URL and the process."""
    litellm = litellm_command()
    assert litellm is not None, "no litellm command (scripts/bootstrap makes build/litellm-venv)"
    path = log_dir / "litellm.yaml"
    path.write_text(json.dumps(config, indent=2))  # YAML is a superset of JSON
    port = free_port()
    env = {**env, "LITELLM_LOCAL_MODEL_COST_MAP": "True", "LITELLM_TELEMETRY": "False", "NO_DOCS": "True"}
    argv = [
        str(litellm),
        "--config",
        str(path),
        "--host",
        LOCALHOST,
        "--port",
        str(port),
        "--num_workers",
        "1",
    ]
    host = HostProcess("litellm", argv, env, log_dir, cwd=str(log_dir))
    base = f"http://{LOCALHOST}:{port}"
    wait_for(
        "the LiteLLM proxy answering /health/liveliness",
        lambda: _try(_get, f"{base}/health/liveliness"),
        timeout,
        host,
    )
    return f"{base}/v1", host


def _get(url: str) -> bytes:
    with urllib.request.urlopen(url, timeout=2) as reply:
        return bytes(reply.read())


def _try(fn: Any, *args: Any) -> Any:
    try:
        return fn(*args)
    except OSError:
        return None
