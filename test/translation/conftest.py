"""Fixtures of the translation's tests: the LLM layer's (test/llm/conftest.py: one Sentence-BERT model
per session, isolated caches, the two apartments, the offline backend, and a scripted
OpenAI-compatible server for the goals a model answers)."""
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
