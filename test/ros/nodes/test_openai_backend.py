"""``llm_backend: openai`` (a launch argument, or the parameter file) reaches every language-model question the graph
asks: the directive's translation (planner node) and the planner's (executor node), over real HTTP
to ``llm-planner serve`` (an OpenAI-compatible server answering from the offline backend in the
chatty style of a chat model, 0.05 s per request), which counts them by kind."""
from __future__ import annotations

import pytest
import yaml

from llm_planner_ros.task_results import TaskResult

pytestmark = [pytest.mark.ros, pytest.mark.slow]


def test_openai_backend_answers_translation_and_planning(launch_graph, tmp_path_factory, ros_env, embeddings_dir):
    from llm_planner_eval.stand_in.serve import ServeProcess

    tmp = tmp_path_factory.mktemp("openai_graph")
    key = {"LLM_PLANNER_TEST_KEY": "sk-test-not-a-secret",
           "LLM_PLANNER_CACHE": str(tmp / "cache")}  # no prior built by an earlier run: the graph asks for it
    serve_env = {**ros_env, **key, "LLM_PLANNER_CACHE": str(embeddings_dir)}  # the stand-in's own cache
    with ServeProcess(["--style", "chatty", "--latency", "0.05"], env=serve_env) as server:
        llm_config = tmp / "llm.yaml"
        llm_config.write_text(yaml.safe_dump({
            "openai": {"base_url": server.base_url, "model": "llm-planner-offline", "api_key_env": "LLM_PLANNER_TEST_KEY"},
            "translate": {"ask_model": "always"},  # the translation goes to the server though the reader reads it
            "cache": {"enabled": False}, "embeddings": {"dir": str(embeddings_dir)}}))
        # as launch arguments (`llm-planner launch llm_backend:=openai llm_config:=FILE`) over the shipped file
        with launch_graph(tmp, env=key, arguments={"llm_backend": "openai", "llm_config": str(llm_config)}) as graph:
            assert all("llm_backend:=openai" in c.argv for c in graph.runner.commands if c.name != "lifecycle_manager")
            result = graph.client.run("put one mug inside the fridge", planner="llm_mcts")
        asked = server.stats()["by_kind"]
    print(f"requests to the served model by kind: {asked}")
    assert result.success, result
    assert asked.get("translate", 0) >= 1            # the planner node's translation
    assert asked.get("policy", 0) >= 1 and asked.get("world_model", 0) >= 1  # the executor's LLM-MCTS
    assert result.llm_requests >= asked["policy"]


def test_a_faulty_model_server_fails_tasks_with_a_message_and_crashes_no_node(launch_graph, tmp_path_factory, ros_env,
                                                                              embeddings_dir):
    """20 % of the served model's answers fail (429, 500, timeouts, garbage, refusals): the task ends
    (success, or failure with a message) within its bounds, every node stays up and serves again."""
    from llm_planner_eval.stand_in.serve import ServeProcess

    tmp = tmp_path_factory.mktemp("faulty_graph")
    key = {"LLM_PLANNER_TEST_KEY": "sk-test-not-a-secret", "LLM_PLANNER_CACHE": str(tmp / "cache")}
    faults = ["--style", "mixed", "--fault-rate", "0.2", "--hang-s", "3", "--retry-after", "0.1", "--seed", "7"]
    with ServeProcess(faults, env={**ros_env, **key, "LLM_PLANNER_CACHE": str(embeddings_dir)}) as server:
        llm_config = tmp / "llm.yaml"
        llm_config.write_text(yaml.safe_dump({
            "openai": {"base_url": server.base_url, "model": "llm-planner-offline", "api_key_env": "LLM_PLANNER_TEST_KEY",
                       "timeout_s": 1.0, "max_retries": 4, "question_timeout_s": 20.0},
            "cache": {"enabled": False}, "embeddings": {"dir": str(embeddings_dir)}}))
        with launch_graph(tmp, env=key, llm_backend="openai", llm_config=str(llm_config)) as graph:
            result = graph.client.run("put one mug on the coffee table", planner="llm_mcts", timeout_s=300.0)
            assert result.status in (TaskResult.SUCCEEDED, TaskResult.FAILED), result
            assert result.success or result.message, result
            assert not graph.runner.failed()  # no node died
            assert graph.client.plan("put one plate on the sofa", planner="classical").success  # still serving
        faulted = sum(server.stats()["faults"].values())
    print(f"task: {result.status.value}: {result.message}; faulted requests: {faulted}")
    assert faulted > 0
