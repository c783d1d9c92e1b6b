"""Fixtures of the household-language tests: the LLM layer's (test/llm/conftest.py: one Sentence-BERT
model per session, isolated caches, the two apartments and what a model is told of them, the offline
backend, and a scripted OpenAI-compatible server)."""
from test.llm.conftest import (  # noqa: F401  (fixtures, found by pytest through these names)
    _isolated_cache,
    dataset,
    embedder,
    fake_openai,
    offline,
    openai_backend,
    seen,
    seen_world,
    unseen,
)
