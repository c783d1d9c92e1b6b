"""The node graph as the real-model guide starts it, against a served stand-in that answers as slowly
and as badly as SmolLM2 on two cores: every sample a request of its own (it ignores ``n``), 6 s a
request, five at once, the rest queued, and SmolLM2's kinds of wrong answers (``--error-profile
smollm2``). The LLM-MCTS prior is built once beforehand (``llm-planner build-prior --cache``, as the
guide says, against the same stand-in without the latency). Two directives are executed in a row
with ``llm_mcts``, each within the graph's default time limit: the decisions do not wait for answers
that come too late (the first contact's probe alone takes 12 s here), the questions run on at the
server, and the embedded offline provider never answers for it: it is busy, never gone."""
from __future__ import annotations

import subprocess
import sys
import time

import pytest
import yaml

from llm_planner.config import read_params_file
from llm_planner.paths import config_dir
from llm_planner_ros.task_results import Feedback

pytestmark = [pytest.mark.ros, pytest.mark.slow]

#: the stand-in as SmolLM2 on 2 cores (docs/guides/real-model.md): its errors, one sample per request
SMOLLM2_ERRORS = ["--error-profile", "smollm2", "--error-rate", "0.8", "--ignore-n", "--model", "smollm2-stand-in"]
SMOLLM2_SPEED = ["--latency", "6", "--max-concurrency", "5"]
DIRECTIVES = ("put one apple inside the fridge", "put one mug inside the fridge")


def test_the_graph_executes_with_llm_mcts_against_a_slow_busy_model_without_falling_back(
        launch_graph, tmp_path_factory, ros_env, embeddings_dir):
    from llm_planner_eval.stand_in.serve import ServeProcess

    tmp = tmp_path_factory.mktemp("slow_model_graph")
    env = {"LLM_PLANNER_CACHE": str(tmp / "cache")}
    serve_env = {**ros_env, "LLM_PLANNER_CACHE": str(embeddings_dir)}  # the stand-ins' own cache

    def llm_config(base_url: str, name: str):
        path = tmp / name
        path.write_text(yaml.safe_dump({"backend": "openai",
                                        "openai": {"base_url": base_url, "model": "smollm2-stand-in",
                                                   "timeout_s": 300.0, "question_timeout_s": 900.0,
                                                   "parse_retries": 0, "max_in_flight": 5,
                                                   "in_flight": {"adaptive": False}},
                                        "embeddings": {"dir": str(embeddings_dir)}}))
        return path

    with ServeProcess(SMOLLM2_ERRORS, env=serve_env) as quick:  # the prior, once, as the guide says
        built = subprocess.run([sys.executable, "-m", "llm_planner.cli", "build-prior", "--scene", "apartment_seen",
                                "--cache", "--llm-config", str(llm_config(quick.base_url, "quick.yaml"))],
                               env={**ros_env, **env}, capture_output=True, text=True, timeout=600)
        assert built.returncode == 0, built.stdout + built.stderr
    limit = float(read_params_file(config_dir() / "llm_planner.yaml")["plan_timeout_s"])
    results = []
    with ServeProcess(SMOLLM2_ERRORS + SMOLLM2_SPEED, env=serve_env) as server:
        slow = llm_config(server.base_url, "slow.yaml")
        with launch_graph(tmp, env=env, arguments={"llm_backend": "openai", "llm_config": str(slow)}) as graph:
            for directive in DIRECTIVES:
                feedback: list[Feedback] = []
                started = time.monotonic()
                result = graph.client.run(directive, planner="llm_mcts",  # the default time limit (plan_timeout_s)
                                          on_feedback=feedback.append)
                took = time.monotonic() - started
                results.append((directive, result, took, feedback))
                print(f"{directive}: {result.status.value} in {took:.1f} s, {len(result.executed)} "
                      f"steps, {result.llm_requests} LLM requests; {result.message}")
            deadline = time.monotonic() + 120.0  # the questions the decisions did not wait for run on
            while not server.stats()["by_kind"].get("policy") and time.monotonic() < deadline:
                time.sleep(1.0)
        asked = server.stats()["by_kind"]
    print(f"served: {asked}")
    for directive, result, took, feedback in results:
        assert result.success, result
        assert took < limit, f"{directive}: {took:.0f} s, beyond the graph's default time limit of {limit:g} s"
        said = [f.observation for f in feedback] + [result.message]
        assert not [s for s in said if "embedded offline provider" in s], said  # no fallback: the server was up
        assert result.llm_requests > 0, result  # the questions not waited for count when they land
    assert asked.get("policy", 0) >= 1  # the executor's LLM-MCTS asked the slow server (late questions)
