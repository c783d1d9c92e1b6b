"""The household's language: its world as the sentences a language model reads and writes
(:mod:`.text`: names, actions, observations, goals, and :class:`~.text.WorldInfo`, what a model is
told about an apartment), its questions to a language model and their answers (:mod:`.questions`),
the question the heuristic policy asks at a history (:mod:`.policy_query`), the Sentence-BERT
grounding of a model's words onto the names and actions of an apartment (:mod:`.grounding`), the
kinds its names say (:mod:`.kinds`) and the commonsense file grounded onto an apartment's furniture
(:mod:`.commonsense`), the prompts of its questions (:mod:`.prompts`), the K-shot retrieval over the
expert data set D (:mod:`.retrieval`), the offline answers' policy over it (:mod:`.retrieval_policy`)
and those parts built once per backend (:mod:`.model_resources`).

It builds on the language-model layer (its questions are kinds of the layer's registry, its parts
are kept by the layer's ``Resources``); the layer imports none of it, and the methods that ask its
questions register how each backend answers them (``question_modules`` of ``config/methods.yaml``)."""
