"""Shared PyBullet worlds for the simulator tests: one per apartment, built once and reset
between uses (building is the slow part; reset reuses the bodies)."""
from __future__ import annotations

import pytest

from llm_planner.domains.household.world.scene import SCENES_DIR, load_scene

def load_or_skip(name: str):
    if not (SCENES_DIR / f"{name}.yaml").is_file():
        pytest.skip(f"{name}.yaml is not in config/scenes yet")
    return load_scene(name)


@pytest.fixture(scope="session")
def worlds():
    """Lazily built HouseholdSim per apartment name, closed at the end of the session."""
    from llm_planner.domains.household.sim.world import HouseholdSim

    built: dict[str, HouseholdSim] = {}

    def get(name: str) -> HouseholdSim:
        if name not in built:
            scene = load_or_skip(name)
            built[name] = HouseholdSim(scene, scene.sample_placement(0), seed=0)
        return built[name]

    yield get
    for sim in built.values():
        sim.close()
