"""The disk cache of answers (cache.py)."""
from __future__ import annotations

from llm_planner.llm.cache import AnswerCache, cache_key


def test_answers_persist_across_instances(tmp_path):
    key = cache_key("openai", "m", [{"role": "user", "content": "hi"}], {"n": 5, "temperature": 0.6})
    first = AnswerCache(tmp_path)
    assert first.get(key) is None
    first.put(key, ["a", "b"], "openai", "m")
    first.close()
    second = AnswerCache(tmp_path)
    assert second.get(key) == ["a", "b"] and second.hits == 1 and len(second) == 1


def test_key_depends_on_backend_model_prompt_and_parameters():
    base = cache_key("openai", "m", "p", {"n": 5, "temperature": 0.6})
    assert base == cache_key("openai", "m", "p", {"temperature": 0.6, "n": 5})  # canonical order
    for other in (cache_key("offline", "m", "p", {"n": 5, "temperature": 0.6}),
                  cache_key("openai", "m2", "p", {"n": 5, "temperature": 0.6}),
                  cache_key("openai", "m", "p2", {"n": 5, "temperature": 0.6}),
                  cache_key("openai", "m", "p", {"n": 4, "temperature": 0.6})):
        assert other != base


def test_memory_only_cache():
    cache = AnswerCache(None)
    cache.put("k", ["x"])
    assert cache.get("k") == ["x"] and cache.get("other") is None and len(cache) == 1
