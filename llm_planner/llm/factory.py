"""``make_backend``: the one place that turns configuration into a :class:`LanguageModel`."""
from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from llm_planner.errors import LLMError, UnusableAnswer
from llm_planner.llm.base import LanguageModel, Usage, with_fallback_note
from llm_planner.llm.cache import AnswerCache
from llm_planner.llm.config import LLMConfig, load_llm_config
from llm_planner.llm.connections import QuestionAbandoned
from llm_planner.llm.embeddings import Embedder
from llm_planner.llm.in_flight import AnswerTimeout, QueueTimeout
from llm_planner.llm.liveness import accepts_connections
from llm_planner.llm.resources import Resources
from llm_planner.llm.waits import AnswerTimes

#: backend name -> (module, class): the offline provider and the OpenAI-compatible client.
BACKEND_CLASSES: dict[str, tuple[str, str]] = {
    "offline": ("llm_planner.llm.offline.backend", "OfflineBackend"),
    "openai": ("llm_planner.llm.openai_backend", "OpenAIBackend"),
}


class FallbackBackend(LanguageModel):
    """``openai`` first; the ``offline`` backend answers when the primary's server is gone or failing
    (``fallback_to_offline: true``), and ``info.fallback`` says why. ``usage`` adds both backends' figures.

    A busy server is not a gone one. An answer that does not read (:class:`UnusableAnswer`) came from a
    server that answers: it is raised as it is, and the caller reads it as it does without a fallback
    (LLM-MCTS: pi uniform at that node). A question that timed out, at a server that still accepts
    connections (``openai.alive_timeout_s``; :func:`~llm_planner.llm.liveness.accepts_connections`), met a
    long queue: it is raised too, not answered by the secondary. The secondary answers when the server
    does not accept connections (``fallback_state`` "stopped answering") or fails with an error
    (connection lost, HTTP 5xx after the retries, a refused request: "failed"), and while a probe says
    the server is gone (``primary_down``, set by the nodes' model-server probe)."""

    #: the two ways a server does not answer, as the feedback and the result say them
    GONE, FAILED = "stopped answering", "failed"

    def __init__(self, primary: LanguageModel, secondary: LanguageModel) -> None:
        super().__init__(primary.config, primary.resources)
        self.primary = primary
        self.secondary = secondary
        self.name = primary.name
        #: why the primary is known not to answer (set by a reachability probe, e.g. the nodes'
        #: /diagnostics); while set, questions go straight to the secondary; cleared when it answers
        self.primary_down = ""
        #: how the primary last did not answer: "" (it answers), GONE or FAILED
        self.fallback_state = ""
        self.alive_timeout_s = float(primary.config.get("openai.alive_timeout_s"))

    @property
    def model(self) -> str:
        return self.primary.model

    @property
    def usage(self) -> Usage:
        total = self.primary.usage.copy()
        total.add(self.secondary.usage)
        total.fallbacks += self._usage.fallbacks
        return total

    def describe(self) -> dict[str, Any]:
        return {**self.primary.describe(), "fallback": self.secondary.name}

    def prepare(self) -> None:
        self.primary.prepare()
        self.secondary.prepare()

    def answer_times(self, kind: str) -> AnswerTimes | None:
        return self.primary.answer_times(kind)

    def close(self) -> None:
        self.primary.close()
        self.secondary.close()

    def samples_in_one_request(self) -> bool:
        return self.primary.samples_in_one_request()

    def server_url(self) -> str:
        return self.primary.server_url()

    def _call(self, method: str, *args: Any, **kwargs: Any) -> Any:
        reason = self.primary_down
        if reason:
            self.fallback_state = self.GONE
        else:
            try:
                answer = getattr(self.primary, method)(*args, **kwargs)
            except (UnusableAnswer, QuestionAbandoned):
                raise  # the server answered and what it said does not read; or nothing waits for an answer
            except LLMError as exc:
                reason = self._why_not(exc)
            else:
                self.fallback_state = ""
                return answer
        with self._usage_lock:
            self._usage.fallbacks += 1
        answer = getattr(self.secondary, method)(*args, **kwargs)
        return with_fallback_note(answer, reason)

    def _why_not(self, exc: LLMError) -> str:
        """Why the secondary answers for the primary's failure ``exc``; raises ``exc`` again when the
        server is busy (a timeout at a server that accepts connections), which is no reason."""
        url = self.server_url()
        up, detail = accepts_connections(url, self.alive_timeout_s) if url else (True, "")
        if up and isinstance(exc, (AnswerTimeout, QueueTimeout)):
            raise exc
        self.fallback_state = self.FAILED if up else self.GONE
        return f"{self.primary.name} failed: {exc}" if up else f"the model server {url} {detail}: {exc}"

    def answer(self, kind: str, question: Any, n: int | None = None, seed: int | None = None) -> Any:
        return self._call("answer", kind, question, n=n, seed=seed)


def make_backend(config: LLMConfig | Mapping[str, Any] | str | Path | None = None, *,
                 backend: str | None = None, dataset: Sequence | str | Path | None = None,
                 embedder: Embedder | None = None, **overrides: Any) -> LanguageModel:
    """A backend from configuration.

    ``config``: an :class:`LLMConfig`, a mapping of overrides of ``config/llm.yaml``, a path to a
    YAML file, or None for the shipped defaults. ``backend`` overrides ``backend`` (offline |
    openai); ``dataset`` gives the data set the domain's answerers read (the household's expert data
    set D: trajectories or a JSONL path);
    ``overrides`` are dotted keys with ``__`` for dots (``policy__samples=10``).

        >>> lm = make_backend(backend="offline")
        >>> translate(lm, world, "put two apples in the fridge").items   # domains/household/language/questions.py
        (('inside', 'apple', 'fridge', 2),)
    """
    if isinstance(config, LLMConfig):
        cfg = config
    elif isinstance(config, (str, Path)):
        cfg = load_llm_config(config)
    else:
        cfg = load_llm_config(overrides=config)
    if backend is not None:
        cfg = cfg.with_overrides({"backend": backend})
    if overrides:
        cfg = cfg.with_overrides(**overrides)
    resources = Resources(cfg, dataset, embedder)
    if cfg.backend == "offline":
        return backend_class("offline")(cfg, resources)
    cache = AnswerCache(cfg.cache_dir) if cfg.get("cache.enabled") else AnswerCache(None)
    primary = backend_class(cfg.backend)(cfg, resources, cache)
    if cfg.fallback_to_offline:
        return FallbackBackend(primary, backend_class("offline")(cfg, resources))
    return primary


def backend_class(name: str) -> Callable[..., LanguageModel]:
    """The class of a backend by name, imported on first use (the interface never imports a backend);
    a remote backend's constructor also takes the answer cache."""
    if name not in BACKEND_CLASSES:
        raise LLMError(f"unknown LLM backend '{name}' (known: {', '.join(BACKEND_CLASSES)})")
    module, cls = BACKEND_CLASSES[name]
    return getattr(importlib.import_module(module), cls)
