"""Phase I of Levy & Karpas (seed 001, Figure 1): two channels translate a directive (optionally with
the state) into ranked goals and ranked plan templates. This module holds what they return and which
channels a backend gets: the ``openai`` backend asks the model (:mod:`.openai_channels`); any
other backend gets the offline stand-in (:mod:`llm_planner.methods.levy_karpas.offline_channels`), imported by
name on first use so the method never imports the offline backend.
"""
from __future__ import annotations

import importlib
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from llm_planner.domains.household.world.symbolic import Goal, Household, State
from llm_planner.llm.base import LanguageModel
from llm_planner.methods.levy_karpas.template import PlanTemplate


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


#: backend name -> (module, function building the channels of one scene); other backends: "offline".
CHANNELS: dict[str, tuple[str, str]] = {
    "openai": ("llm_planner.methods.levy_karpas.openai_channels", "make_channels"),
    "offline": ("llm_planner.methods.levy_karpas.offline_channels", "make_channels"),
}


def make_channels(household: Household, backend: LanguageModel, config: Mapping[str, Any], tries: int) -> Channels:
    """The channels of ``backend`` for one scene (``config``: the whole nl2pddl configuration)."""
    module, function = CHANNELS["openai" if backend.name == "openai" else "offline"]
    return getattr(importlib.import_module(module), function)(household, backend, config, tries)
