"""The loop behind a real LiteLLM proxy in front of two model replicas, under load.

One LiteLLM proxy (``litellm[proxy]``, the ``scale`` extra) routes to two fake replicas
(``fake_replica.py``: a scripted model that makes every turn call one tool, with delays, faults
and a view of what it served). The loop runs 50 concurrent sessions of 3 turns each, as
ovos-persona-server would drive it (``continue_chat`` with the whole history every turn; half
the sessions name a user, half are anonymous), then 20 more while one replica is killed.
Everything listens on 127.0.0.1 and is stopped by its PID. Select it with ``-m scale``; it takes
about 45 s on 2 busy cores (LiteLLM's start about 10 s, its routing about 40 ms a request).
"""

from __future__ import annotations

import re
import threading
import time
from collections import Counter
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

import pytest
from host_processes import make_home, wait_for
from optional_packages import need_all
from scale_hosts import (
    AFFINE,
    MASTER_KEY,
    SHUFFLED,
    Replica,
    litellm_command,
    litellm_config,
    start_proxy,
    start_replica,
)

from ovos_agentic_loop.brain import OpenAIBrain
from ovos_agentic_loop.engine import ReActLoopEngine
from ovos_agentic_loop.errors import BrainError
from ovos_agentic_loop.events import Final, StepEvent
from ovos_agentic_loop.function_tools import toolbox_from_functions
from ovos_agentic_loop.messages import AgentMessage, MessageRole

pytestmark = [pytest.mark.scale, pytest.mark.timeout(240)]

NO_LITELLM = (
    "needs LiteLLM's proxy: scripts/bootstrap installs the scale extra's litellm[proxy] into "
    "build/litellm-venv (or set OVOS_AGENTIC_LOOP_LITELLM to a litellm command)"
)

SESSIONS, TURNS = 50, 3
SERVED_BY = re.compile(r"Served by (\w+)\.")


@dataclass
class Deployment:
    replicas: list[Replica]
    proxy_url: str
    stop: Any = None

    def replica(self, name: str) -> Replica:
        return next(r for r in self.replicas if r.name == name)


@pytest.fixture(scope="module")
def deployment(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Deployment]:
    if litellm_command() is None:
        if need_all():
            pytest.fail(NO_LITELLM)  # scripts/check: a missing proxy must not pass by skipping
        pytest.skip(NO_LITELLM)
    base = tmp_path_factory.mktemp("scale")
    home = make_home(base)
    started = []
    try:
        replicas = []
        for name in ("a", "b"):
            replicas.append(start_replica(name, base, home.env, "--first-token-delay", "0.05"))
            started.append(replicas[-1].host)
        url, proxy = start_proxy(litellm_config(replicas), base, home.env)
        started.append(proxy)
        yield Deployment(replicas, url)
    finally:
        for host in reversed(started):
            host.stop()


@dataclass
class Notes:
    """The tool every turn calls: it counts each text it was asked to note (one per turn, unique)."""

    seen: Counter[str] = field(default_factory=Counter)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def note_turn(self, text: str) -> str:
        """Note the turn's text."""
        with self.lock:
            self.seen[text] += 1
        return f"noted {text}"


@dataclass
class Loop:
    engine: ReActLoopEngine
    notes: Notes
    finals: list[Final]


def make_loop(url: str, model: str, **brain: Any) -> Loop:
    notes = Notes()
    settings = {
        "api_url": url,
        "key": MASTER_KEY,
        "model": model,
        "retry_backoff": 0.1,
        "timeout": 20,
        **brain,
    }
    engine = ReActLoopEngine(
        config={"warm_up": False, "time_budget": 45},
        brain=OpenAIBrain(settings),
        toolboxes=[toolbox_from_functions(notes.note_turn)],
    )
    finals: list[Final] = []
    lock = threading.Lock()

    def on_step(event: StepEvent) -> None:
        if isinstance(event, Final):
            with lock:
                finals.append(event)

    engine.add_step_listener(on_step)
    return Loop(engine, notes, finals)


