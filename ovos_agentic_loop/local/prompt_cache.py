"""A persona's warmed prompt cache on disk: the first answer after ``server start`` skips the tool list.

Reading a persona's system prompt and tool list (1,500-3,000 tokens) is most of the first
request's time on a CPU. llama-server can write a slot's KV cache to a file and read it back
(``--slot-save-path``, ``POST /slots/{id}?action=save|restore``). The warm-up of a persona
(``OpenAIBrain.prefill``) restores the file for its exact prompt when there is one, and saves
it after reading the prompt when there was none.

A file is valid only for the same model, the same chat template and the same prompt, so the
file name is a hash of the three, and a JSON sidecar records them: a file whose sidecar is
missing or disagrees (stale), or that the server refuses to load (corrupt, or written for
another context size), is logged and deleted, never an error: the warm-up then reads the
prompt as usual and saves a fresh file.

Only for our own local server (``ovos-agentic-loop server start``), which is started with
``--slot-save-path`` pointing at :func:`slots_dir`, so files written by the server are the
ones read here.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import logging
import time
import urllib.error
import urllib.parse
import urllib.request
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from ovos_agentic_loop.local import server
from ovos_agentic_loop.local.paths import slots_dir

__all__ = ["CacheKey", "SlotCache", "prefix_hash", "slot_cache_for", "slots_dir"]

LOG = logging.getLogger(__name__)

#: Request fields that decide the prompt's tokens; sampling settings and ``max_tokens`` do not.
PROMPT_FIELDS = ("messages", "tools", "tool_choice", "parallel_tool_calls", "chat_template_kwargs")
#: The slot the warm-up runs in and saves from (llama-server picks it again for the real turn:
#: it sends a request to the slot whose cached prompt shares the longest prefix with it).
WARM_SLOT = 0
_TIMEOUT = 30.0  # saving or loading ~100 MB of KV cache
#: What a slot action returns when the server answered with an error (it read and refused the file).
REFUSED = object()


def prefix_hash(body: dict[str, Any]) -> str:
    """sha256 of what makes the prompt: messages, tools and the template switches, canonical JSON."""
    prompt = {key: body[key] for key in PROMPT_FIELDS if key in body}
    text = json.dumps(prompt, sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


@dataclass(frozen=True)
class CacheKey:
    """What a slot file is valid for."""

    model_sha256: str
    template_sha256: str
    prefix_sha256: str

    @property
    def name(self) -> str:
        digest = hashlib.sha256(f"{self.model_sha256}|{self.template_sha256}|{self.prefix_sha256}".encode())
        return f"prompt-{digest.hexdigest()[:32]}.bin"


class SlotCache:
    """Save and restore one slot of the llama-server at ``base_url`` (no ``/v1``) under ``folder``."""

    def __init__(self, base_url: str, folder: Path, model_sha256: str, slot: int = WARM_SLOT) -> None:
        self.base_url = base_url.rstrip("/")
        self.folder = folder
        self.model_sha256 = model_sha256
        self.slot = slot

    # -- keys ------------------------------------------------------------------------
    def key_for(self, body: dict[str, Any], chat_template: str) -> CacheKey:
        template = hashlib.sha256(chat_template.encode()).hexdigest()
        return CacheKey(self.model_sha256, template, prefix_hash(body))

    def chat_template(self) -> str | None:
        """The template the server renders prompts with (``GET /props``); None when unreadable."""
        props = self._request("GET", "/props", None)
        template = props.get("chat_template") if isinstance(props, dict) else None
        return template if isinstance(template, str) else None

    # -- files -----------------------------------------------------------------------
    def _paths(self, key: CacheKey) -> tuple[Path, Path]:
        data = self.folder / key.name
        return data, data.with_suffix(".json")

    def _discard(self, key: CacheKey, why: str) -> None:
        LOG.warning("prompt cache %s ignored and deleted: %s", key.name, why)
        for path in self._paths(key):
            path.unlink(missing_ok=True)

    def entry_valid(self, key: CacheKey) -> bool:
        """True when a file for ``key`` exists and its sidecar says it was written for ``key``.

        A file without a matching sidecar is stale (an interrupted save, an old format, or a
        hash collision) and is deleted.
        """
        data, meta = self._paths(key)
        if not data.is_file():
            return False
        try:
            recorded = json.loads(meta.read_text())
        except (OSError, ValueError) as exc:
            self._discard(key, f"no readable sidecar ({exc})")
            return False
        if not isinstance(recorded, dict) or recorded.get("key") != asdict(key):
            self._discard(key, "written for another model, template or prompt")
            return False
        return True

    # -- server actions ---------------------------------------------------------------
    def restore(self, key: CacheKey) -> bool:
        """Load the slot file for ``key`` into the slot; False (logged) when there is none or it fails."""
        if not self.entry_valid(key):
            return False
        started = time.monotonic()
        result = self._slot_action("restore", key.name)
        if result is REFUSED:
            self._discard(key, "llama-server could not load it (corrupt, or another context size)")
            return False
        if not isinstance(result, dict):
            # No answer in time (a busy machine) says nothing about the file: it is kept.
            LOG.warning(
                "prompt cache %s: llama-server did not confirm the restore; the file is kept", key.name
            )
            return False
        LOG.info(
            "prompt cache %s restored: %s tokens in %.2f s",
            key.name,
            result.get("n_restored", "?"),
            time.monotonic() - started,
        )
        return True

    def save(self, key: CacheKey) -> bool:
        """Write the slot to the file for ``key``, then its sidecar; False (logged) on failure."""
        self.folder.mkdir(parents=True, exist_ok=True)
        result = self._slot_action("save", key.name)
        if not isinstance(result, dict):
            return False
        _, meta = self._paths(key)
        record = {"key": asdict(key), "n_tokens": result.get("n_saved"), "saved_at": time.time()}
        meta.write_text(json.dumps(record, indent=2))
        return True

    def _slot_action(self, action: str, filename: str) -> dict[str, Any] | object | None:
        """The server's reply; :data:`REFUSED` when it answered with an error; None without an answer."""
        reply = self._request("POST", f"/slots/{self.slot}?action={action}", {"filename": filename})
        return reply if isinstance(reply, dict) or reply is REFUSED else None

    def _request(self, method: str, path: str, body: dict[str, Any] | None) -> Any:
        """The JSON the server answered; :data:`REFUSED` for an HTTP error; None when there was no
        answer (refused connection, ``_TIMEOUT``): a slow server is not a bad file."""
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(
            self.base_url + path, data=data, method=method, headers={"Content-Type": "application/json"}
        )
        try:
            with urllib.request.urlopen(request, timeout=_TIMEOUT) as response:
                return json.loads(response.read() or b"null")
        except urllib.error.HTTPError as exc:
            detail = ""
            with contextlib.suppress(OSError):
                detail = exc.read().decode(errors="replace")[:300]
            LOG.warning("prompt cache: %s %s -> HTTP %s %s", method, path, exc.code, detail)
            return REFUSED
        except (OSError, ValueError) as exc:
            LOG.warning("prompt cache: %s %s failed: %s", method, path, exc)
        return None


def slot_cache_for(api_url: str) -> SlotCache | None:
    """A :class:`SlotCache` when ``api_url`` is our own local llama-server started with slot saving."""
    parsed = urllib.parse.urlsplit(api_url)
    if parsed.hostname not in ("127.0.0.1", "localhost", "::1") or parsed.port is None:
        return None
    info = server.read_info(parsed.port)
    if info is None or not info.slot_save_path:
        return None
    return SlotCache(info.base_url, Path(info.slot_save_path), model_identity(Path(info.model)))


def model_identity(model: Path) -> str:
    """The model's sha256 from the verified marker ``ensure_model`` writes; else path, size and mtime.

    Hashing a 1 GB file on every warm-up would cost seconds; a model without a marker is one the
    user pointed at themselves, and a changed file changes its size or mtime.
    """
    marker = model.with_name(model.name + ".sha256")
    with contextlib.suppress(OSError):
        sha = marker.read_text().strip()
        if len(sha) == 64:
            return sha
    try:
        stat = model.stat()
    except OSError:
        return f"{model}:missing"
    return f"{model}:{stat.st_size}:{stat.st_mtime_ns}"
