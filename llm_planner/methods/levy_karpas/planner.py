"""``pddl``: Levy & Karpas (seed 001) as a planner of the closed loop: the directive (and the
state) -> goal and plan template -> Fast Downward consistency check with up to B = 5 tries -> the
plan, executed step by step.

Observability: the seed's robot is *clairvoyant* ("we assume our robot ... has complete and
perfect information about the state of the world"), so this planner needs the full state
(``needs_full_state = True``) and says so in :meth:`describe`.

``create("pddl")`` works without parameters: the ``offline`` backend, ``config/nl2pddl.yaml``
(directive + state input, B = 5, the planner's time limit), the clause classifier trained on the
data set's train split on first use (about a second). Parameters::

    create("pddl", backend=None | "offline" | "openai" | LanguageModel,
           config=None | {...} | "my_nl2pddl.yaml", input=None | "directive" | "directive+state",
           max_replans=3)

Bad input ends the episode at once with a Decision naming the inconsistency (an unreachable goal,
a template contradicting the goal in every try, an unknown action in the instructions). When a
step fails in execution, the planner replans for the chosen goal from the then current state
(the template, already partly executed, is dropped).
"""
from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from llm_planner.domains.household.language.text import goal_to_text
from llm_planner.domains.household.world.episode import Task
from llm_planner.domains.household.world.pddl import solve
from llm_planner.domains.household.world.symbolic import Goal, Observation, State
from llm_planner.errors import LlmPlannerError
from llm_planner.methods.classical import ClassicalPlanner
from llm_planner.methods.levy_karpas.config import load_config
from llm_planner.methods.levy_karpas.system import LevyKarpasSystem
from llm_planner.planners.base import register


@register("pddl")
class LevyKarpasPlanner(ClassicalPlanner):
    """Executes, replans after a failed step and previews like ``classical``; plans differently."""

    needs_full_state = True

    def __init__(self, backend: Any = None, config: Mapping[str, Any] | str | None = None, input: str | None = None,
                 max_replans: int = 3, **params: Any) -> None:
        self.config = load_config(config, **({"input": input} if input else {}))
        super().__init__(timeout_s=float(self.config["consistency"]["planner_timeout_s"]), max_replans=max_replans,
                         backend=backend, input=input, **params)
        self.backend_arg = backend
        self.system: LevyKarpasSystem | None = None
        self.goal: Goal = ()
        self.last_message = ""

    def describe(self) -> str:
        name = getattr(getattr(self.system, "backend", None), "name", self.backend_arg or "offline")
        return (f"Levy-Karpas NL->PDDL ({name} channels, input {self.config['input']}, Fast Downward consistency "
                f"check, B={self.config['consistency']['tries']}); clairvoyant: plans on the full state, as the seed")

    def _system(self) -> LevyKarpasSystem:
        if self.system is None:
            self.system = LevyKarpasSystem.create(self.backend_arg, self.config)
        return self.system

    def start(self, task: Task, observation: Observation, full_state: State | None = None) -> None:
        self.task = task
        self.plan, self.goal, self.replans, self.replan_pending = [], (), 0, False
        if full_state is None:
            self.failure = "the pddl planner (Levy-Karpas) needs the full state: the seed's robot is clairvoyant"
            return
        directive = task.directive.strip() or goal_to_text(task.goal)
        try:
            with self.stats.timing():
                result = self._system().run(task.household, full_state, directive)
        except LlmPlannerError as exc:
            self.failure = f"pddl planner: {exc}"
            return
        self.stats.llm_requests += result.output.requests
        self.last_message = result.message
        if result.plan is None:
            self.failure = f"no consistent plan: {result.message}"
            return
        self.plan = list(result.plan)
        self.goal = result.check.chosen.goal if result.check.chosen else ()
        self.failure = "" if self.plan else "the plan is empty"

    def _replan(self, full_state: State | None) -> None:
        """After a failed step: a plan for the chosen goal from the current state (the template,
        already partly executed, is dropped)."""

        if self.task is None or full_state is None or not self.goal:
            self.failure += "; nothing to replan for (no goal in the directive, or no state)"
            return
        with self.stats.timing():
            result = solve(self.task.household, full_state, self.goal, timeout_s=self.timeout_s)
        self.plan = list(result.actions or [])
        if not self.plan:
            self.failure += f"; replanning found no plan: {result.message}"
