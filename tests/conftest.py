"""Fixtures shared by every test: log capture for OVOS's logger, small demo toolboxes, the guard against
real model servers (``model_server_guard``), the skip of tests whose optional package is missing
(``optional_packages``) and a real redis-server (``redis_server``)."""

from __future__ import annotations

import logging
import time
from collections.abc import Iterator

import pytest

# The guard's autouse fixture, its report hook and the redis_url fixture take effect by being names of
# this conftest.
from model_server_guard import no_model_server_connections, pytest_runtest_makereport, register_marker
from optional_packages import missing_reason, need_all, skip_unless_installed
from ovos_plugin_manager.templates.agent_tools import AgentTool, ToolArguments, ToolBox, ToolOutput
from ovos_utils.log import LOG
from pydantic import Field
from redis_server import redis_url

__all__ = ["no_model_server_connections", "pytest_runtest_makereport", "redis_url"]

NEEDS_PACKAGE = "needs_package"


def pytest_configure(config: pytest.Config) -> None:
    register_marker(config)
    config.addinivalue_line(
        "markers",
        f"{NEEDS_PACKAGE}(module, ...): skipped, naming the package and how to install it, when an optional "
        "module is not importable (tests/optional_packages.py)",
    )


def _needed_packages(item: pytest.Item) -> list[str]:
    return [module for mark in item.iter_markers(NEEDS_PACKAGE) for module in mark.args]


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """``@pytest.mark.needs_package("trafilatura")``: skipped, at the test's own line, when it is missing."""
    if need_all():
        return  # pytest_runtest_setup fails the test instead
    for item in items:
        for module in _needed_packages(item):
            reason = missing_reason(module)
            if reason is not None:
                item.add_marker(pytest.mark.skip(reason=reason))


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    if need_all():
        for module in _needed_packages(item):
            skip_unless_installed(module)  # fails: scripts/check installed every optional package


class OvosLogCapture:
    """What went through OVOS's ``LOG`` during a test, as (level, message) pairs."""

    def __init__(self) -> None:
        self.records: list[tuple[str, str]] = []

    @property
    def text(self) -> str:
        return "\n".join(f"{level.upper()} {message}" for level, message in self.records)

    def at(self, level: str) -> list[str]:
        return [message for lvl, message in self.records if lvl == level]


@pytest.fixture
def ovos_log(monkeypatch: pytest.MonkeyPatch) -> Iterator[OvosLogCapture]:
    """Records OVOS ``LOG`` calls: its loggers do not propagate, so caplog cannot see them."""
    capture = OvosLogCapture()
    for level in ("debug", "info", "warning", "error", "exception"):
        original = getattr(LOG, level)

        def record(*args: object, _original=original, _level=level, **kwargs: object) -> None:
            capture.records.append((_level, " ".join(str(a) for a in args)))
            _original(*args, **kwargs)

        monkeypatch.setattr(LOG, level, record)
    # The loop's INFO/DEBUG lines go through a plain logging.Logger (``_runtime.log``): seen too.
    for level in ("debug", "info", "warning", "error", "exception"):
        original_method = getattr(logging.Logger, level)

        def record_ours(
            self: logging.Logger,
            msg: object,
            *args: object,
            _original=original_method,
            _level=level,
            **kwargs: object,
        ) -> None:
            if "ovos_agentic_loop" in self.name:
                capture.records.append((_level, str(msg) % args if args else str(msg)))
            _original(self, msg, *args, **kwargs)

        monkeypatch.setattr(logging.Logger, level, record_ours)
    yield capture


class AddArgs(ToolArguments):
    a: int = Field(description="first number")
    b: int = Field(description="second number")


class NumberOut(ToolOutput):
    value: float


class SleepArgs(ToolArguments):
    seconds: float
    label: str = "x"


class SleepOut(ToolOutput):
    label: str
    slept: float


class FailArgs(ToolArguments):
    message: str = "boom"


class TextOut(ToolOutput):
    text: str


class DemoToolBox(ToolBox):
    """add, sleep, fail, bad_output: enough to drive every path of the loop."""

    def __init__(
        self, config: dict | None = None, bus: object = None, toolbox_id: str = "demo-tools"
    ) -> None:
        self.calls: list[tuple[str, dict]] = []
        super().__init__(toolbox_id, config, bus)

    def _add(self, args: AddArgs) -> NumberOut:
        self.calls.append(("add", args.model_dump()))
        return NumberOut(value=args.a + args.b)

    def _sleep(self, args: SleepArgs) -> SleepOut:
        self.calls.append(("sleep", args.model_dump()))
        time.sleep(args.seconds)
        return SleepOut(label=args.label, slept=args.seconds)

    def _fail(self, args: FailArgs) -> TextOut:
        raise PermissionError(args.message)

    def _bad_output(self, args: FailArgs) -> dict:
        return {"nope": 1}

    def discover_tools(self) -> list[AgentTool]:
        return [
            AgentTool("add", "Add two integers.", AddArgs, NumberOut, self._add),
            AgentTool("sleep", "Sleep some seconds.", SleepArgs, SleepOut, self._sleep),
            AgentTool("fail", "Always fails.", FailArgs, TextOut, self._fail),
            AgentTool("bad_output", "Returns the wrong shape.", FailArgs, TextOut, self._bad_output),
        ]


class OtherToolBox(ToolBox):
    """A second toolbox whose 'add' collides with DemoToolBox's."""

    def __init__(self, config: dict | None = None, bus: object = None) -> None:
        super().__init__("other-tools", config, bus)

    def discover_tools(self) -> list[AgentTool]:
        return [
            AgentTool("add", "Another add.", AddArgs, NumberOut, lambda a: NumberOut(value=-1)),
            AgentTool(
                "shout", "Upper-case a text.", FailArgs, TextOut, lambda a: TextOut(text=a.message.upper())
            ),
        ]


@pytest.fixture
def demo_tools() -> DemoToolBox:
    return DemoToolBox()
