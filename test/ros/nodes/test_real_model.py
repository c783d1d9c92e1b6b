"""A real language model in the loop: the node graph with
``llm_backend: openai`` against SmolLM2-135M-Instruct served by ``transformers serve`` (the
``smollm2_server`` fixture of test/conftest.py: ``llm-planner serve --local-model smollm2`` as a
Python class), no fallback to the offline stand-in. A one-object directive is executed to its end
within small bounds (success, or failure with a message), and a two-object directive is translated
to the right goal or refused: a wrong goal fails the test.

The model is small and slow on 2 cores (a one-line answer takes about 1-2 s alone, several times
that on a loaded machine), so the test's LLM configuration asks for few samples and short answers;
what the answers are worth is measured by the benchmarks, not here."""
from __future__ import annotations

import time

import pytest
import yaml

from llm_planner_ros.task_results import TaskResult

pytestmark = [pytest.mark.ros, pytest.mark.slow]

#: The test's overrides of config/llm.yaml: one or two samples, one-line answer budgets, bounded waits.
LLM_OVERRIDES = {
    "openai": {"timeout_s": 60.0, "question_timeout_s": 120.0, "max_retries": 1},
    "world_model": {"samples": 1, "max_tokens": 24},
    "policy": {"samples": 2, "max_tokens": 24},
    "translate": {"max_tokens": 64},  # (a temperature here is not honoured: see batch_sampling, config/local_model.yaml)
    "cache": {"enabled": False},
}
#: The graph's bounds: a task ends within plan_timeout_s and max_steps whatever the model answers.
GRAPH = {"llm_backend": "openai", "llm_fallback": "none", "max_steps": 4, "plan_timeout_s": 150.0}


def _goal_set(goal) -> set[tuple]:  # noqa: ANN001 - the result's list of [relation, object, place, count]
    return {tuple(atom) for atom in goal or ()}


def test_a_served_real_model_plans_and_translates_in_the_node_graph(launch_graph, tmp_path_factory, smollm2_server,
                                                                     embeddings_dir):
    tmp = tmp_path_factory.mktemp("real_model_graph")
    env = {"LLM_PLANNER_CACHE": str(tmp / "cache")}  # the prior is asked of this model, not read from an earlier run
    llm_config = tmp / "llm.yaml"
    client = smollm2_server.client_config()
    fitted = {section: {**client.get(section, {}), **LLM_OVERRIDES.get(section, {})} for section in {*client, *LLM_OVERRIDES}
              if isinstance(client.get(section, LLM_OVERRIDES.get(section)), dict)}  # the server's file, the test's bounds
    fitted["embeddings"] = {**fitted.get("embeddings", {}), "dir": str(embeddings_dir)}
    llm_config.write_text(yaml.safe_dump({**client, **LLM_OVERRIDES, **fitted}))
    with launch_graph(tmp, env=env, llm_config=str(llm_config), **GRAPH) as graph:
        started = time.monotonic()
        result = graph.client.run("put one apple inside the fridge", planner="l_policy", timeout_s=GRAPH["plan_timeout_s"])
        executed_s = time.monotonic() - started
        print(f"one object: {result.status.value} in {executed_s:.1f} s, {len(result.executed)} steps, goal "
              f"{result.goal}, {result.llm_requests} LLM requests: {result.message}")
        assert result.status in (TaskResult.SUCCEEDED, TaskResult.FAILED), result
        assert result.success or result.message, result
        assert executed_s < GRAPH["plan_timeout_s"] + 60.0
        if result.goal:  # translated: it must be the directive's goal (a refusal ends the task with a message)
            assert _goal_set(result.goal) == {("inside", "apple", "fridge", 1)}, result
            assert result.llm_requests >= 1, result  # the executor's LLM-MCTS asked the served model
        assert not graph.runner.failed()  # no node died

        started = time.monotonic()
        two = graph.client.plan("put one apple inside the fridge and one plate on the kitchen table", planner="classical")
        print(f"two objects: success {two.success} in {time.monotonic() - started:.1f} s, goal {two.goal}: "
              f"{two.message}")
        if two.success:
            assert _goal_set(two.goal) == {("inside", "apple", "fridge", 1), ("on", "plate", "kitchen_table", 1)}, two
        else:  # a refusal says why, and proposes no goal
            assert two.message and not two.goal, two
