"""What the parts of :class:`~llm_planner.domains.household.sim.world.HouseholdSim` share.

The simulator is assembled from one mixin per job (:mod:`.driving`, :mod:`.manipulation`,
:mod:`.doors`, :mod:`.sensing`); each reads the world that ``HouseholdSim._build`` sets up and calls
the others' helpers. :class:`SimHost` declares those attributes and helpers for the type checker,
so each mixin is checked against them; at run time it adds nothing (annotations only, and the
helper signatures exist only while type checking).
"""
from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import random
    from collections.abc import Iterable, Sequence
    from contextlib import AbstractContextManager

    import numpy as np

    from llm_planner.domains.household.sim.builder import WorldBodies
    from llm_planner.domains.household.sim.check import LayoutCheck
    from llm_planner.domains.household.sim.config import SimConfig
    from llm_planner.domains.household.sim.layout import FurnitureLayout
    from llm_planner.domains.household.sim.navigation import BasePlanner
    from llm_planner.domains.household.sim.robot import ArmPose, Robot
    from llm_planner.domains.household.sim.sensing import SensingMixin
    from llm_planner.domains.household.sim.skills import DriveGoal, Held, Vec3
    from llm_planner.domains.household.world.scene import Scene


class SimHost:
    """The attributes ``HouseholdSim`` sets and the helpers one part calls on another."""

    scene: Scene
    cfg: SimConfig
    client: int
    robot: Robot
    bodies: WorldBodies
    layouts: dict[str, FurnitureLayout]
    layout_check: LayoutCheck
    planner: BasePlanner
    _held: Held | None
    _rng: random.Random
    _names: dict[int, str]
    _static: list[tuple[str, int]]
    _static_ids: set[int]
    _static_boxes: np.ndarray
    _drive_radius: float
    _goals: dict[str, DriveGoal]

    if TYPE_CHECKING:
        # driving
        def _robot_parts(self) -> list[int]: ...
        def _collision(self, parts: Sequence[int], radius: float, ignore: Iterable[int] = ()) -> str | None: ...
        # manipulation
        def _travel_arm(self, wrist: float | None = None) -> ArmPose: ...
        def _free_route(self, start: ArmPose, goal: ArmPose, what: str, quick: bool = False) -> list[ArmPose]: ...
        def _load_radius(self) -> float: ...
        def _run(self, poses: Sequence[ArmPose]) -> None: ...
        def _ik(self, target: Vec3, what: str) -> ArmPose: ...
        def _sync_held(self) -> None: ...
        # doors
        def _set_door(self, furniture: str, position: float) -> None: ...
        # sensing
        def _view(self) -> SensingMixin._View: ...
        def _supports(self) -> dict[str, tuple[str, str]]: ...
        def _support(self, obj: str) -> tuple[str, str] | None: ...
        # world
        def _undo_on_failure(self, objects: Sequence[str]) -> AbstractContextManager[None]: ...
