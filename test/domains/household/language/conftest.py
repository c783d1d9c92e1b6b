"""Fixtures of the household-language tests: the LLM layer's (test/llm/conftest.py: one Sentence-BERT
model per session, the seen apartment and what a model is told of it)."""
from test.llm.conftest import embedder, seen, seen_world  # noqa: F401  (fixtures, found by pytest through these names)
