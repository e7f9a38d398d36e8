"""`chat` shows its steps and nothing between them: warnings go to a log file, errors still show."""

from __future__ import annotations

import logging
from pathlib import Path

import pytest
from ovos_utils.log import LOG

from ovos_agentic_loop import cli
from ovos_agentic_loop.local.paths import CACHE_ENV


def _warn_from_an_ovos_module() -> None:
    LOG.warning("a tool failed: unknown unit 'USD'")


def test_warnings_go_to_the_log_file_and_errors_to_the_terminal(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv(CACHE_ENV, str(tmp_path))
    with cli._quiet_logs(verbose=False):
        _warn_from_an_ovos_module()  # a logger LOG creates now, with its own stdout handler
        logging.getLogger("ovos_agentic_loop.local.prompt_cache").warning("prompt cache ignored")
        LOG.error("the model server refused the request")
    shown = capsys.readouterr()
    terminal = shown.out + shown.err
    assert "unknown unit" not in terminal and "prompt cache ignored" not in terminal
    assert "the model server refused the request" in terminal
    kept = cli.log_path().read_text()
    assert "unknown unit 'USD'" in kept and "prompt cache ignored" in kept and "refused" in kept


def test_verbose_shows_warnings_and_quiet_mode_is_undone_after(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv(CACHE_ENV, str(tmp_path))
    with cli._quiet_logs(verbose=False):
        _warn_from_an_ovos_module()
    capsys.readouterr()
    assert "create_logger" not in LOG.__dict__ or isinstance(LOG.__dict__["create_logger"], classmethod)
    with cli._quiet_logs(verbose=True):
        _warn_from_an_ovos_module()
    shown = capsys.readouterr()
    assert "unknown unit" in shown.out + shown.err
    LOG.set_level("INFO")
