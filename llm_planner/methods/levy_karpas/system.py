"""The whole system of Levy & Karpas (seed 001, Figure 1): Phase I (the two translation channels)
and Phase II (consistency checking with up to B tries), for one directive in one state.

    >>> system = LevyKarpasSystem.create()                 # offline backend, config/nl2pddl.yaml
    >>> result = system.run(household, state, "go to the bedroom through the kitchen and bring the book to the sofa")
    >>> result.plan                                      # walk(kitchen), walk(bedroom), ... puton(book_1, sofa)

The offline channels' clause classifier is trained on the data set's train split (generated from
its seed, about a second; Sentence-BERT embeddings cached on disk) once per process.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from llm_planner.domains.household.world.symbolic import Action, Household, State
from llm_planner.llm.base import LanguageModel
from llm_planner.llm.factory import make_backend
from llm_planner.methods.levy_karpas.channels import ChannelOutput, make_channels
from llm_planner.methods.levy_karpas.config import load_config
from llm_planner.methods.levy_karpas.consistency import ConsistencyResult, Solver, check_consistency
from llm_planner.methods.levy_karpas.encoding import solve_combined


@dataclass
class SystemResult:
    """Channel outputs and the consistency check of one directive."""

    output: ChannelOutput
    check: ConsistencyResult

    @property
    def plan(self) -> list[Action] | None:
        return self.check.plan

    @property
    def message(self) -> str:
        errors = [e for e in (self.output.goal_error, self.output.template_error) if e]
        if not self.check.consistent and errors:
            return "; ".join(errors)
        return self.check.message


class LevyKarpasSystem:
    """Channels of a backend (``offline``: rules + trained clause classifier; ``openai``: the
    model with K training examples) and the consistency check, per scene."""

    def __init__(self, backend: LanguageModel, config: Mapping[str, Any] | None = None,
                 solver: Solver = solve_combined) -> None:
        self.backend = backend
        self.config = dict(config or load_config())
        self.solver = solver
        self._channels: dict[str, Any] = {}

    @classmethod
    def create(cls, backend: str | LanguageModel | None = None, config: Mapping[str, Any] | None = None,
               **kwargs: Any) -> LevyKarpasSystem:
        if not isinstance(backend, LanguageModel):
            backend = make_backend(backend=backend or None)
        return cls(backend, config, **kwargs)

    @property
    def tries(self) -> int:
        return int(self.config["consistency"]["tries"])

    def channels(self, household: Household) -> Any:
        key = f"{household.scene.name}|{id(household)}"
        if key not in self._channels:
            self._channels[key] = make_channels(household, self.backend, self.config, self.tries)
        return self._channels[key]

    def translate(self, household: Household, goal_directive: str, step_directive: str | None = None,
                  state: State | None = None) -> ChannelOutput:
        """Phase I: ranked goals and templates (``state`` given: the directive + state input)."""
        step = goal_directive if step_directive is None else step_directive
        return self.channels(household).predict(goal_directive, step, state)

    def run(self, household: Household, state: State, goal_directive: str, step_directive: str | None = None,
            use_state: bool | None = None) -> SystemResult:
        """Phase I then Phase II from ``state`` (the robot is clairvoyant in the seed: the planner
        always gets the full state; ``use_state`` only decides whether the channels read it)."""
        if use_state is None:
            use_state = self.config["input"] == "directive+state"
        output = self.translate(household, goal_directive, step_directive, state if use_state else None)
        opts = self.config["consistency"]
        check = check_consistency(household, state, output.goals, output.templates, tries=int(opts["tries"]),
                                  timeout_s=float(opts["planner_timeout_s"]), solver=self.solver,
                                  diagnose=bool(opts["diagnose"]))
        return SystemResult(output, check)
