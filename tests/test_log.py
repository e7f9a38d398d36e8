"""The loop's cheap OVOS logger: LOG's format, handlers and level, without its caller lookup."""

from __future__ import annotations

import inspect

import pytest
from ovos_utils.log import LOG

from ovos_agentic_loop._runtime.log import ovos_logger


def test_lines_look_like_log_lines_and_follow_its_level(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    def no_stack(*_: object) -> None:
        raise AssertionError("inspect.stack() reads the source of every frame: milliseconds a line")

    monkeypatch.setattr(inspect, "stack", no_stack)
    level = LOG.level
    try:
        LOG.set_level("INFO")
        ovos_logger("test_log.one").info("toolbox loaded")
        assert f"{LOG.name} - test_log.one - INFO - toolbox loaded" in capsys.readouterr().out
        LOG.set_level("WARNING")
        ovos_logger("test_log.one").info("not shown")
        assert "not shown" not in capsys.readouterr().out
    finally:
        LOG.set_level(level)
