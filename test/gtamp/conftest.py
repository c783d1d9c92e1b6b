"""Shared fixtures of the G-TAMP tests: loaded problems and world models (building a PyBullet
world and its roadmap takes a few tenths of a second, so they are shared per session; tests
that change a model's state make their own)."""
from __future__ import annotations

import pytest

from llm_planner.gtamp.config import load_config
from llm_planner.gtamp.domain import TaskAction
from llm_planner.gtamp.operators import GTampModel
from llm_planner.gtamp.problems import load_problem


act = TaskAction.of


@pytest.fixture(scope="session")
def p2_plan():
    """A plan known to be feasible in P2 (both occluding bottles cleared first)."""
    return (act("pick", "bottle3"), act("place", "bottle3", "on", "counter1"),
            act("pick", "bottle2"), act("place", "bottle2", "on", "counter1"),
            act("pick", "salter"), act("place", "salter", "right_of", "bottle1"))


@pytest.fixture(scope="session")
def config():
    return load_config()


@pytest.fixture(scope="session")
def p1():
    return load_problem("P1")


@pytest.fixture(scope="session")
def p2():
    return load_problem("P2")


@pytest.fixture(scope="session")
def model_p2(p2, config):
    model = GTampModel(p2, config, seed=0)
    yield model
    model.world.close()


@pytest.fixture(scope="session")
def model_p1(p1, config):
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

    def task_plans(self, prompt: str, n: int | None = None, seed: int | None = None):
        from types import SimpleNamespace

        self.prompts.append(prompt)
        texts = self.answers.pop(0) if len(self.answers) > 1 else self.answers[0]
        return SimpleNamespace(plans=tuple(texts))


@pytest.fixture
def scripted():
    """``scripted([[text, ...], ...]) -> PlanSource`` over a :class:`ScriptedBackend`."""
    from llm_planner.gtamp.llm_source import PlanSource

    return lambda answers: PlanSource(ScriptedBackend(answers))
