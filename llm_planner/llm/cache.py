"""A disk cache of language-model answers, so a repeated benchmark run makes no new requests and
gives the same results (DESIGN.md, "LLM backends").

Keys are the SHA-256 of (backend, model, prompt, sampling parameters) in canonical JSON; the API
key is never part of a key or a value. Values are the raw answer texts as JSON. One sqlite file
(``answers.sqlite``) in the cache directory, in WAL mode so parallel benchmark processes can
share it.
"""
from __future__ import annotations

import hashlib
import json
import sqlite3
import threading
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from llm_planner.errors import LLMError


def open_sqlite(path: Path, schema: str) -> sqlite3.Connection:
    """A sqlite file shared by parallel processes (WAL, generous lock timeout) with ``schema`` applied."""
    path.parent.mkdir(parents=True, exist_ok=True)
    db = sqlite3.connect(str(path), timeout=30.0, check_same_thread=False)
    db.execute("PRAGMA journal_mode=WAL")
    db.execute(schema)
    db.commit()
    return db


def cache_key(backend: str, model: str, prompt: Any, params: Mapping[str, Any]) -> str:
    """The key of one request. ``prompt`` is the text or the chat messages; ``params`` the sampling
    parameters (n, temperature, top_p, max_tokens, stop, seed, ...)."""
    payload = json.dumps({"backend": backend, "model": model, "prompt": prompt, "params": dict(params)},
                         sort_keys=True, ensure_ascii=False, separators=(",", ":"))
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()


class AnswerCache:
    """``get(key)`` / ``put(key, texts)`` over a sqlite file; ``None`` directory means memory only."""

    def __init__(self, directory: Path | None) -> None:
        self.path = Path(directory) / "answers.sqlite" if directory else None
        self._memory: dict[str, list[str]] = {}
        self._db: sqlite3.Connection | None = None
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0

    def _connect(self) -> sqlite3.Connection | None:
        if self._db is None and self.path is not None:
            try:
                self._db = open_sqlite(self.path, "CREATE TABLE IF NOT EXISTS answers (key TEXT PRIMARY KEY, "
                                       "backend TEXT, model TEXT, texts TEXT, created REAL DEFAULT (julianday('now')))")
            except (sqlite3.Error, OSError) as exc:
                raise LLMError(f"cannot open the answer cache {self.path}: {exc} "
                               "(set cache.dir or $LLM_PLANNER_CACHE to a writable directory)") from None
        return self._db

    def get(self, key: str) -> list[str] | None:
        with self._lock:
            if key in self._memory:
                self.hits += 1
                return list(self._memory[key])
            db = self._connect()
            row = db.execute("SELECT texts FROM answers WHERE key=?", (key,)).fetchone() if db else None
            if row is None:
                self.misses += 1
                return None
            texts = json.loads(row[0])
            self._memory[key] = texts
            self.hits += 1
            return list(texts)

    def put(self, key: str, texts: list[str], backend: str = "", model: str = "") -> None:
        with self._lock:
            self._memory[key] = list(texts)
            db = self._connect()
            if db is not None:
                db.execute("INSERT OR REPLACE INTO answers (key, backend, model, texts) VALUES (?, ?, ?, ?)",
                           (key, backend, model, json.dumps(texts, ensure_ascii=False)))
                db.commit()

    def __len__(self) -> int:
        with self._lock:
            db = self._connect()
            if db is None:
                return len(self._memory)
            return int(db.execute("SELECT COUNT(*) FROM answers").fetchone()[0])

    def close(self) -> None:
        with self._lock:
            if self._db is not None:
                self._db.close()
                self._db = None
