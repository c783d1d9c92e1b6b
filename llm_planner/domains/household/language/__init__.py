"""The household's language: its world as the sentences a language model reads and writes
(:mod:`.text`: names, actions, observations, goals, and :class:`~.text.WorldInfo`, what a model is
told about an apartment), the question the heuristic policy asks at a history
(:mod:`.policy_query`), the Sentence-BERT grounding of a model's words onto the names and
actions of an apartment (:mod:`.grounding`), the kinds its names say (:mod:`.kinds`) and the
commonsense file grounded onto an apartment's furniture (:mod:`.commonsense`), the prompts of its
questions (:mod:`.prompts`), the K-shot retrieval over the expert data set D (:mod:`.retrieval`)
and the offline provider's policy over it (:mod:`.retrieval_policy`).

It imports the language-model layer for annotations only. The layer's interface
(:mod:`llm_planner.llm.base`) imports none of it; the modules of the layer that answer the
household's questions themselves do (``HOUSEHOLD_LANGUAGE_IN_LLM`` in ``test/test_import_graph.py``)."""
