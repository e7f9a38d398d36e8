"""Smoke tests of the bench's own parts: the scripted server, the counting proxy, the task checkers.

Fast, stdlib only, no model: ``python -m pytest bench/test_bench_smoke.py``. No venv either, but for
one end-to-end run of figure 8 on the scripted server, which uses the ``ours`` venv (skipped when it is
not built) and the ``upstream`` one too when it is built.
Not collected by the project's default test run (``testpaths = ["tests"]``).
"""

from __future__ import annotations

import datetime as dt
import http.client
import json
import re
import subprocess
import sys
import threading
import time
import urllib.parse
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))

import venvs
from loops_runner import LOOPS, LoopSystem, parse_loops, verdict
from scripted_server import CountingProxy, Script, ScriptedServer
from tasks_runner import TASKS_DIR, check, fill, load_tasks, numbers_in, placeholders, run_task

BENCH = Path(__file__).resolve().parent

TOOLS = [
    {"type": "function", "function": {"name": "echo", "parameters": {"type": "object", "properties": {}}}}
]


@pytest.fixture()
def server():
    srv = ScriptedServer().start()
    yield srv
    srv.stop()


class Client:
    """One keep-alive connection, as the frameworks' HTTP clients keep."""

    def __init__(self, base_url: str) -> None:
        parts = urllib.parse.urlsplit(base_url)
        self.prefix = parts.path
        self.conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=10)

    def chat(self, body: dict[str, Any]) -> tuple[int, bytes]:
        self.conn.request("POST", self.prefix + "/chat/completions", json.dumps(body), {"Content-Type": "x"})
        resp = self.conn.getresponse()
        return resp.status, resp.read()


def _conversation(client: Client, model: str, tools: list | None = None) -> list[dict[str, Any]]:
    messages: list[dict[str, Any]] = [{"role": "user", "content": "go"}]
    replies = []
    for _ in range(10):
        body: dict[str, Any] = {"model": model, "messages": messages}
        if tools:
            body["tools"] = tools
        status, raw = client.chat(body)
        assert status == 200
        msg = json.loads(raw)["choices"][0]["message"]
        replies.append(msg)
        messages.append(msg)
        if not msg.get("tool_calls") and "Action:" not in (msg.get("content") or ""):
            break
        messages.append({"role": "tool", "content": "ok"})
    return replies


def test_native_script_then_restart(server: ScriptedServer) -> None:
    server.add("m", Script(steps=2, calls_per_turn=3, tool="echo"))
    client = Client(server.base_url)
    for _ in range(2):  # a new conversation restarts the script
        replies = _conversation(client, "m", TOOLS)
        assert [len(r.get("tool_calls") or []) for r in replies] == [3, 3, 0]
        args = {c["function"]["arguments"] for c in replies[0]["tool_calls"]}
        assert len(args) == 3  # distinct calls: no loop mistakes them for repetitions
        assert replies[-1]["content"] == "All done."
    assert server.scripts["m"].requests == 6


def test_text_protocol_without_tools(server: ScriptedServer) -> None:
    server.add("t", Script(steps=1, tool="echo"))
    replies = _conversation(Client(server.base_url), "t")
    assert "Action: echo" in replies[0]["content"]
    assert "FINAL_ANSWER: All done." in replies[1]["content"]


def test_final_answer_tool_for_smolagents(server: ScriptedServer) -> None:
    server.add("s", Script(steps=0, final="42"))
    tools = [*TOOLS, {"type": "function", "function": {"name": "final_answer", "parameters": {}}}]
    _, raw = Client(server.base_url).chat(
        {"model": "s", "messages": [{"role": "user", "content": "x"}], "tools": tools}
    )
    call = json.loads(raw)["choices"][0]["message"]["tool_calls"][0]
    assert call["function"]["name"] == "final_answer"
    assert json.loads(call["function"]["arguments"]) == {"answer": "42"}


def test_unknown_model_is_404(server: ScriptedServer) -> None:
    status, _ = Client(server.base_url).chat({"model": "nope", "messages": []})
    assert status == 404


def test_streaming_paces_the_final_answer(server: ScriptedServer) -> None:
    server.add("st", Script(steps=0, final="One. Two three four.", token_delay=0.05))
    client = Client(server.base_url)
    t0 = time.perf_counter()
    body = {"model": "st", "stream": True, "tools": TOOLS, "messages": [{"role": "user", "content": "x"}]}
    status, raw = client.chat(body)
    elapsed = time.perf_counter() - t0
    assert status == 200
    events = [line[6:] for line in raw.decode().split("\n\n") if line.startswith("data: ")]
    assert events[-1] == "[DONE]"
    text = "".join(json.loads(e)["choices"][0]["delta"].get("content") or "" for e in events[:-1])
    assert text == "One. Two three four."
    assert elapsed >= 0.15  # four words, paced


