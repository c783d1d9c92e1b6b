"""The offline backend: an LLM-free stand-in that decides every offline benchmark result.

Nothing here is a language model. Hand-built components answer the questions a model would be
asked, from what the prompt would tell a model (never the simulator's hidden truth):

* :mod:`.backend`: ``OfflineBackend``, the ``offline`` entry of the backend factory.
* :mod:`.commonsense`: where objects are usually kept (``llm/offline/data/commonsense.yaml``).
* :mod:`.goal_parser`, :mod:`.quantities`: directive to goal, by grammar and Sentence-BERT grounding.
* :mod:`.retrieval_policy`: the heuristic policy answered from the expert data set D.
* :mod:`.served`, :mod:`.styles`, :mod:`.serve`, :mod:`.serve_options`: the same answers written as a model would write
  them, behind ``llm-planner serve`` (an OpenAI-compatible HTTP server for tests and latency runs).

What only one method asks lives in that method's package and is registered by question kind
(:mod:`llm_planner.llm.questions`): STaLM's offline task plans (``methods/stalm/offline_plans.py``),
the Levy-Karpas offline channels and clause classifier (``methods/levy_karpas/offline_channels.py``,
``clause_classifier.py``); this package keeps what several methods share (commonsense, the goal
parser, retrieval over the expert data, the served stand-in).

Every offline figure of the benchmark tables (docs/results/) is a figure of these components, not of
a language model; the ``openai`` backend is the one that asks a model.
"""
