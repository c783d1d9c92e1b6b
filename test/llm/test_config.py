"""Configuration as data: config/llm.yaml defaults (the papers' values) and validated overrides."""
from __future__ import annotations

import pytest

from llm_planner.errors import ConfigError
from llm_planner.llm.config import load_llm_config, parse_dotted


def test_defaults_are_the_papers_values():
    c = load_llm_config()
    assert c.backend == "offline" and not c.fallback_to_offline
    assert c.get("policy.samples") == 5 and c.get("policy.lambda") == 0.5 and c.get("policy.shots") == 3
    assert c.get("world_model.samples") == 5 and c.get("world_model.floor") == 1e-3
    assert c.get("task_plans.samples") == 5 and c.get("task_plans.temperature") == 1.0
    assert c.get("candidates.m") == 6
    assert c.get("openai.api_key_env") == "OPENAI_API_KEY" and c.get("openai.max_retries") >= 1


def test_overrides_nested_dotted_and_from_a_file(tmp_path):
    c = load_llm_config(overrides={"policy": {"samples": 10}})
    assert c.get("policy.samples") == 10 and c.get("policy.lambda") == 0.5
    assert c.with_overrides(policy__lambda=0.25).get("policy.lambda") == 0.25
    assert parse_dotted(["openai.model=gpt-x", "policy.samples=7"]) == {"openai": {"model": "gpt-x"},
                                                                      "policy": {"samples": 7}}
    path = tmp_path / "mine.yaml"
    path.write_text("backend: openai\nopenai: {model: local-llama, base_url: 'http://127.0.0.1:8080/v1'}\n")
    c = load_llm_config(path)
    assert c.backend == "openai" and c.get("openai.model") == "local-llama" and c.get("openai.timeout_s") == 30.0


@pytest.mark.parametrize("overrides, message", [
    ({"polcy": {"samples": 3}}, "unknown LLM configuration key 'polcy'"),
    ({"policy": {"sampels": 3}}, "unknown LLM configuration key 'policy.sampels'"),
    ({"policy": {"samples": 0}}, "'policy.samples' must be a positive integer"),
    ({"policy": {"lambda": 1.5}}, "'policy.lambda' must be in"),
    ({"backend": "gpt"}, "backend must be one of offline, openai"),
    ({"openai": {"timeout_s": -1}}, "'openai.timeout_s' must be a positive number"),
])
def test_bad_values_are_errors_naming_the_key(overrides, message):
    with pytest.raises(ConfigError, match=message):
        load_llm_config(overrides=overrides)


def test_cache_dir_from_environment(monkeypatch, tmp_path):
    monkeypatch.setenv("LLM_PLANNER_CACHE", str(tmp_path))
    assert load_llm_config().cache_dir == tmp_path
    assert load_llm_config(overrides={"cache": {"dir": str(tmp_path / "x")}}).cache_dir == tmp_path / "x"


def test_embeddings_stay_on_disk_in_their_own_folder_when_the_answer_cache_is_off(monkeypatch, tmp_path):
    """Embeddings hold no model answer: ``cache.enabled: false`` keeps them, and ``embeddings.dir``
    lets an empty answer cache reuse the sentences another run embedded."""
    from llm_planner.llm.resources import Resources

    monkeypatch.setenv("LLM_PLANNER_CACHE", str(tmp_path / "answers"))
    assert load_llm_config().embeddings_dir == tmp_path / "answers"
    config = load_llm_config(overrides={"cache": {"enabled": False}, "embeddings": {"dir": str(tmp_path / "emb")}})
    assert config.embeddings_dir == tmp_path / "emb"
    resources = Resources(config, dataset=[])
    resources.embedder.encode(["a fridge"])
    assert (tmp_path / "emb" / "embeddings.sqlite").is_file() and not (tmp_path / "answers").exists()
    off = load_llm_config(overrides={"embeddings": {"disk_cache": False, "dir": str(tmp_path / "off")}})
    Resources(off, dataset=[]).embedder.encode(["a fridge"])
    assert not (tmp_path / "off").exists()