def session_id(s: int) -> str:
    return f"user-{s}" if s % 2 else "default"  # "default": what persona-server passes without `user`


def text_of(s: int, t: int) -> str:
    return f"session {s} turn {t}"


def converse(loop: Loop, s: int, turns: int = TURNS, pause: float = 0.0) -> list[str]:
    """One session as a caller holding the history: each turn sends all of it. The answers, or
    ``"FAILED: ..."`` for a turn that raised (the caller then keeps the question unanswered)."""
    history: list[AgentMessage] = []
    answers = []
    for t in range(turns):
        history.append(AgentMessage(MessageRole.USER, text_of(s, t)))
        try:
            reply = loop.engine.continue_chat(list(history), session_id=session_id(s))
            answers.append(reply.content)
            history.append(AgentMessage(MessageRole.ASSISTANT, reply.content))
        except BrainError as exc:
            answers.append(f"FAILED: {exc}")
        time.sleep(pause)
    return answers


def run_sessions(loop: Loop, sessions: int, **options: Any) -> list[list[str]]:
    with ThreadPoolExecutor(max_workers=sessions) as pool:
        futures = [pool.submit(converse, loop, s, **options) for s in range(sessions)]
        return [future.result(timeout=120) for future in futures]  # a hang fails here, bounded


def served_by(answer: str) -> str:
    found = SERVED_BY.search(answer)
    assert found, f"not an answer from a replica: {answer!r}"
    return found.group(1)


def test_fifty_sessions_each_stay_on_one_replica_and_every_turn_is_answered(deployment: Deployment) -> None:
    loop = make_loop(deployment.proxy_url, AFFINE)
    before = {r.name: r.stats()["completed"] for r in deployment.replicas}
    started = time.monotonic()
    answers = run_sessions(loop, SESSIONS)
    took = time.monotonic() - started

    assert all(text_of(s, t) in answers[s][t] for s in range(SESSIONS) for t in range(TURNS)), answers
    homes = [{served_by(answer) for answer in session} for session in answers]
    assert all(len(home) == 1 for home in homes), f"sessions that moved between replicas: {homes}"
    per_replica = Counter(next(iter(home)) for home in homes)
    assert set(per_replica) == {"a", "b"}, f"one replica served every session: {per_replica}"
    # Each turn: one request with the tool call, one with the answer; every turn's tool ran exactly once.
    done = sum(r.stats()["completed"] - before[r.name] for r in deployment.replicas)
    assert done == SESSIONS * TURNS * 2
    assert loop.notes.seen == Counter({text_of(s, t): 1 for s in range(SESSIONS) for t in range(TURNS)})
    # The step events name the session key (the same for a session's turns) and where each turn's time went.
    keys: dict[str, set[str]] = {}
    for final in loop.finals:
        assert (
            final.timings is not None
            and final.timings["model_calls"] == 2
            and final.timings["tool_calls"] == 1
        )
        assert final.timings["total_s"] >= final.timings["model_s"] > 0
        keys.setdefault(final.answer.split("noted ")[1].split(" turn")[0], set()).add(final.session_key)
    assert len(keys) == SESSIONS and all(len(k) == 1 for k in keys.values())
    assert len({k for ks in keys.values() for k in ks}) == SESSIONS  # 50 sessions, 50 keys
    print(f"\n{SESSIONS}x{TURNS} turns in {took:.1f} s; sessions per replica {dict(per_replica)}")


def test_without_affinity_the_same_sessions_are_spread_over_both_replicas(deployment: Deployment) -> None:
    """The check that the test above can fail: the same traffic, routed without the session pin."""
    loop = make_loop(deployment.proxy_url, SHUFFLED)
    answers = run_sessions(loop, 10)
    homes = [{served_by(answer) for answer in session} for session in answers]
    assert any(len(home) == 2 for home in homes), f"every session stayed on one replica by chance: {homes}"


