"""``saycanpay``: SayCanPay (seed 004) as a planner of the closed loop. It plans *offline* (the
whole plan from the goal and the initial observation, §2 and Table 1 "Offline"), then the executor
carries the plan out step by step, as the seed executes generated plans in its simulators.

Observability: the seed's initial observation o_0 describes every object (BabyAI: "Room 1 has
purple ball. Room 2 has yellow key, agent ..."), so this planner gets the full initial state
(``needs_full_state = True``). ``saycanpay`` is the paper's decoder: Say sees the goal, o_0 and the
plan so far, and a plan ends when "done task" is chosen. ``saycanpay_oracle`` is the variant that
steps its beams with the true transition model, shows Say the observation after each planned step and
stops at the true goal test (see ``llm_planner.methods.saycanpay.decoding``); :meth:`describe` says
which.

``create("saycanpay")`` works without parameters: the ``offline`` backend, ``config/saycanpay.yaml``
(Beam-Action, SayCanPay score, k = 3, m = 6, learned Can) and the Can/Pay models saved by
``llm-planner train saycanpay`` (a missing model ends the episode with a message naming that
command; training takes minutes, too long to do silently on first use). Parameters::

    create("saycanpay", backend=None | "offline" | "openai" | LanguageModel, config=None | {...} | FILE,
           strategy="beam_action" | "greedy_action", score="say" | "saycan" | "saycanpay",
           can="learned" | "oracle", beam_size=3, candidates=6, max_steps=30, models=None | Models | DIR,
           variant="paper" | "oracle")

A failed step is skipped and the rest of the plan executed (the seed's offline plans), unless
``decoding.replan_on_failure`` is set: then the planner decodes again from the current state.
"""
from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from llm_planner.domains.household.world.episode import HouseholdPlanner, Task
from llm_planner.domains.household.world.symbolic import Action, Observation, State
from llm_planner.errors import ConfigError, LlmPlannerError
from llm_planner.llm.base import LanguageModel
from llm_planner.llm.factory import make_backend
from llm_planner.methods.saycanpay.config import load_config, model_dir
from llm_planner.methods.saycanpay.decoding import Decoder, Episode
from llm_planner.methods.saycanpay.features import N_FEATURES
from llm_planner.methods.saycanpay.models import TRAIN_HINT, Models
from llm_planner.planners.base import Decision, register

_MODELS: dict[str, Any] = {}


def load_models(directory: Path, done_step: bool = False) -> Models:
    """Trained Can/Pay models of a directory, loaded once per process. ``done_step``: the paper's
    decoder needs models trained with the "done task" step (an older model is refused, naming the
    training command)."""

    key = str(directory)
    if key not in _MODELS:
        _MODELS[key] = Models.load(directory, N_FEATURES)
    models = _MODELS[key]
    if done_step and not models.meta.get("done_step"):
        raise ConfigError(f"the SayCanPay models in {directory} were trained without the 'done task' step that the "
                          f"paper's decoder scores; {TRAIN_HINT}")
    return models


@register("saycanpay")
class SayCanPayPlanner(HouseholdPlanner):
    needs_full_state = True
    default_variant: str | None = None  # None: config/saycanpay.yaml (paper)

    def __init__(self, backend: Any = None, config: Mapping[str, Any] | str | None = None, strategy: str | None = None,
                 score: str | None = None, can: str | None = None, beam_size: int | None = None,
                 candidates: int | None = None, max_steps: int | None = None, models: Any = None,
                 variant: str | None = None, **params: Any) -> None:
        super().__init__(backend=backend, strategy=strategy, score=score, can=can, **params)

        self.config = load_config(config, strategy=strategy, score=score, can=can, beam_size=beam_size,
                                  candidates=candidates, max_steps=max_steps, variant=variant or self.default_variant)
        self.backend_arg = backend
        self.models_arg = models
        self.decoder: Decoder | None = None
        self.plan: list[Action] = []
        self.failure = ""
        self.replan_pending = False
        self.done_in_plan = False

    def describe(self) -> str:
        d = self.config["decoding"]
        name = getattr(getattr(self.decoder, "backend", None), "name", self.backend_arg or "offline")
        how = ("offline plan from the full initial state o_0 alone, ended by 'done task', as the seed"
               if d["variant"] == "paper" else
               "oracle decoder: beams stepped with the true transition model, Say shown each step's observation, "
               "ended at the true goal test")
        return (f"SayCanPay {d['strategy']} with the {d['score']} score (Can: {d['can']}, k={d['beam_size']}, "
                f"m={d['candidates']}, {name} Say); {how}")

    def _decoder(self) -> Decoder:
        if self.decoder is None:
            backend = self.backend_arg
            if not isinstance(backend, LanguageModel):
                backend = make_backend(backend=backend or None)
            decoding = self.config["decoding"]
            needs = decoding["score"] == "saycanpay" or (decoding["score"] == "saycan" and decoding["can"] == "learned")
            models = self.models_arg
            if needs and not hasattr(models, "can"):
                models = load_models(Path(models) if models else model_dir(self.config),
                                     done_step=decoding["variant"] == "paper")
            self.decoder = Decoder(backend, decoding, models if needs else None)
        return self.decoder

    def start(self, task: Task, observation: Observation, full_state: State | None = None) -> None:
        self.task = task
        self.plan, self.failure, self.replan_pending = [], "", False
        if full_state is None:
            self.failure = ("the saycanpay planner needs the full initial state o_0 (the seed's observations list "
                            "every object)")
            return
        self._plan(full_state)

    def _plan(self, state: State) -> None:
        assert self.task is not None
        try:
            with self.stats.timing():
                decoder = self._decoder()
                result = decoder.decode(Episode(self.task.household, self.task.directive, self.task.goal, state))
        except LlmPlannerError as exc:
            self.failure = f"saycanpay: {exc}"
            return
        self.stats.llm_requests += result.llm_requests
        self.plan = list(result.plan)
        self.done_in_plan = result.done
        self.failure = "" if self.plan else (result.message or "SayCanPay produced an empty plan")
        if not result.done and result.message:
            self.failure = result.message

    def decide(self, observation: Observation, full_state: State | None = None) -> Decision:
        self.stats.decisions += 1
        if self.replan_pending and full_state is not None:
            self.replan_pending = False
            self._plan(full_state)
        if not self.plan:
            return Decision(None, self.failure or "the plan is finished but the goal does not hold")
        return Decision(self.plan[0])

    def record(self, action: Action, success: bool, reason: str, observation: Observation) -> None:
        if self.plan and self.plan[0] == action:
            self.plan.pop(0)
        if not success and self.config["decoding"]["replan_on_failure"]:
            self.plan, self.replan_pending = [], True

    def preview(self) -> list[Action]:
        return list(self.plan)


@register("saycanpay_oracle")
class SayCanPayOraclePlanner(SayCanPayPlanner):
    """SayCanPay with the oracle decoder (``decoding.variant: oracle``): the beams follow the true
    transition model, Say sees each planned step's observation, a beam ends at the true goal test."""

    default_variant = "oracle"