def test_no_nagle_stall_on_keep_alive(server: ScriptedServer) -> None:
    """A delayed-ACK stall costs ~40 ms a request; 30 requests must take far less than that."""
    server.add("fast", Script(steps=0))
    client = Client(server.base_url)
    client.chat({"model": "fast", "messages": [{"role": "user", "content": "warm"}]})
    t0 = time.perf_counter()
    for _ in range(30):
        client.chat({"model": "fast", "messages": [{"role": "user", "content": "x" * 3000}]})
    assert (time.perf_counter() - t0) / 30 < 0.02


def test_counting_proxy_forwards_and_counts(server: ScriptedServer) -> None:
    server.add("p", Script(steps=1, tool="echo"))
    proxy = CountingProxy(server.base_url).start()
    try:
        replies = _conversation(Client(proxy.base_url), "p", TOOLS)
        assert len(replies) == 2
        assert proxy.calls["p"] == 2
    finally:
        proxy.stop()


# --- the task suite --------------------------------------------------------------------------


def test_suite_is_well_formed() -> None:
    tasks = load_tasks()
    assert 40 <= len(tasks) <= 50
    assert len({t["id"] for t in tasks}) == len(tasks)
    categories = {t["category"] for t in tasks}
    assert {
        "math",
        "clock",
        "filesystem",
        "shell",
        "skills",
        "multi-step",
        "no-tool",
        "error-recovery",
    } <= categories
    values = placeholders("/sandbox")
    for task in tasks:
        assert task["check"]["type"] in {"number", "contains", "regex", "file"}, task["id"]
        assert task["toolboxes"], task["id"]
        for text in (task["prompt"], str(task["check"].get("value"))):
            left = re.findall(r"\{([a-z_]+)\}", fill(text, values))
            assert not left, (task["id"], left)
        if task["check"]["type"] == "regex":
            re.compile(fill(task["check"]["value"], values))
    assert (TASKS_DIR / "fixtures" / "notes.txt").is_file()
    assert len(list((TASKS_DIR / "skills").glob("*/SKILL.md"))) == 3


def test_halves_are_fixed_by_position_and_cover_every_category() -> None:
    tasks = load_tasks()
    by_category: dict[str, list[str]] = {}
    for task in tasks:
        by_category.setdefault(task["category"], []).append(task["half"])
    for category, halves in by_category.items():
        assert halves == [("tune", "held-out")[i % 2] for i in range(len(halves))], category
        if len(halves) > 1:
            assert {"tune", "held-out"} <= set(halves), category
    tune, held_out = load_tasks("tune"), load_tasks("held-out")
    assert len(tune) + len(held_out) == len(tasks)
    assert not {t["id"] for t in tune} & {t["id"] for t in held_out}
    assert {t["id"] for t in load_tasks("held-out,math-mul")} == {t["id"] for t in held_out} | {"math-mul"}


def _task(tid: str) -> dict[str, Any]:
    return next(t for t in load_tasks() if t["id"] == tid)


def test_number_checker() -> None:
    assert numbers_in("It is 7,006,652 (about 7.0e6).")[:1] == [7006652.0]
    assert check(_task("math-mul"), "1234 × 5678 = 7,006,652.", "")
    assert not check(_task("math-mul"), "It is about seven million.", "")
    assert check(_task("math-miles"), "5 miles is 8.05 km", "")
    assert not check(_task("math-miles"), "5 miles is 8.2 km", "")


def test_regex_and_time_checkers() -> None:
    moment = dt.datetime(2026, 3, 4, 23, 59, tzinfo=dt.timezone.utc)  # Wednesday; 08:59 in Tokyo
    assert check(_task("clock-weekday"), "Today is Wednesday.", "", [moment])
    assert not check(_task("clock-weekday"), "Today is Thursday.", "", [moment])
    assert check(_task("clock-tokyo"), "It is 08:59 in Tokyo.", "", [moment])
    assert check(_task("clock-date"), "It is 2026-03-04.", "", [moment])
    assert check(_task("multi-days-left"), "There are 302 days left.", "", [moment])
    assert check(_task("err-missing-file"), "The file does not exist.", "")


def test_contains_and_file_checkers(tmp_path: Path) -> None:
    assert check(_task("none-capital"), "paris, of course", "")
    assert not check(_task("fs-write"), "Done!", str(tmp_path))
    (tmp_path / "hello.txt").write_text("bench ok\n")
    assert check(_task("fs-write"), "Done!", str(tmp_path))


def test_days_left_is_not_fooled_by_the_date_in_the_question() -> None:
    task = _task("multi-days-left")
    now = dt.datetime(2026, 11, 30, 12, tzinfo=dt.timezone.utc)
    assert not check(task, "There are 1065 days left until December 31 of this year.", "", [now, now])
    assert check(task, "There are 31 days left until December 31.", "", [now, now])
    # a date written in the answer is no count: a described call passed this check once
    described = "You can use days_between with start_date today and end_date `2026-12-31`."
    assert not check(task, described, "", [now, now])


