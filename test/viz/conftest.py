"""Shared pieces of the picture tests: a PyBullet apartment and a reader of the written images."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest


@pytest.fixture(scope="session")
def seen_sim():
    """The seen apartment in PyBullet (placement seed 0), closed at the end of the session."""
    from llm_planner.domains.household.sim.world import HouseholdSim
    from llm_planner.domains.household.world.scene import load_scene

    scene = load_scene("apartment_seen")
    sim = HouseholdSim(scene, scene.sample_placement(0), seed=0)
    yield sim
    sim.close()


def read_rgb(path: Path) -> np.ndarray:
    from PIL import Image

    return np.asarray(Image.open(path).convert("RGB")).astype(int)


def colour_near(image: np.ndarray, pixel: tuple[int, int], colour, radius: int = 3, tolerance: int = 40) -> bool:
    """Whether a pixel within ``radius`` of (column, row) has ``colour`` (0..1 floats) within ``tolerance``."""
    col, row = pixel
    patch = image[max(row - radius, 0):row + radius + 1, max(col - radius, 0):col + radius + 1].reshape(-1, 3)
    return bool((np.abs(patch - np.array(colour[:3]) * 255).max(axis=1) < tolerance).any())
