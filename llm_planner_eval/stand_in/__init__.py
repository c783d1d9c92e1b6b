"""The served stand-in ``llm-planner serve``: an OpenAI-compatible HTTP server (:mod:`.serve`) whose
model (:mod:`.served`) answers the project's questions from the prompt alone with the offline
backend, in answer styles (:mod:`.styles`), right or wrong at a chosen rate (:mod:`.wrong_answers`,
:mod:`.inadmissible_answers`); the kinds it answers are registered in :mod:`.kinds`."""