def test_a_503_no_slot_reply_is_retried_after_its_retry_after(deployment: Deployment) -> None:
    """A replica answering 503 "no slot available" with Retry-After: the router moves on or the brain
    waits as told; the turn is answered once and its tool runs once."""
    for replica in deployment.replicas:
        replica.admin(fail=1, fail_status=503, retry_after="1")
    try:
        loop = make_loop(deployment.proxy_url, AFFINE)
        answers = run_sessions(loop, 4, turns=1)
    finally:
        for replica in deployment.replicas:
            replica.admin(fail=0)
    assert all("Served by" in a[0] for a in answers), answers
    assert loop.notes.seen == Counter({text_of(s, 0): 1 for s in range(4)})


def test_a_caller_that_goes_away_frees_the_replica(deployment: Deployment) -> None:
    """The caller reads the first sentence of a long streamed answer and stops: the loop closes its
    request, LiteLLM closes the replica's, and the replica stops writing it."""
    for replica in deployment.replicas:
        replica.admin(chunk_delay=0.15, extra_sentences=40)  # about 45 s of answer if nobody stopped it
    try:
        loop = make_loop(deployment.proxy_url, AFFINE)
        before = {r.name: r.stats() for r in deployment.replicas}
        messages = [AgentMessage(MessageRole.USER, "a long answer, please")]
        sentences = loop.engine.stream_sentences(messages, session_id="leaves-early")
        first = next(sentences)
        assert "Noted" in first
        busy = [r for r in deployment.replicas if r.stats()["in_flight"] == 1]
        assert len(busy) == 1, "the answer is not being written by one replica"
        sentences.close()  # the caller goes away (persona-server closes the stream on a disconnect)
        replica = busy[0]

        def idle() -> dict[str, Any] | None:
            stats = replica.stats()
            return stats if stats["in_flight"] == 0 else None

        stats = wait_for("the replica giving the request up", idle, timeout=5)
        assert stats["disconnects"] == before[replica.name]["disconnects"] + 1
        assert stats["completed"] == before[replica.name]["completed"] + 1  # only the tool-call request
    finally:
        for replica in deployment.replicas:
            replica.admin(chunk_delay=0.01, extra_sentences=0)


def test_a_replica_killed_mid_run_loses_no_turn_and_runs_no_tool_twice(deployment: Deployment) -> None:
    """Last in this module: it kills replica b. In-flight requests on b fail with a reset connection;
    the router (then the brain) retries them on a. No turn hangs, none is lost silently, no tool
    call runs twice; every turn after the kill is answered by a."""
    for replica in deployment.replicas:
        replica.admin(first_token_delay=0.3)  # so that requests are on b when it dies
    loop = make_loop(deployment.proxy_url, AFFINE)
    sessions = 20
    killed_at: list[float] = []

    def kill_b() -> None:
        victim = deployment.replica("b")
        wait_for("replica b under load", lambda: True if victim.stats()["in_flight"] >= 4 else None, 30)
        victim.host.stop()  # SIGTERM then SIGKILL, by its PID: connections in flight are reset
        killed_at.append(time.monotonic())

    killer = threading.Thread(target=kill_b)
    killer.start()
    answers = run_sessions(loop, sessions, pause=0.2)
    killer.join(timeout=30)
    assert killed_at, "replica b was never killed"

    failed = [a for session in answers for a in session if a.startswith("FAILED")]
    assert not failed, f"turns lost although replica a was up: {failed[:3]}"
    assert all(text_of(s, t) in answers[s][t] for s in range(sessions) for t in range(TURNS))
    assert max(loop.notes.seen.values()) == 1, [t for t, n in loop.notes.seen.items() if n > 1]
    assert len(loop.notes.seen) == sessions * TURNS
    lasts = Counter(served_by(session[-1]) for session in answers)
    assert lasts == Counter({"a": sessions}), f"last turns after the kill: {lasts}"
