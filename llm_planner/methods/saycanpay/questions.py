"""SayCanPay's question to a language model (seed 004 §5, "Say"): the household's
``candidate_actions`` (:mod:`llm_planner.domains.household.language.questions`), the top-m admissible
next actions with probabilities, registered with the LLM layer's question registry
(:mod:`llm_planner.llm.questions`) at import.

Either backend samples ``candidates.samples`` next actions (``offline``: the retrieval policy's
proposals, :func:`llm_planner.methods.llm_mcts.offline_answers.propose`; ``openai``: the policy prompt
with ``candidates.shots`` examples, asked as the ``candidates`` answer kind), grounds them onto the
admissible actions and scores them with the §2.3 estimate (``llm_planner.llm.policy.say_candidates``;
the chat API offers no beam search over actions).

    candidates = candidate_actions(backend, query, m=6).actions
"""
from __future__ import annotations

from typing import Any

from llm_planner.domains.household.language.model_resources import grounder_of, warm_actions
from llm_planner.domains.household.language.policy_query import PolicyQuery
from llm_planner.domains.household.language.questions import CANDIDATE_ACTIONS, Candidates
from llm_planner.errors import LLMError
from llm_planner.llm.base import AnswerInfo
from llm_planner.llm.policy import say_candidates
from llm_planner.llm.questions import QuestionKind, register
from llm_planner.methods.llm_mcts import offline_answers, openai_answers
from llm_planner.methods.llm_mcts.questions import PREPARERS


def _offline_samples(backend: Any, query: PolicyQuery, n: int, k: int) -> tuple[list[str], AnswerInfo]:
    texts, _done = offline_answers.propose(backend, query, n, int(backend.config.get("policy.seed")))
    return texts, backend.answer_info()


def _openai_samples(backend: Any, query: PolicyQuery, n: int, k: int) -> tuple[list[str], AnswerInfo]:
    (texts, _done, _mapped), reply = openai_answers.policy_samples(backend, query, n, k, "candidates", 0)
    return texts, backend.answer_info(reply.cached, reply.requests)


def _answerer(samples: Any) -> Any:
    def candidate_actions(backend: Any, query: PolicyQuery, m: int | None = None,
                          seed: int | None = None) -> Candidates:
        opts = backend.config.section("candidates")
        m = int(m or opts["m"])
        if not query.admissible:
            raise LLMError("candidate_actions needs the admissible actions of the state")
        warm_actions(backend.resources, query.world)
        with backend.counting():
            texts, info = samples(backend, query, int(opts["samples"]), int(opts["shots"]))
            sims = grounder_of(backend.resources).action_similarities(texts, list(query.admissible))
            ranked = say_candidates(sims, list(query.admissible), m, float(opts.get("softmax_scale", 1.0)))
        return Candidates(tuple(ranked), info)

    return candidate_actions


QUESTION = register(QuestionKind(
    CANDIDATE_ACTIONS, {"offline": _answerer(_offline_samples), "openai": _answerer(_openai_samples)},
    source="SayCanPay §5 \"Say\" (seed 004)", preparers=PREPARERS))
