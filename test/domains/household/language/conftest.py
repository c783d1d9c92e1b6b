"""Fixtures of the household-language tests: the LLM layer's apartments (test/llm/conftest.py: the
seen apartment and what a model is told of it)."""
from test.llm.conftest import seen, seen_world  # noqa: F401  (fixtures, found by pytest through these names)
