"""Where remembered turns are kept: each conversation's turns as one JSON text under its key.

- ``process``: a dict with a lock, shared by the engines of this process (a key names its persona
  and loop, so they never read each other's); at most :data:`MAX_CONVERSATIONS` conversations.
- ``file``: an SQLite file in the user cache folder, for a skills service that restarts: SQLite
  takes concurrent writers of several processes, which a JSON-lines file would need a lock for.
- ``redis``: a Redis server shared by replicas; every key expires after ``memory_max_age``.

A store that cannot be reached raises :class:`StoreDown`; the engine then runs the turn without
memory (never fails the answer). A wrong setting raises ``ConfigError`` when the engine is built.
"""

from __future__ import annotations

import sqlite3
import threading
import time
from collections import OrderedDict
from pathlib import Path
from typing import Any, Protocol

from ovos_agentic_loop.config import LoopConfig
from ovos_agentic_loop.errors import ConfigError

__all__ = [
    "MAX_CONVERSATIONS",
    "FileStore",
    "MemoryStore",
    "ProcessStore",
    "RedisStore",
    "StoreDown",
    "memory_file",
    "open_store",
]

#: Conversations the in-process store keeps at most; the least recently written go first.
MAX_CONVERSATIONS = 1000
#: Seconds a Redis request may take before the turn goes on without memory: a voice is waiting.
REDIS_TIMEOUT_S = 1.0


class StoreDown(RuntimeError):
    """The store could not be read or written; the message says which and why."""


class MemoryStore(Protocol):
    def get(self, key: str) -> str | None:
        """The text kept under ``key``, None when there is none (or it expired)."""
        ...

    def put(self, key: str, text: str, ttl: float) -> None:
        """Keep ``text`` under ``key`` for ``ttl`` seconds."""
        ...


class ProcessStore:
    """A dict with a lock: one process, gone at its exit."""

    def __init__(self, limit: int = MAX_CONVERSATIONS) -> None:
        self._lock = threading.Lock()
        self._items: OrderedDict[str, tuple[float, str]] = OrderedDict()
        self._limit = limit

    def get(self, key: str) -> str | None:
        with self._lock:
            item = self._items.get(key)
        if item is None or item[0] < time.monotonic():
            return None
        return item[1]

    def put(self, key: str, text: str, ttl: float) -> None:
        with self._lock:
            self._items[key] = (time.monotonic() + ttl, text)
            self._items.move_to_end(key)
            while len(self._items) > self._limit:
                self._items.popitem(last=False)


#: The process's one in-process store: engines of one persona built again (ovos-persona reloads its
#: personas) still find the conversation.
_PROCESS_STORE = ProcessStore()


def memory_file() -> Path:
    """``<cache>/memory/conversations.sqlite3``, the cache being ``$OVOS_AGENTIC_LOOP_CACHE``, else
    ``$XDG_CACHE_HOME/ovos-agentic-loop`` (``~/.cache/ovos-agentic-loop``)."""
    from ovos_agentic_loop.local.paths import cache_dir

    return cache_dir() / "memory" / "conversations.sqlite3"


class FileStore:
    """An SQLite file: one row per conversation, with the wall-clock time it expires."""

    def __init__(self, path: Path) -> None:
        self.path = path
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            with self._connect() as db:
                db.execute(
                    "CREATE TABLE IF NOT EXISTS conversations "
                    "(key TEXT PRIMARY KEY, data TEXT NOT NULL, expires REAL NOT NULL)"
                )
        except (OSError, sqlite3.Error) as exc:
            raise ConfigError(
                f'memory "file": cannot use {path} ({exc}); make its folder writable, set '
                'OVOS_AGENTIC_LOOP_CACHE to another folder, or set "memory": "process"'
            ) from exc

    def _connect(self) -> sqlite3.Connection:
        # A connection per use: turns run in several threads, and a connection is not shared.
        return sqlite3.connect(self.path, timeout=5.0)

    def get(self, key: str) -> str | None:
        try:
            with self._connect() as db:
                row = db.execute(
                    "SELECT data FROM conversations WHERE key = ? AND expires >= ?", (key, time.time())
                ).fetchone()
        except sqlite3.Error as exc:
            raise StoreDown(f"reading {self.path}: {exc}") from exc
        return None if row is None else str(row[0])

    def put(self, key: str, text: str, ttl: float) -> None:
        now = time.time()
        try:
            with self._connect() as db:
                db.execute(
                    "INSERT OR REPLACE INTO conversations (key, data, expires) VALUES (?, ?, ?)",
                    (key, text, now + ttl),
                )
                db.execute("DELETE FROM conversations WHERE expires < ?", (now,))  # the file stays small
        except sqlite3.Error as exc:
            raise StoreDown(f"writing {self.path}: {exc}") from exc


class RedisStore:
    """A Redis server; each key carries its expiry (``SET ... PX``), so nothing needs cleaning."""

    def __init__(self, url: str) -> None:
        try:
            import redis
        except ImportError as exc:
            raise ConfigError(
                'memory "redis" needs the redis client: pip install ovos-agentic-loop[memory-redis] '
                '(or set "memory": "process")'
            ) from exc
        self.url = url
        self._errors: tuple[type[BaseException], ...] = (redis.RedisError, OSError)
        try:
            self._client: Any = redis.Redis.from_url(
                url, socket_timeout=REDIS_TIMEOUT_S, socket_connect_timeout=REDIS_TIMEOUT_S
            )
        except ValueError as exc:
            raise ConfigError(
                f'memory_url {url!r} is not a Redis URL ({exc}); write "redis://HOST:PORT/DB"'
            ) from exc

    def get(self, key: str) -> str | None:
        try:
            value = self._client.get(key)
        except self._errors as exc:
            raise StoreDown(f"Redis at {self.url}: {exc}") from exc
        return None if value is None else value.decode("utf-8") if isinstance(value, bytes) else str(value)

    def put(self, key: str, text: str, ttl: float) -> None:
        try:
            self._client.set(key, text.encode("utf-8"), px=max(1, int(ttl * 1000)))
        except self._errors as exc:
            raise StoreDown(f"Redis at {self.url}: {exc}") from exc


def open_store(settings: LoopConfig) -> MemoryStore | None:
    """The store ``settings.memory`` names; None for ``off``."""
    if settings.memory == "off":
        return None
    if settings.memory == "file":
        return FileStore(memory_file())
    if settings.memory == "redis":
        assert settings.memory_url is not None  # LoopConfig requires it with "redis"
        return RedisStore(settings.memory_url)
    return _PROCESS_STORE
