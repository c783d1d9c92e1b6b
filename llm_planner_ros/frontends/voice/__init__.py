"""``llm-planner voice``: a spoken loop (PocketSphinx in, eSpeak NG out) on the directive topic."""
