"""The one interface every planner uses to ask a language model its questions.

=====================  =================================================================  ==============
question               what it answers                                                     used by
=====================  =================================================================  ==============
object_positions       M sampled answers "where is a <type> usually?" (world-model prior)  LLM-MCTS §2.2
next_actions           M sampled next actions given goal, observation, history, K shots    LLM-MCTS §2.3
translate              directive -> formal goal tuples (REL, object, destination, count)   LLM-MCTS §2.2,
                                                                                           Levy-Karpas
candidate_actions      top-m next actions with probabilities ("Say")                        SayCanPay §5
=====================  =================================================================  ==============

Every other question is a kind a method registers (:mod:`llm_planner.llm.questions`), asked with
``backend.answer(kind, question, n, seed)`` whatever the backend (STaLM's ``task_plans``, ...):
the layer knows no method.

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

from llm_planner.errors import LLMError
from llm_planner.llm.config import LLMConfig
from llm_planner.llm.policy import say_candidates
from llm_planner.llm.questions import get
from llm_planner.spine import Action

if TYPE_CHECKING:
    from llm_planner.llm.resources import Resources
    from llm_planner.llm.waits import AnswerTimes

#: What a model is told about the world a question is about (the household's ``WorldInfo``,
#: ``domains/household/language/text.py``): a value of the domain; the layer reads nothing of it.
World = Any
#: What the heuristic policy is asked at a history (the household's ``PolicyQuery``,
#: ``domains/household/language/policy_query.py``): :meth:`LanguageModel.candidate_actions` reads its
#: ``world`` and its ``admissible`` actions, a backend the rest.
PolicyQuestion = Any

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


@dataclass(frozen=True)
class PositionSamples:
    """M answers for one object type; each answer lists (relation, furniture) grounded to the scene."""

    obj_type: str
    samples: tuple[tuple[tuple[str, str], ...], ...]
    raw: tuple[str, ...]
    info: AnswerInfo


@dataclass(frozen=True)
class ActionSamples:
    """M sampled first actions alpha_i as free text (ground them with the policy), and how many
    of the M answers said the task is done. ``raw`` holds every answer as the model wrote it, so
    ``len(texts) + done`` of ``len(raw)`` samples read; ``mapped`` gives the cosine of each text that
    named no admissible action and was read as its most similar one (``policy.inadmissible:
    nearest``), those texts being among ``texts``."""

    texts: tuple[str, ...]
    done: int
    raw: tuple[str, ...]
    info: AnswerInfo
    mapped: tuple[float, ...] = ()


@dataclass(frozen=True)
class GoalTuples:
    """A directive as (relation, object, destination, count) tuples in the model's own words;
    ``llm_planner.translation.translate`` grounds them onto the scene's names and validates them."""

    items: tuple[tuple[str, str, str, int], ...]
    raw: str
    info: AnswerInfo


@dataclass(frozen=True)
class Candidates:
    """Top-m admissible actions with probabilities summing to at most 1, best first (SayCanPay Say)."""

    actions: tuple[tuple[Action, float], ...]
    info: AnswerInfo


class LanguageModel(ABC):
    """A backend answering the planners' questions. ``m``/``n``/``k``/``seed`` default to ``config``."""

    name: str = ""

    def __init__(self, config: LLMConfig, resources: Resources) -> None:
        self.config = config
        self.resources = resources
        self._usage = Usage()
        self._usage_lock = threading.Lock()

    def prepare(self) -> None:
        """Load now what answering needs (the expert data set D and what a backend derives from it),
        so that no question pays for it; without D the prompts have no K-shot examples."""
        self.resources.has_expert()

    @property
    def usage(self) -> Usage:
        """Cumulative cost figures of this backend (read-only view for planners and benchmarks)."""
        return self._usage

    @property
    @abstractmethod
    def model(self) -> str:
        """The model name answers are attributed to (and cache keys use)."""

    @abstractmethod
    def object_positions(self, world: World, obj_type: str, m: int | None = None,
                         seed: int | None = None) -> PositionSamples:
        """M sampled answers for the possible positions of ``obj_type`` (LLM-MCTS §2.2, App. F listing 2)."""

    @abstractmethod
    def next_actions(self, query: PolicyQuestion, m: int | None = None, k: int | None = None,
                     seed: int | None = None) -> ActionSamples:
        """M sampled next actions with K retrieved expert examples (LLM-MCTS §2.3, App. F listing 1)."""

    @abstractmethod
    def translate(self, world: World, directive: str) -> GoalTuples:
        """The directive as formal goal tuples (LLM-MCTS §2.2 "Goal", App. F listing 3)."""

    def answer(self, kind: str, question: Any, n: int | None = None, seed: int | None = None) -> Any:
        """The answer to a question of a kind a method registered (:mod:`llm_planner.llm.questions`):
        this backend's answerer of the kind; LLMError when no method registered it or it has no
        answerer for this backend."""
        return get(kind).answerer(self.name)(self, question, n, seed)

    def candidate_actions(self, query: PolicyQuestion, m: int | None = None) -> Candidates:
        """Top-m admissible next actions with probabilities (SayCanPay §5, "Say"): ``candidates.samples``
        sampled next actions grounded onto the admissible actions, scored with the §2.3 estimate
        (the chat API offers no beam search over actions)."""

        opts = self.config.section("candidates")
        m = int(m or opts["m"])
        if not query.admissible:
            raise LLMError("candidate_actions needs the admissible actions of the state")
        self.resources.warm_actions(query.world)
        with self._question():
            texts, info = self._say_samples(query, int(opts["samples"]), int(opts["shots"]))
            sims = self.resources.grounder.action_similarities(texts, list(query.admissible))
            ranked = say_candidates(sims, list(query.admissible), m, float(opts.get("softmax_scale", 1.0)))
        return Candidates(tuple(ranked), info)

    def _say_samples(self, query: PolicyQuestion, n: int, k: int) -> tuple[list[str], AnswerInfo]:
        """``n`` sampled next-action texts for Say (backends implement it)."""
        raise NotImplementedError

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

