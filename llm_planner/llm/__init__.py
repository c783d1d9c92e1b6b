"""The language-model layer: one interface for the questions every planner asks, each of a kind a
method registers (:mod:`llm_planner.llm.questions`: the household's world model, heuristic policy,
goal translation and SayCanPay's Say, STaLM's task plans, ...), two backends chosen by name
(``offline``, the LLM-free provider of :mod:`llm_planner.llm.offline`, and ``openai`` for any
OpenAI-compatible server), Sentence-BERT embeddings, the empirical policy estimate and a disk cache
of answers. It imports no method, no domain and no backend; what the household's questions say
(its world as sentences, the policy's question, the questions themselves) is the household's
(:mod:`llm_planner.domains.household.language`).

No ROS here. Typical use by a planner::

    from llm_planner.domains.household.language.policy_query import PolicyQuery
    from llm_planner.domains.household.language.questions import next_actions
    from llm_planner.domains.household.language.text import WorldInfo
    from llm_planner.llm import make_backend

    lm = make_backend()                       # config/llm.yaml (backend: offline by default)
    world = WorldInfo.from_household(household)
    answer = next_actions(lm, PolicyQuery(world, instruction, observation, history, admissible))
    before = lm.usage.copy(); ...; spent = lm.usage - before

LLM-MCTS's prior belief and heuristic policy over these answers are
:mod:`llm_planner.methods.llm_mcts.prior` and :mod:`llm_planner.methods.llm_mcts.policy`.
"""
from llm_planner.llm.base import AnswerInfo, LanguageModel, Usage
from llm_planner.llm.config import LLMConfig, load_llm_config
from llm_planner.llm.factory import FallbackBackend, make_backend
from llm_planner.llm.policy import empirical_policy, say_candidates

__all__ = [
    "AnswerInfo", "FallbackBackend", "LLMConfig", "LanguageModel", "Usage", "empirical_policy", "load_llm_config",
    "make_backend", "say_candidates",
]
