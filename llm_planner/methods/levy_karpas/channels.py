"""Phase I of Levy & Karpas (seed 001, Figure 1): two channels translate a directive (optionally with
the state) into ranked goals and ranked plan templates. This module holds what they return and which
channels a backend gets, by the question kind :data:`KIND` (:mod:`.questions`): the ``openai``
backend asks the model (:mod:`.openai_channels`); the ``offline`` backend answers with the offline
channels (:mod:`.offline_channels`), imported on first use.
"""
from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from llm_planner.domains.household.world.symbolic import Goal, Household, State
from llm_planner.llm.base import LanguageModel
from llm_planner.methods.levy_karpas.template import PlanTemplate

#: the question kind of Phase I, registered by :mod:`.questions`
KIND = "nl2pddl"

@dataclass(frozen=True)
class ChannelOutput:
    """Ranked predictions of both channels for one input; an error says why a channel gave none."""

    goals: list[Goal]
    templates: list[PlanTemplate]
    goal_error: str = ""
    template_error: str = ""
    requests: int = 0


class Channels(Protocol):
    """Both channels for one scene."""

    def predict(self, goal_directive: str, step_directive: str, state: State | None) -> ChannelOutput: ...


@dataclass(frozen=True)
class Phase1Question:
    """The question both channels answer (the question kind ``nl2pddl``): a directive's goal part and
    step part, with the state for the D+S input, in one scene."""

    household: Household
    config: Mapping[str, Any]
    tries: int
    goal_directive: str
    step_directive: str
    state: State | None


class AskedChannels:
    """Both channels of one scene, asked through the LLM layer: ``backend.answer("nl2pddl", ...)`` is
    answered by the backend's registered answerer (:mod:`.questions`: the model's channels for
    ``openai``, the rules + trained classifier for ``offline``); a FallbackBackend's offline answerer
    takes over when the model fails."""

    def __init__(self, household: Household, backend: LanguageModel, config: Mapping[str, Any], tries: int) -> None:
        self.household = household
        self.backend = backend
        self.config = config
        self.tries = tries

    def predict(self, goal_directive: str, step_directive: str, state: State | None) -> ChannelOutput:
        return self.backend.answer(KIND, Phase1Question(self.household, self.config, self.tries, goal_directive,
                                                        step_directive, state))


def make_channels(household: Household, backend: LanguageModel, config: Mapping[str, Any], tries: int) -> Channels:
    """The channels of ``backend`` for one scene (``config``: the whole nl2pddl configuration)."""
    return AskedChannels(household, backend, config, tries)
