"""Shared fixtures of the world tests: the symbolic models of the shipped apartments."""
from __future__ import annotations

import pytest

from llm_planner.domains.household.world.scene import load_scene
from llm_planner.domains.household.world.symbolic import Household

APARTMENTS = ("apartment_seen", "apartment_unseen")


@pytest.fixture(scope="session", params=APARTMENTS)
def household(request) -> Household:
    """Each shipped apartment in turn."""
    return Household(load_scene(request.param))


@pytest.fixture(scope="session")
def seen() -> Household:
    """The seen apartment (training layout)."""
    return Household(load_scene("apartment_seen"))
