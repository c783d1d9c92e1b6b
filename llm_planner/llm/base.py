"""The one interface every planner uses to ask a language model its questions.

Every question is of a kind a method registers (:mod:`llm_planner.llm.questions`), asked with
``backend.answer(kind, question, n, seed)`` whatever the backend: the household's
``object_positions``, ``next_actions``, ``translate`` (LLM-MCTS §2.2-2.3) and ``candidate_actions``
(SayCanPay §5), asked through :mod:`llm_planner.domains.household.language.questions`; STaLM's
``task_plans``, ...: the layer knows no method and no domain.

Answers are small frozen dataclasses that carry :class:`AnswerInfo`: which backend answered (an
``openai`` failure answered by the ``offline`` backend says so in ``info.fallback``), whether it
came from the disk cache, and how many requests it cost. Every backend keeps :class:`Usage`
(requests, prompt/completion tokens, seconds), which planners read per decision
(``usage.copy()`` before, ``backend.usage - before`` after) and benchmarks report.
"""
from __future__ import annotations

import dataclasses
import threading
import time
from abc import ABC, abstractmethod
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from llm_planner.llm.config import LLMConfig
from llm_planner.llm.questions import get, load_registered, registered

if TYPE_CHECKING:
    from llm_planner.llm.resources import Resources
    from llm_planner.llm.waits import AnswerTimes


@dataclass
class Usage:
    """Cost figures of one backend (cumulative; subtract a copy to get the cost of a span)."""

    requests: int = 0            # HTTP requests sent (retries included)
    prompt_tokens: int = 0
    completion_tokens: int = 0
    seconds: float = 0.0         # wall time spent answering questions
    questions: int = 0           # questions answered (any backend, cached or not)
    cache_hits: int = 0          # questions answered from the disk cache, no request
    retries: int = 0
    failures: int = 0            # questions that ended in an LLMError
    fallbacks: int = 0           # questions the offline backend answered after an openai failure

    def copy(self) -> Usage:
        return dataclasses.replace(self)

    def __sub__(self, other: Usage) -> Usage:
        return Usage(**{f.name: getattr(self, f.name) - getattr(other, f.name) for f in dataclasses.fields(self)})

    def add(self, other: Usage) -> None:
        for f in dataclasses.fields(self):
            setattr(self, f.name, getattr(self, f.name) + getattr(other, f.name))

    def as_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)


@dataclass(frozen=True)
class AnswerInfo:
    backend: str                 # the backend that produced the answer
    model: str
    cached: bool = False
    requests: int = 0
    fallback: str = ""           # non-empty: the error of the configured backend that led to this answer


class LanguageModel(ABC):
    """A backend answering the planners' questions (:meth:`answer`). ``n``/``seed`` default to ``config``."""

    name: str = ""

    def __init__(self, config: LLMConfig, resources: Resources) -> None:
        self.config = config
        self.resources = resources
        self._usage = Usage()
        self._usage_lock = threading.Lock()

    def prepare(self) -> None:
        """Load now what answering needs, so that no question pays for it: what each registered kind
        loads for this backend (``QuestionKind.preparers``; the household's: the expert data set D and
        what a backend derives from it)."""
        load_registered()
        done: set[int] = set()
        for kind in registered():
            preparer = kind.preparers.get(self.name)
            if preparer is not None and id(preparer) not in done:
                done.add(id(preparer))
                preparer(self)

    @property
    def usage(self) -> Usage:
        """Cumulative cost figures of this backend (read-only view for planners and benchmarks)."""
        return self._usage

    @property
    @abstractmethod
    def model(self) -> str:
        """The model name answers are attributed to (and cache keys use)."""

    def answer(self, kind: str, question: Any, n: int | None = None, seed: int | None = None) -> Any:
        """The answer to a question of a kind a method registered (:mod:`llm_planner.llm.questions`):
        this backend's answerer of the kind; LLMError when no method registered it or it has no
        answerer for this backend."""
        return get(kind).answerer(self.name)(self, question, n, seed)

    # ---------------------------------------------------------------- helpers
    @contextmanager
    def _question(self) -> Iterator[None]:
        """Count one question and its wall time (failures too)."""
        started = time.perf_counter()
        try:
            yield
        except Exception:
            with self._usage_lock:
                self._usage.failures += 1
            raise
        finally:
            with self._usage_lock:
                self._usage.questions += 1
                self._usage.seconds += time.perf_counter() - started

    def _info(self, cached: bool = False, requests: int = 0) -> AnswerInfo:
        return AnswerInfo(backend=self.name, model=self.model, cached=cached, requests=requests)

    def counting(self) -> Any:
        """Context manager for a registered kind's answerer: count one question and its wall time."""
        return self._question()

    def answer_info(self, cached: bool = False, requests: int = 0) -> AnswerInfo:
        """The :class:`AnswerInfo` of an answer of this backend, for a registered kind's answerer."""
        return self._info(cached, requests)

    def describe(self) -> dict[str, Any]:
        """What benchmarks print and store about the backend (never secrets)."""
        return {"backend": self.name, "model": self.model}

    def close(self) -> None:  # noqa: B027 - an in-process backend has nothing to abandon
        """Abandon the questions still in flight: nothing waits for their answers, and a backend that
        asks a server closes their connections (each such question raises an LLMError at once). The
        backend answers questions asked afterwards. An in-process backend has nothing in flight."""

    def server_url(self) -> str:
        """The base URL of the model server this backend asks ("" for an in-process backend), known
        without a request."""
        return ""

    def answer_times(self, kind: str) -> AnswerTimes | None:
        """How long questions of ``kind`` take at this backend's model server
        (:mod:`llm_planner.llm.waits`); None for a backend that answers in-process (every wait pays)."""
        return None

    def samples_in_one_request(self) -> bool:
        """True when M samples cost about one sample's time (an in-process backend, or a server that
        honours ``n``); False when each sample is a request of its own (a server that ignores ``n``)."""
        return True


def with_fallback_note(answer: Any, reason: str) -> Any:
    """The same answer with ``info.fallback`` set (answers are frozen dataclasses); an answer without
    :class:`AnswerInfo` (a registered kind's own type) is returned as it is."""
    info = getattr(answer, "info", None)
    if not (dataclasses.is_dataclass(answer) and not isinstance(answer, type) and isinstance(info, AnswerInfo)):
        return answer
    return dataclasses.replace(answer, info=dataclasses.replace(info, fallback=reason))

