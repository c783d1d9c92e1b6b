"""The household's language: its world as the sentences a language model reads and writes
(:mod:`.text`: names, actions, observations, goals, and :class:`~.text.WorldInfo`, what a model is
told about an apartment) and the question the heuristic policy asks at a history
(:mod:`.policy_query`). The language-model layer (:mod:`llm_planner.llm`) asks any domain's
questions and imports none of this."""
