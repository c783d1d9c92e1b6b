"""The language-model layer: one interface for the questions every planner asks (LLM-MCTS world
model and heuristic policy, goal translation, STaLM task plans, SayCanPay's Say), two backends
(``offline``, the embedded default, and ``openai`` for any OpenAI-compatible server), Sentence-BERT
grounding, the prior belief, the empirical policy and a disk cache of answers.

No ROS here. Typical use by a planner::

    from llm_planner.llm import make_backend, HeuristicPolicy, PolicyQuery, WorldInfo, load_or_build_prior

    lm = make_backend()                       # config/llm.yaml (backend: offline by default)
    world = WorldInfo.from_household(household)
    prior = load_or_build_prior(None, lm, world)           # b(s0), §2.2 / App. C.2
    policy = HeuristicPolicy(lm)                            # pi(a|h), §2.3
    probs = policy(PolicyQuery(world, instruction, observation, history, admissible))
    before = lm.usage.copy(); ...; spent = lm.usage - before
"""
from llm_planner.llm.base import (
    ActionSamples, AnswerInfo, Candidates, GoalTuples, LanguageModel, PolicyQuery, PositionSamples, TaskPlans, Usage,
)
from llm_planner.llm.config import LLMConfig, load_llm_config
from llm_planner.llm.factory import FallbackBackend, make_backend
from llm_planner.llm.policy import HeuristicPolicy, empirical_policy, say_candidates
from llm_planner.llm.prior import PriorBelief, build_prior, evaluate_prior, load_or_build_prior
from llm_planner.llm.text import (
    WorldInfo, action_to_text, goal_to_text, name_to_text, observation_to_text, text_to_action,
)
from llm_planner.llm.translate import TranslationResult, translate_directive

__all__ = [
    "ActionSamples", "AnswerInfo", "Candidates", "FallbackBackend", "GoalTuples", "HeuristicPolicy", "LLMConfig",
    "LanguageModel", "PolicyQuery", "PositionSamples", "PriorBelief", "TaskPlans", "TranslationResult", "Usage",
    "WorldInfo", "action_to_text", "build_prior", "empirical_policy", "evaluate_prior", "goal_to_text",
    "load_llm_config", "load_or_build_prior", "make_backend", "name_to_text", "observation_to_text",
    "say_candidates", "text_to_action", "translate_directive",
]
