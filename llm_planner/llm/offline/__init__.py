"""The offline backend: the embedded, LLM-free commonsense provider (``backend: offline``).

Nothing here is a language model. ``OfflineBackend`` (:mod:`.backend`) is the ``offline`` entry of
the backend factory; the answers are the ``offline`` answerers the methods register by question kind
(:mod:`llm_planner.llm.questions`), hand-built components that answer the questions a model would be
asked from what the prompt would tell a model (never the simulator's hidden truth):

* the household's world model, policy and goals (LLM-MCTS, ``methods/llm_mcts/offline_answers.py``):
  the commonsense file grounded onto the scene
  (:mod:`llm_planner.domains.household.language.commonsense`), the heuristic policy answered from
  the expert data set D (:mod:`llm_planner.domains.household.language.retrieval_policy`), the
  directive reader (:mod:`llm_planner.reading`); SayCanPay's Say over the same policy
  (``methods/saycanpay/questions.py``);
* STaLM's offline task plans (``methods/stalm/offline_plans.py``), the Levy-Karpas offline channels
  and clause classifier (``methods/levy_karpas/offline_channels.py``, ``clause_classifier.py``).

Every offline figure of the benchmark tables (docs/results/) is a figure of these components, not of
a language model; the ``openai`` backend is the one that asks a model.
"""
