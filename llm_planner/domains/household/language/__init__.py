"""The household's language: its world as the sentences a language model reads and writes
(:mod:`.text`: names, actions, observations, goals, and :class:`~.text.WorldInfo`, what a model is
told about an apartment), the question the heuristic policy asks at a history
(:mod:`.policy_query`), and the Sentence-BERT grounding of a model's words onto the names and
actions of an apartment (:mod:`.grounding`). The language-model layer (:mod:`llm_planner.llm`) asks any domain's
questions and imports none of this."""
