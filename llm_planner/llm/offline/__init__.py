"""The offline backend: the embedded, LLM-free commonsense provider (``backend: offline``).

Nothing here is a language model. Hand-built components answer the questions a model would be
asked, from what the prompt would tell a model (never the simulator's hidden truth):

* :mod:`.backend`: ``OfflineBackend``, the ``offline`` entry of the backend factory; its prior
  answers come from the commonsense file grounded onto the scene
  (:mod:`llm_planner.domains.household.language.commonsense`), its goals from the directive reader
  (:mod:`llm_planner.reading`).
* the heuristic policy answered from the expert data set D
  (:mod:`llm_planner.domains.household.language.retrieval_policy`).

What only one method asks lives in that method's package and is registered by question kind
(:mod:`llm_planner.llm.questions`): STaLM's offline task plans (``methods/stalm/offline_plans.py``),
the Levy-Karpas offline channels and clause classifier (``methods/levy_karpas/offline_channels.py``,
``clause_classifier.py``).

Every offline figure of the benchmark tables (docs/results/) is a figure of these components, not of
a language model; the ``openai`` backend is the one that asks a model.
"""
