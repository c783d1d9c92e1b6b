"""Shared fixtures of the household-language tests: the seen apartment and what a model is told of it."""
from __future__ import annotations

import pytest

from llm_planner.domains.household.language.text import WorldInfo
from llm_planner.domains.household.world.scene import load_scene
from llm_planner.domains.household.world.symbolic import Household


@pytest.fixture(scope="session")
def seen() -> Household:
    return Household(load_scene("apartment_seen"))


@pytest.fixture(scope="session")
def seen_world(seen) -> WorldInfo:
    return WorldInfo.from_household(seen)
