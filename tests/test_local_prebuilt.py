"""The prebuilt server (xllamacpp) runs with exactly the arguments the native llama-server gets."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import pytest
from optional_packages import require

from ovos_agentic_loop.local import prebuilt, server
from ovos_agentic_loop.local.server import ServerProgram, Threads


def _command(tmp_path: Path, template: Path | None = None) -> list[str]:
    program = ServerProgram("prebuilt", (sys.executable, "-m", prebuilt.MODULE), "xllamacpp test")
    model = tmp_path / "m.gguf"
    model.write_bytes(b"GGUF")
    slots = tmp_path / "slots"
    return server.server_command(program, model, template, 8099, "127.0.0.1", Threads(1, 2), 4096, slots)


def test_the_prebuilt_module_reads_every_argument_the_native_server_gets(tmp_path: Path) -> None:
    template = tmp_path / "t.jinja"
    template.write_text("{{ messages }}")
    command = _command(tmp_path, template)
    assert command[:3] == [sys.executable, "-m", prebuilt.MODULE]
    args = prebuilt.parse_args(command[3:])  # an unknown flag would end here with a usage error
    assert (args.port, args.host, args.alias, args.ctx) == (8099, "127.0.0.1", "local", 4096)
    assert (args.threads, args.threads_batch, args.poll, args.batch_size) == (1, 2, 0, 512)
    assert (
        args.jinja and args.slot_save_path == f"{tmp_path / 'slots'}/" and args.chat_template_file == template
    )


def test_an_unknown_argument_is_an_error_not_silently_dropped(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        prebuilt.parse_args(["--model", "m.gguf", "--no-such-flag"])
    assert "unrecognized arguments: --no-such-flag" in capsys.readouterr().err


def test_the_parameters_are_set_as_llama_servers_parser_sets_them(tmp_path: Path) -> None:
    require("xllamacpp")
    template = tmp_path / "t.jinja"
    template.write_text("{{ messages }} tools")
    params = prebuilt.params_for(prebuilt.parse_args(_command(tmp_path, template)[3:]))
    assert params.model.path == str(tmp_path / "m.gguf") and params.port == 8099
    assert params.hostnames == ["127.0.0.1"] and params.model_alias == {"local"}
    assert params.n_ctx == 4096 and params.n_batch == 512 and params.use_jinja
    assert params.n_parallel == -1  # llama-server's "auto": four slots sharing one KV cache
    assert params.cpuparams.n_threads == 1 and params.cpuparams_batch.n_threads == 2
    # --poll sets the writing threads' poll; the prompt threads have their own --threads-batch
    assert params.cpuparams.poll == 0 and params.cpuparams_batch.poll != 0
    assert params.slot_save_path == f"{tmp_path / 'slots'}/"
    assert params.chat_template == "{{ messages }} tools"  # the file's text, as --chat-template-file


def test_poll_reaches_the_prompt_threads_when_they_copy_the_writing_ones(tmp_path: Path) -> None:
    require("xllamacpp")
    (tmp_path / "m.gguf").write_bytes(b"GGUF")
    params = prebuilt.params_for(prebuilt.parse_args(["--model", str(tmp_path / "m.gguf"), "--poll", "0"]))
    assert params.cpuparams.poll == 0 and params.cpuparams_batch.poll == 0


def test_a_missing_model_says_what_to_run(tmp_path: Path) -> None:
    require("xllamacpp")
    with pytest.raises(SystemExit, match="ovos-agentic-loop setup"):
        prebuilt.params_for(prebuilt.parse_args(["--model", str(tmp_path / "none.gguf")]))


def test_start_prefers_the_native_build_and_falls_back_to_the_prebuilt_one(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(prebuilt, "package_version", lambda: "2026.10.11549")
    monkeypatch.setattr(server, "find_server_binary", lambda: Path("/opt/llama-server"))
    chosen = server.choose_server()
    assert chosen.kind == "native" and chosen.argv == ("/opt/llama-server",)
    assert "compiled for this CPU" in server.describe_choice(chosen)
    assert server.choose_server("prebuilt").kind == "prebuilt"
    monkeypatch.setattr(server, "find_server_binary", lambda: None)
    chosen = server.choose_server()
    assert chosen.kind == "prebuilt" and chosen.argv == (sys.executable, "-m", prebuilt.MODULE)
    said = server.describe_choice(chosen)
    assert "xllamacpp 2026.10.11549" in said and "ovos-agentic-loop server build" in said
    with pytest.raises(server.ServerError, match="server build"):
        server.choose_server("native")


def test_no_server_at_all_names_both_ways_to_get_one(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(prebuilt, "package_version", lambda: None)
    monkeypatch.setattr(server, "find_server_binary", lambda: None)
    with pytest.raises(server.ServerError, match=r"\[local\].*server build"):
        server.choose_server()


def test_a_prebuilt_server_process_is_recognised_as_ours_by_its_pid() -> None:
    # What /proc/<pid>/cmdline holds for `python -m ovos_agentic_loop.local.prebuilt ...`
    process = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)", prebuilt.MODULE])
    try:
        deadline = time.monotonic() + 5
        while not server._is_llama_server(process.pid) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert server._is_llama_server(process.pid)
    finally:
        process.kill()
        process.wait()
    other = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    try:
        time.sleep(0.2)
        assert not server._is_llama_server(other.pid)
    finally:
        other.kill()
        other.wait()


def test_old_pid_files_read_as_native(tmp_path: Path) -> None:
    info = server.ServerInfo(1, 8091, "127.0.0.1", "tools", "m.gguf", "/usr/bin/llama-server", 0.0)
    assert info.build == "native"


def test_doctor_says_which_build_runs_and_what_the_other_gives() -> None:
    from ovos_agentic_loop._doctor import _build_check

    prebuilt_check = _build_check("prebuilt", "xllamacpp 2026.10.11549")
    assert prebuilt_check.level == "ok" and "prebuilt" in prebuilt_check.detail
    assert server.NATIVE_SPEEDUP in prebuilt_check.detail and "server build" in prebuilt_check.detail
    native_check = _build_check("native", "/opt/llama-server")
    assert "native llama-server (/opt/llama-server)" in native_check.detail


def test_a_native_build_that_crashes_while_loading_gives_way_to_the_prebuilt_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import socket
    import textwrap

    from test_local_server import FAKE_SERVER

    from ovos_agentic_loop.local import model as model_mod
    from ovos_agentic_loop.local import template as template_mod
    from ovos_agentic_loop.local.paths import CACHE_ENV

    crashing = tmp_path / "llama-server"
    crashing.write_text(f"#!{sys.executable}\nimport os, signal\nos.kill(os.getpid(), signal.SIGSEGV)\n")
    working = tmp_path / "prebuilt-llama-server"
    working.write_text(FAKE_SERVER.format(python=sys.executable))
    for script in (crashing, working):
        script.chmod(0o755)
    monkeypatch.setenv(server.SERVER_BINARY_ENV, str(crashing))
    monkeypatch.setenv(CACHE_ENV, str(tmp_path / "cache"))
    monkeypatch.setenv("FAKE_ARGV_FILE", str(tmp_path / "argv.json"))
    monkeypatch.setattr(
        server, "prebuilt_program", lambda: ServerProgram("prebuilt", (str(working),), "fake")
    )
    (tmp_path / "m.gguf").write_bytes(b"GGUF")
    monkeypatch.setattr(model_mod, "ensure_model", lambda progress=None: tmp_path / "m.gguf")
    monkeypatch.setattr(template_mod, "ensure_templates", lambda: {"tools": tmp_path / "t.jinja"})
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = int(sock.getsockname()[1])
    said: list[str] = []
    try:
        info = server.start_server(port=port, threads=1, progress=said.append, ready_timeout=20)
        assert info.build == "prebuilt"
        assert any("crashed while loading (SIGSEGV)" in line for line in said), textwrap.indent(
            "\n".join(said), "  "
        )
    finally:
        server.stop_server(port, grace=2)
    with pytest.raises(server.ServerCrashed):  # asked for by name, the native build's crash is the answer
        server.start_server(port=port, threads=1, progress=said.append, ready_timeout=20, build="native")
