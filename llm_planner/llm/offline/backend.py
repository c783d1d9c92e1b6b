"""Backend ``offline`` (the default): the planners' questions answered without a generative model,
deterministically for a seed, from what a language model would be told and nothing else.

Every question is of a kind a method registered (``answer(kind, ...)``) and is answered by the
``offline`` answerer the method registered (:mod:`llm_planner.llm.questions`): the household's
world model, policy and goals by LLM-MCTS's (:mod:`llm_planner.methods.llm_mcts.offline_answers`),
SayCanPay's Say by its own (:mod:`llm_planner.methods.saycanpay.questions`), STaLM's ``task_plans``
by STaLM's. The backend itself is the model name answers are attributed to, the usage figures and
the shared resources.
"""
from __future__ import annotations

from llm_planner.llm.base import LanguageModel

MODEL = "commonsense-retrieval-1"


class OfflineBackend(LanguageModel):
    """See the module docstring."""

    name = "offline"

    @property
    def model(self) -> str:
        return MODEL
