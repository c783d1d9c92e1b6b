"""``llm_backend: openai`` in the parameter file reaches every language-model question the graph
asks: the directive's translation (planner node) and the planner's (executor node), over real HTTP
to ``llm-planner serve`` (an OpenAI-compatible server answering from the offline backend in the
chatty style of a chat model, 0.2 s per request), which counts them by kind."""
from __future__ import annotations

import pytest
import yaml

pytestmark = [pytest.mark.ros, pytest.mark.slow]


def test_openai_backend_answers_translation_and_planning(launch_graph, tmp_path_factory, ros_env):
    from llm_planner.llm.offline.serve import ServeProcess

    tmp = tmp_path_factory.mktemp("openai_graph")
    key = {"LLM_PLANNER_TEST_KEY": "sk-test-not-a-secret",
           "LLM_PLANNER_CACHE": str(tmp / "cache")}  # no prior built by an earlier run: the graph asks for it
    with ServeProcess(["--style", "chatty", "--latency", "0.2"], env={**ros_env, **key}) as server:
        llm_config = tmp / "llm.yaml"
        llm_config.write_text(yaml.safe_dump({
            "openai": {"base_url": server.base_url, "model": "llm-planner-offline", "api_key_env": "LLM_PLANNER_TEST_KEY"},
            "cache": {"enabled": False}}))
        with launch_graph(tmp, env=key, llm_backend="openai", llm_config=str(llm_config)) as graph:
            result = graph.client.run("put one book on the coffee table and a mug inside the fridge", planner="llm_mcts")
        asked = server.stats()["by_kind"]
    print(f"requests to the served model by kind: {asked}")
    assert result["success"], result
    assert asked.get("translate", 0) >= 1            # the planner node's translation
    assert asked.get("policy", 0) >= 1 and asked.get("world_model", 0) >= 1  # the executor's LLM-MCTS
    assert result["llm_requests"] >= asked["policy"]
