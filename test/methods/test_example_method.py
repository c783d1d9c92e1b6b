"""A fifth method touches one package: this module alone registers a small example method (its
question kind, its offline answerer and its planner, for the household world) and it runs through
``/plan_task`` (the ROS node graph, every node its own process) and ``llm-planner bench household``,
with no file of the package edited.

The launched processes find it the way any method outside the package is found: its module named
in ``$LLM_PLANNER_METHODS`` and its folder on ``PYTHONPATH`` (``config/methods.yaml`` names the
shipped ones). The method: the planner sees the full state and asks the language model one
question of its own kind, "the whole plan from here" (``example_whole_plan``); the offline answer
is the household oracle's plan (``expert_plan``).
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from llm_planner.domains.household.world.expert import expert_plan
from llm_planner.domains.household.world.symbolic import Action, Goal, Household, Observation, State
from llm_planner.llm.base import LanguageModel
from llm_planner.llm.questions import QuestionKind, register as register_kind
from llm_planner.domains.household.world.episode import Task
from llm_planner.planners.base import Decision, Planner, register as register_planner

KIND = "example_whole_plan"
PLANNER = "example_oracle"
HERE = Path(__file__).resolve().parent
MODULE = Path(__file__).stem  # how the launched processes import this module


# ------------------------------------------------------------------------------ the method
@dataclass(frozen=True)
class WholePlanQuestion:
    """The question: the apartment, the full state and the goal."""

    household: Household
    state: State
    goal: Goal


def offline_whole_plan(backend: LanguageModel, question: WholePlanQuestion, n: int | None = None,
                       seed: int | None = None) -> tuple[Action, ...]:
    """The offline answer: the oracle's plan (no language model)."""
    with backend.counting():
        return tuple(expert_plan(question.household, question.state, question.goal))


register_kind(QuestionKind(KIND, {"offline": offline_whole_plan}, source="the example method of test_example_method.py"))


@register_planner(PLANNER)
class ExampleOraclePlanner(Planner):
    """Asks for the whole plan once per episode (and after a failed step) and follows it."""

    needs_full_state = True

    def __init__(self, backend: Any = None, llm_config: Any = None, **params: Any) -> None:
        super().__init__(**params)
        if not isinstance(backend, LanguageModel):
            from llm_planner.llm.factory import make_backend

            backend = make_backend(llm_config, backend=backend or "offline")
        self.backend = backend
        self.plan: list[Action] = []

    def start(self, task: Task, observation: Observation, full_state: State | None = None) -> None:
        self.task = task
        self._ask(full_state)

    def _ask(self, full_state: State | None) -> None:
        assert self.task is not None and full_state is not None, "the example planner needs the full state"
        before = self.backend.usage.copy()
        with self.stats.timing():
            self.plan = list(self.backend.answer(KIND, WholePlanQuestion(self.task.household, full_state, self.task.goal)))
        self.stats.llm_requests += (self.backend.usage - before).questions

    def decide(self, observation: Observation, full_state: State | None = None) -> Decision:
        self.stats.decisions += 1
        if not self.plan and full_state is not None and self.task is not None \
                and not self.task.household.satisfied(full_state, self.task.goal):
            self._ask(full_state)
        return Decision(self.plan[0]) if self.plan else Decision(None, "the plan is done")

    def record(self, action: Action, success: bool, reason: str, observation: Observation) -> None:
        if success and self.plan and self.plan[0] == action:
            self.plan.pop(0)
        else:
            self.plan = []  # ask again from the state after the failure

    def preview(self) -> list[Action]:
        return list(self.plan)


# ------------------------------------------------------------------------------ the tests
def _env() -> dict[str, str]:
    path = os.pathsep.join(p for p in (str(HERE), os.environ.get("PYTHONPATH", "")) if p)
    return {"LLM_PLANNER_METHODS": MODULE, "PYTHONPATH": path}


def test_the_example_method_is_a_household_planner_asking_its_own_question():
    from llm_planner.adapters import get_domain
    from llm_planner.domains.household.world.episode import SymbolicWorld
    from llm_planner.adapters.household import HouseholdDomain
    from llm_planner.execution import run_episode
    from llm_planner.domains.household.world.scene import load_scene
    from llm_planner.domains.household.world.tasks import generate_tasks
    from llm_planner.planners.base import create

    assert PLANNER in get_domain("household").planner_names()
    assert PLANNER not in get_domain("gtamp").planner_names()
    household = Household(load_scene("apartment_seen"))
    task = generate_tasks(household.scene, "simple", 1, seed=3)[0]
    planner = create(PLANNER)
    world = SymbolicWorld(household, household.sample_initial_state(task.placement_seed))
    result = run_episode(HouseholdDomain, planner, Task(task.instruction, task.goal, household), world)
    assert result.success, result.message
    assert planner.stats.llm_requests == 1 and planner.backend.usage.questions == 1


def test_the_example_method_runs_through_bench_household(tmp_path):
    out = tmp_path / "bench.json"
    proc = subprocess.run([sys.executable, "-m", "llm_planner.cli", "bench", "household", "--methods", PLANNER,
                           "--suites", "simple", "--home", "seen", "--episodes", "2", "--seeds", "1", "--workers", "1",
                           "--no-progress", "--json", str(out)],
                          env={**os.environ, **_env()}, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    report = json.loads(out.read_text())
    rows = [r for r in report["rows"] if r["method"] == PLANNER]
    assert rows and rows[0]["episodes"] == 2 and rows[0]["success_rate"] == 1.0, report["rows"]
    assert all(e["llm_requests"] >= 1 for e in report["episodes"])


def _running_graph() -> Any:
    """``running_graph`` of the system tests' fixtures (``test/nodes/conftest.py``)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("example_method_nodes_fixtures", HERE.parent / "ros" / "nodes" / "conftest.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module.running_graph


@pytest.mark.ros
@pytest.mark.slow
def test_the_example_method_runs_through_plan_task(ros_env, tmp_path):
    with _running_graph()(ros_env, tmp_path, env=_env()) as graph:
        answer = graph.client.plan("put one apple inside the fridge", planner=PLANNER)
        assert answer.success, answer.message
        assert answer.plan and answer.plan[-1].startswith("putin(apple_"), answer.plan
        assert answer.llm_requests >= 1
        unknown = graph.client.plan("put one apple inside the fridge", planner="stalm")
        assert not unknown.success and PLANNER in unknown.message  # listed with this world's planners
