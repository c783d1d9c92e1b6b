"""What a backend's answerers share, built once per backend and lazily: the Sentence-BERT embedder,
the data set the domain's answerers read (``dataset``: the household's expert data set D), and a
table of further parts built once (:meth:`Resources.shared`: the household's grounder and retrieval
index, :mod:`llm_planner.domains.household.language.model_resources`; the offline answers' scene
knowledge; the directive reader's goal parsers)."""
from __future__ import annotations

import threading
from collections.abc import Callable, Hashable, Sequence
from pathlib import Path
from typing import Any, TypeVar

from llm_planner.llm.config import LLMConfig
from llm_planner.llm.embeddings import Embedder, shared_embedder

T = TypeVar("T")


class Resources:
    """Shared, lazily built parts of the LLM layer (see the module docstring)."""

    def __init__(self, config: LLMConfig, dataset: Sequence | str | Path | None = None,
                 embedder: Embedder | None = None) -> None:
        self.config = config
        emb = config.section("embeddings")
        self.embedder = embedder or shared_embedder(config.embeddings_dir if emb["disk_cache"] else None,
                                                    int(emb["batch_size"]))
        #: the data set given to ``make_backend`` (records or a path), None for the configured one
        self.dataset = dataset
        self._shared: dict[Hashable, Any] = {}
        self._lock = threading.RLock()

    def shared(self, key: Hashable, build: Callable[[], T]) -> T:
        """The part ``key`` built once per resources by ``build`` (a build that raises is tried again
        at the next call)."""
        with self._lock:
            if key not in self._shared:
                self._shared[key] = build()
            return self._shared[key]
