"""LLM-MCTS (seed 000_bdbd3ffbd6faf9c2.txt, Zhao, Lee, Hsu, NeurIPS 2023) and its baselines.

* :mod:`.prior`: the commonsense prior b(s0) from the language model's answers (§2.2, App. C.2).
* :mod:`.belief`: the belief b(s) of §2.2 / App. C.2 (prior from the LLM, update from observations,
  sampling).
* :mod:`.policy`: the heuristic policy pi(a|h) of §2.3.
* :mod:`.tree`: the search tree (nodes, the line-29 scores, statistics).
* :mod:`.mcts`: Algorithm 1 (SEARCH, SIMULATE with selection by PUCT, expansion, ROLLOUT, backup).
* :mod:`.scheduler`: how SEARCH runs its simulations and asks pi(a|h): waves of concurrent
  questions with virtual loss, the bounds per decision; :mod:`.late_questions`: the questions that
  run past their decision (``anytime``).
* :mod:`.questions`: the household's world-model, policy and goal questions it asks a language
  model, registered with the answers of each backend (:mod:`.offline_answers`, :mod:`.openai_answers`).
* :mod:`.config`: the hyper-parameters (``config/llm_mcts.yaml``).
* :mod:`.runtime`: what the planners of one process share (language model, policy, prior).
* :mod:`.planner`: the registered planners ``llm_mcts``, ``uct``, ``l_policy``,
  ``no_heuristic_policy``, ``uniform_prior``, ``fully_observable`` (importing this package
  registers them; ``llm_planner.planners.base.create`` does so on demand).

Hyper-parameters: ``config/llm_mcts.yaml``. Benchmark: ``llm-planner bench household``.
"""
from llm_planner.methods.llm_mcts.belief import Belief
from llm_planner.methods.llm_mcts.config import load_config
from llm_planner.methods.llm_mcts.mcts import LLMMCTS
from llm_planner.methods.llm_mcts.planner import (
    FullyObservablePlanner,
    LLMMCTSPlanner,
    LPolicyPlanner,
    NoHeuristicPolicyPlanner,
    UCTPlanner,
    UniformPriorPlanner,
)
from llm_planner.methods.llm_mcts.tree import Node, SearchConfig, SearchResult, SearchStats

__all__ = [
    "Belief", "FullyObservablePlanner", "LLMMCTS", "LLMMCTSPlanner", "LPolicyPlanner", "NoHeuristicPolicyPlanner",
    "Node", "SearchConfig", "SearchResult", "SearchStats", "UCTPlanner", "UniformPriorPlanner", "load_config",
]
