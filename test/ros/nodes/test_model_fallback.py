"""The model server killed mid-task (``llm_fallback``): the task finishes on the embedded
provider, the switch said in its feedback and its result; /diagnostics shows the server as ERROR
within 5 s; with ``llm_fallback: none`` (changed at run time) a request ends with a message naming
the server; once a server answers again at the same address, the graph asks it again. First, as
the steps are slow here: deactivating the planner mid-task cancels the task, saying why.

The model server is ``llm-planner serve`` (an OpenAI-compatible server over real HTTP) in its own
process; the graph's nodes reach it through the openai backend."""
from __future__ import annotations

import time

import pytest
import yaml
from lifecycle_msgs.msg import Transition
from rclpy.parameter import Parameter

from llm_planner_ros.task_results import Feedback, TaskResult

pytestmark = [pytest.mark.ros, pytest.mark.slow]
ERROR_WITHIN_S = 5.0


class Diagnostics:
    """The latest status of each name on /diagnostics, received on the test client's node."""

    def __init__(self, client) -> None:
        from diagnostic_msgs.msg import DiagnosticArray

        self.client = client
        self.latest: dict[str, tuple[int, str, float]] = {}
        client.node.create_subscription(DiagnosticArray, "/diagnostics", self._store, 50)

    def _store(self, msg) -> None:
        for s in msg.status:
            self.latest[s.name] = (s.level[0], s.message, time.monotonic())

    def wait_level(self, name: str, level: int, after: float, timeout_s: float) -> float | None:
        """Seconds after ``after`` at which ``name`` was first reported at ``level`` (None: not in time)."""
        deadline = time.monotonic() + timeout_s
        while time.monotonic() < deadline:
            self.client.executor.spin_once(timeout_sec=0.05)
            got = self.latest.get(name)
            if got and got[0] == level and got[2] >= after:
                return got[2] - after
        return None


def _set(graph, node: str, name: str, value) -> None:
    """``ros2 param set /node name value`` through the parameter service."""
    from rcl_interfaces.srv import SetParameters

    client = graph.client.node.create_client(SetParameters, f"/{node}/set_parameters")
    assert client.wait_for_service(timeout_sec=30.0)
    future = client.call_async(SetParameters.Request(parameters=[Parameter(name, value=value).to_parameter_msg()]))
    assert graph.client.spin_until(future, 30.0)
    result = future.result().results[0]
    assert result.successful, result.reason


def _transition(graph, node: str, transition: int) -> bool:
    """``ros2 lifecycle set /node ...`` through the change_state service."""
    from lifecycle_msgs.srv import ChangeState

    client = graph.client.node.create_client(ChangeState, f"/{node}/change_state")
    assert client.wait_for_service(timeout_sec=30.0)
    future = client.call_async(ChangeState.Request(transition=Transition(id=transition)))
    assert graph.client.spin_until(future, 60.0)
    return future.result().success


def _wait_for_a_step(client, timeout_s: float = 240.0) -> None:
    deadline = time.monotonic() + timeout_s
    while not getattr(client.feedback(), "step", 0) and time.monotonic() < deadline:
        assert not client.is_task_complete(), client.result().message
    assert getattr(client.feedback(), "step", 0), f"no step within {timeout_s:g} s"


def test_a_killed_model_server_hands_the_task_to_the_embedded_provider(launch_graph, tmp_path_factory, ros_env,
                                                                       embeddings_dir):
    from llm_planner_eval.stand_in.serve import ServeProcess

    tmp = tmp_path_factory.mktemp("fallback_graph")
    env = {"LLM_PLANNER_TEST_KEY": "sk-test-not-a-secret", "LLM_PLANNER_CACHE": str(tmp / "cache")}
    serve_env = {**ros_env, **env, "LLM_PLANNER_CACHE": str(embeddings_dir)}  # the stand-in's own cache
    server = ServeProcess(["--latency", "0.05"], env=serve_env).start()
    try:
        llm_config = tmp / "llm.yaml"
        llm_config.write_text(yaml.safe_dump({
            "openai": {"base_url": server.base_url, "model": "llm-planner-offline",
                       "api_key_env": "LLM_PLANNER_TEST_KEY", "timeout_s": 2.0, "max_retries": 1,
                       "question_timeout_s": 6.0},
            "translate": {"ask_model": "always"},  # every translation goes to the server, read or not
            "cache": {"enabled": False}, "embeddings": {"dir": str(embeddings_dir)}}))
        with launch_graph(tmp, env=env, llm_backend="openai", llm_config=str(llm_config)) as graph:
            diagnostics = Diagnostics(graph.client)
            assert diagnostics.wait_level("/executor: model server", 0, 0.0, 30.0) is not None, diagnostics.latest

            # 0. (steps are slow here, a few model answers each) deactivating the planner cancels
            # the running task before its next skill, saying why; activated again, it serves
            graph.client.execute("put one plate on the coffee table", planner="llm_mcts")
            _wait_for_a_step(graph.client)
            assert _transition(graph, "planner", Transition.TRANSITION_DEACTIVATE)
            stopped = graph.client.result(timeout_s=120.0)
            assert stopped.status is not TaskResult.SUCCEEDED, stopped
            assert "the planner was deactivated" in stopped.message, stopped
            assert _transition(graph, "planner", Transition.TRANSITION_ACTIVATE)

            # 1. killed mid-task: the task goes on with the embedded provider and says so
            feedback: list[Feedback] = []
            graph.client.execute("put one mug inside the fridge", planner="llm_mcts",
                                 on_feedback=feedback.append)
            _wait_for_a_step(graph.client)
            asked_before = sum(server.stats()["by_kind"].values())
            server.proc.kill()
            server.proc.wait()
            killed = time.monotonic()
            took = diagnostics.wait_level("/executor: model server", 2, killed, 30.0)
            assert took is not None and took <= ERROR_WITHIN_S, (took, diagnostics.latest)
            print(f"server killed: /diagnostics ERROR after {took:.2f} s: {diagnostics.latest['/executor: model server'][1]}")
            result = graph.client.result(timeout_s=600.0)
            print(f"task after the kill: {result.status.value}: {result.message}")
            assert result.success, result
            assert "stopped answering" in result.message and "embedded offline provider" in result.message
            notes = [f for f in feedback if "stopped answering" in f.observation]
            assert notes, "the switch is not said in the feedback"

            # 2. llm_fallback none, changed at run time: a request ends with a message naming the server
            for node in ("planner", "executor"):
                _set(graph, node, "llm_fallback", "none")
            refused = graph.client.plan("put one plate on the sofa", planner="classical", wait_s=60.0)
            assert not refused.success and server.base_url in refused.message, refused

            # 3. a server answers again at the same address: back to it
            port = server.base_url.rsplit(":", 1)[1].split("/")[0]
            server = ServeProcess(["--port", port], env=serve_env).start()
            for node in ("planner", "executor"):
                _set(graph, node, "llm_fallback", "offline")
            back = diagnostics.wait_level("/planner: model server", 0, time.monotonic(), 30.0)
            assert back is not None, diagnostics.latest
            planned = graph.client.plan("put one plate on the sofa", planner="classical", wait_s=60.0)
            assert planned.success, planned
            assert server.stats()["by_kind"].get("translate", 0) >= 1, "the planner did not go back to the server"
            print(f"requests before the kill: {asked_before}; back to the server after {back:.2f} s")
    finally:
        server.stop()