# --- figure 8: the loops ---------------------------------------------------------------------


def test_held_out_first_is_one_held_out_task_per_category() -> None:
    sample = load_tasks("held-out-first")
    assert [t["half"] for t in sample] == ["held-out"] * len(sample)
    assert len({t["category"] for t in sample}) == len(sample) == len({t["category"] for t in load_tasks()})
    for task in sample:  # the first of its category's held-out half, by position
        firsts = [t for t in load_tasks("held-out") if t["category"] == task["category"]]
        assert firsts[0]["id"] == task["id"]


def test_proxy_cancel_frees_a_request_in_flight(server: ScriptedServer) -> None:
    server.add("slow", Script(steps=0, final="one two three four five six", token_delay=0.5))
    proxy = CountingProxy(server.base_url).start()
    try:
        got: list[int] = []
        body = {"model": "slow", "messages": [{"role": "user", "content": "x"}]}
        thread = threading.Thread(target=lambda: got.append(Client(proxy.base_url).chat(body)[0]))
        t0 = time.perf_counter()
        thread.start()
        time.sleep(0.3)
        assert proxy.cancel("slow") == 1
        thread.join(5)
        assert got == [502] and time.perf_counter() - t0 < 2  # not the 3 s the reply takes
        assert Client(proxy.base_url).chat(body)[0] == 502  # later requests of that run are refused
    finally:
        proxy.stop()


def test_a_task_past_its_timeout_fails_as_timed_out(server: ScriptedServer) -> None:
    def hangs(system: Any, job: dict[str, Any], timeout: float, cwd: str) -> dict[str, Any]:
        raise subprocess.TimeoutExpired("adapter", timeout)

    proxy = CountingProxy(server.base_url).start()
    try:
        system = LoopSystem("ours-react", "ours react", "ours", "peer_ours.py", "ovos-react-loop", "ours")
        result = run_task(system, _task("math-sqrt"), proxy, hangs, timeout=7, tag="t8")
    finally:
        proxy.stop()
    assert result["timed_out"] and not result["ok"] and result["seconds"] == 7


def test_loop_names_and_verdicts() -> None:
    assert parse_loops("critic,ovos-plan-execute-loop") == [
        "ovos-react-loop",  # the baseline always runs
        "ovos-plan-execute-loop",
        "ovos-critic-loop",
    ]
    assert parse_loops(None) == list(LOOPS)
    with pytest.raises(ValueError):
        parse_loops("nonsense")
    base = {"solved": 5, "calls_per_task": 2.0}
    assert verdict({"solved": 6, "calls_per_task": 5.0}, base) == "better (+1; 2.5x calls)"
    assert verdict({"solved": 5, "calls_per_task": 1.0}, base) == "better (+0; 0.5x calls)"
    assert verdict({"solved": 5, "calls_per_task": 4.0}, base) == "no better (=; 2.0x calls)"
    assert verdict({"solved": 3, "calls_per_task": 4.0}, base) == "worse (-2; 2.0x calls)"
    none_solved = {"solved": 0, "calls_per_task": 2.0}
    assert verdict({"solved": 0, "calls_per_task": 1.0}, none_solved).startswith("no better")


@pytest.mark.skipif(
    not venvs.python_of("ours").exists(), reason="needs the ours venv: python3 bench/venvs.py ours"
)
def test_figure_8_runs_end_to_end_on_the_scripted_server(tmp_path: Path) -> None:
    """Two loops of ours (and upstream's, when its venv is built) on two tasks, without a model."""
    systems = "ours,upstream-react" if venvs.python_of("upstream").exists() else "ours"
    cmd = [sys.executable, str(BENCH / "run.py"), "--figures", "8", "--systems", systems]
    cmd += ["--llama-url", "scripted", "--loops", "plan-execute", "--tasks", "math-sqrt,fs-port"]
    out = subprocess.run(
        [*cmd, "--task-timeout", "120", "--results-dir", str(tmp_path)], capture_output=True, text=True
    )
    assert out.returncode == 0, out.stderr[-3000:]
    fig8 = json.loads((tmp_path / "latest.json").read_text())["fig8"]
    assert fig8["tasks"] == ["fs-port", "math-sqrt"]
    sides = systems.replace("upstream-react", "upstream").split(",")
    for loop in ("ovos-react-loop", "ovos-plan-execute-loop"):
        for side in sides:
            row = fig8["loops"][loop][side]
            assert row["tasks"] == 2 and row["timeouts"] == 0
            assert all(run["calls"] >= 1 and not run["error"] for run in row["runs"]), row["runs"]
    report = (tmp_path / "latest.md").read_text()
    assert "Figure 8 - each loop" in report and "Figure 8b - per task" in report
    assert not (tmp_path / "chart.png").exists()  # figure 8 is a table: no chart to redraw
