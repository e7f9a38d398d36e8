"""A test whose optional package is missing skips with the package and how to install it (fails under
scripts/check, which installs them all); a name not in the table is a mistake, not a skip."""

from __future__ import annotations

import pytest
from optional_packages import NEED_ALL, OPTIONAL, missing_reason, require, skip_unless_installed

ABSENT = "ovos_agentic_loop_no_such_module"


@pytest.fixture
def absent(monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setitem(OPTIONAL, ABSENT, "no-such-dist, pip install no-such-dist")
    monkeypatch.delenv(NEED_ALL, raising=False)
    return ABSENT


def test_a_missing_package_skips_naming_it_and_how_to_install_it(absent: str) -> None:
    with pytest.raises(pytest.skip.Exception) as skipped:
        require(absent)
    assert (
        str(skipped.value) == f"needs no-such-dist, pip install no-such-dist ({absent!r} is not importable)"
    )


def test_under_need_all_a_missing_package_fails_the_test(
    absent: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(NEED_ALL, "1")
    with pytest.raises(pytest.fail.Exception, match=f"needs no-such-dist.*{NEED_ALL}=1 asks for every"):
        skip_unless_installed(absent)


def test_an_installed_package_is_imported(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(OPTIONAL, "json", "the standard library")
    assert missing_reason("json") is None
    assert require("json").dumps([1]) == "[1]"


def test_a_name_outside_the_table_is_an_error_not_a_skip() -> None:
    with pytest.raises(KeyError, match=r"not in tests/optional_packages\.OPTIONAL; add it"):
        missing_reason("numpy")
