"""Configuration of the household simulator: ``config/robot.yaml`` and ``config/household_sim.yaml``.

Every dimension, tolerance and sampling budget of the PyBullet world, the robot skills and
perception comes from these two files; the code holds no magic numbers. A bad value fails at
load with the file and the key named (:class:`~llm_planner.errors.ConfigError`).

>>> cfg = load_sim_config()
>>> cfg.robot.base.size[0] > 0
True
"""
from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import yaml

from llm_planner.errors import ConfigError
from llm_planner.paths import config_dir

Vec3 = tuple[float, float, float]


@dataclass(frozen=True)
class Range:
    min: float
    max: float


@dataclass(frozen=True)
class BoxPart:
    size: Vec3
    color: Vec3


@dataclass(frozen=True)
class BaseConfig:
    size: Vec3  # depth (forward), width, height
    ground_clearance: float
    color: Vec3

    @property
    def top(self) -> float:
        return self.ground_clearance + self.size[2]

    @property
    def center_z(self) -> float:
        return self.ground_clearance + self.size[2] / 2.0

    @property
    def half_diagonal(self) -> float:
        return math.hypot(self.size[0] / 2.0, self.size[1] / 2.0)


@dataclass(frozen=True)
class MastConfig:
    offset: float  # mast axis ahead of the base centre
    size: Vec3
    color: Vec3


@dataclass(frozen=True)
class ShoulderConfig:
    min: float
    max: float
    travel: float  # shoulder yaw while carrying (arm turned back over the base)


@dataclass(frozen=True)
class ArmConfig:
    retracted_length: float
    stages: int
    stage_length: float
    stage_travel: float
    thickness: float
    color: Vec3

    @property
    def max_length(self) -> float:
        return self.retracted_length + self.stages * self.stage_travel


@dataclass(frozen=True)
class IkConfig:
    max_iterations: int
    residual_threshold: float
    tolerance: float


@dataclass(frozen=True)
class RobotConfig:
    base: BaseConfig
    mast: MastConfig
    lift: Range
    shoulder: ShoulderConfig
    arm: ArmConfig
    wrist: Range
    gripper: BoxPart
    ik: IkConfig


@dataclass(frozen=True)
class WorldConfig:
    wall_thickness: float
    wall_height: float
    container_wall: float
    container_plinth: float
    shelf_thickness: float
    shelf_pitch: float
    door_thickness: float
    door_open_fraction: float
    object_mass: float
    object_friction: float
    round_aspect: float
    colors: Mapping[str, Any]


@dataclass(frozen=True)
class PlacementConfig:
    margin: float
    gap: float
    overhang: float
    random_samples: int
    scan_step: float
    drop: float
    lift_off: float
    grasp_clearance: float
    settle_steps: int
    settle_tolerance: float
    drop_steps: int
    rest_speed: float
    max_tilt: float
    put_attempts: int


@dataclass(frozen=True)
class MotionConfig:
    grid_resolution: float
    path_step: float
    arm_step: float
    yaw_step: float
    door_steps: int
    collision_tolerance: float
    footprint_margin: float
    base_top_margin: float
    staging_search: float
    pose_match: float


@dataclass(frozen=True)
class PerceptionConfig:
    near_tolerance: float
    on_tolerance: float
    stack_height: float


@dataclass(frozen=True)
class SimConfig:
    robot: RobotConfig
    world: WorldConfig
    approach_clearance: float
    approach_offset_step: float
    placement: PlacementConfig
    motion: MotionConfig
    perception: PerceptionConfig
    time_step: float
    gravity: float
    solver_iterations: int
    render_margin: float
    light_direction: Vec3


class _Reader:
    """Typed access to a YAML mapping; errors name the file and the dotted key."""

    def __init__(self, data: Any, where: str) -> None:
        if not isinstance(data, dict):
            raise ConfigError(f"{where}: expected a mapping, got {type(data).__name__}")
        self.data = data
        self.where = where

    def sub(self, key: str) -> _Reader:
        return _Reader(self._raw(key), f"{self.where}.{key}")

    def _raw(self, key: str) -> Any:
        if key not in self.data:
            raise ConfigError(f"{self.where}: missing key '{key}'")
        return self.data[key]

    def num(self, key: str, positive: bool = True) -> float:
        value = self._raw(key)
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise ConfigError(f"{self.where}.{key}: expected a number, got {value!r}")
        if positive and value <= 0:
            raise ConfigError(f"{self.where}.{key}: must be positive, got {value!r}")
        return float(value)

    def integer(self, key: str) -> int:
        value = self._raw(key)
        if isinstance(value, bool) or not isinstance(value, int) or value < 1:
            raise ConfigError(f"{self.where}.{key}: expected a positive integer, got {value!r}")
        return value

    def vec(self, key: str, n: int = 3) -> tuple[float, ...]:
        value = self._raw(key)
        if not isinstance(value, list) or len(value) != n or not all(
                isinstance(v, (int, float)) and not isinstance(v, bool) for v in value):
            raise ConfigError(f"{self.where}.{key}: expected a list of {n} numbers, got {value!r}")
        return tuple(float(v) for v in value)

    def vec3(self, key: str) -> Vec3:
        x, y, z = self.vec(key, 3)
        return x, y, z

    def range(self, key: str) -> Range:
        sub = self.sub(key)
        lo, hi = sub.num("min", positive=False), sub.num("max", positive=False)
        if lo >= hi:
            raise ConfigError(f"{self.where}.{key}: min {lo} must be below max {hi}")
        return Range(lo, hi)

    def box(self, key: str) -> BoxPart:
        sub = self.sub(key)
        size = sub.vec3("size")
        if min(size) <= 0:
            raise ConfigError(f"{self.where}.{key}.size: every size must be positive, got {list(size)}")
        return BoxPart(size, sub.vec3("color"))


def _read_yaml(path: Path) -> Any:
    if not path.is_file():
        raise ConfigError(f"{path}: no such configuration file")
    try:
        return yaml.safe_load(path.read_text())
    except yaml.YAMLError as exc:
        raise ConfigError(f"{path}: not valid YAML: {exc}") from None


def parse_robot_config(data: Any, where: str = "robot.yaml") -> RobotConfig:
    r = _Reader(data, where)
    base_box = r.box("base")
    base = BaseConfig(base_box.size, r.sub("base").num("ground_clearance"), base_box.color)
    arm_r = r.sub("arm")
    arm = ArmConfig(arm_r.num("retracted_length"), arm_r.integer("stages"), arm_r.num("stage_length"),
                    arm_r.num("stage_travel"), arm_r.num("thickness"), arm_r.vec3("color"))
    mast_box = r.box("mast")
    mast = MastConfig(r.sub("mast").num("offset", positive=False), mast_box.size, mast_box.color)
    half = base.size[0] / 2.0
    gripper_half = r.box("gripper").size[0] / 2.0
    if abs(mast.offset) + arm.retracted_length + gripper_half >= half:
        raise ConfigError(f"{where}.arm.retracted_length: the retracted gripper must stay over the base "
                          f"(|mast.offset| + retracted_length + half gripper < {half})")
    if abs(mast.offset) + arm.stage_length - arm.retracted_length >= half:
        raise ConfigError(f"{where}.arm.stage_length: retracted stages must stay over the base")
    if arm.stage_travel > arm.stage_length:
        raise ConfigError(f"{where}.arm.stage_travel: a stage cannot slide out further than its length")
    lift = r.range("lift")
    if lift.min < base.top + arm.thickness / 2.0:
        raise ConfigError(f"{where}.lift.min: the arm passes over the base, so the lift must stay above "
                          f"the base top plus half the arm thickness ({base.top + arm.thickness / 2.0:.3f})")
    sh = r.range("shoulder")
    shoulder = ShoulderConfig(sh.min, sh.max, r.sub("shoulder").num("travel", positive=False))
    if not sh.min <= shoulder.travel <= sh.max:
        raise ConfigError(f"{where}.shoulder.travel: must lie within [min, max]")
    ik_r = r.sub("ik")
    ik = IkConfig(ik_r.integer("max_iterations"), ik_r.num("residual_threshold"), ik_r.num("tolerance"))
    return RobotConfig(base=base, mast=mast, lift=lift, shoulder=shoulder,
                       arm=arm, wrist=r.range("wrist"), gripper=r.box("gripper"), ik=ik)


def parse_sim_config(robot: RobotConfig, data: Any, where: str = "household_sim.yaml") -> SimConfig:
    r = _Reader(data, where)
    w = r.sub("world")
    world = WorldConfig(
        **{k: w.num(k) for k in ("wall_thickness", "wall_height", "container_wall", "container_plinth",
                                 "shelf_thickness", "shelf_pitch", "door_thickness", "door_open_fraction",
                                 "object_mass", "object_friction", "round_aspect")},
        colors=w.sub("colors").data,
    )
    pl = r.sub("placement")
    placement = PlacementConfig(
        margin=pl.num("margin"), gap=pl.num("gap"), overhang=pl.num("overhang", positive=False),
        random_samples=pl.integer("random_samples"),
        scan_step=pl.num("scan_step"), drop=pl.num("drop"), lift_off=pl.num("lift_off"),
        grasp_clearance=pl.num("grasp_clearance"),
        settle_steps=pl.integer("settle_steps"), settle_tolerance=pl.num("settle_tolerance"),
        drop_steps=pl.integer("drop_steps"), rest_speed=pl.num("rest_speed"), max_tilt=pl.num("max_tilt"),
        put_attempts=pl.integer("put_attempts"))
    m = r.sub("motion")
    motion = MotionConfig(
        **{k: m.num(k) for k in ("grid_resolution", "path_step", "arm_step", "yaw_step", "collision_tolerance",
                                 "footprint_margin", "base_top_margin", "staging_search", "pose_match")},
        door_steps=m.integer("door_steps"))
    pe = r.sub("perception")
    perception = PerceptionConfig(pe.num("near_tolerance"), pe.num("on_tolerance"), pe.num("stack_height"))
    if world.door_open_fraction >= 1.0:
        raise ConfigError(f"{where}.world.door_open_fraction: must be below 1")
    if world.container_plinth + world.container_wall < robot.base.top + m.num("base_top_margin"):
        raise ConfigError(f"{where}.world.container_plinth: a container's lowest level must lie above the robot "
                          f"base top plus motion.base_top_margin")
    physics = r.sub("physics")
    render = r.sub("render")
    return SimConfig(
        robot=robot, world=world, approach_clearance=r.sub("approach").num("clearance"),
        approach_offset_step=r.sub("approach").num("offset_step"), placement=placement,
        motion=motion, perception=perception, time_step=physics.num("time_step"),
        gravity=physics.num("gravity", positive=False), solver_iterations=physics.integer("solver_iterations"),
        render_margin=render.num("margin"),
        light_direction=render.vec3("light_direction"))


@lru_cache(maxsize=8)
def load_sim_config(robot_path: str | Path | None = None, world_path: str | Path | None = None) -> SimConfig:
    """Load and validate both files (defaults: the package's ``config/robot.yaml`` and
    ``config/household_sim.yaml``). Cached: the result is immutable."""
    rp = Path(robot_path) if robot_path else config_dir() / "robot.yaml"
    wp = Path(world_path) if world_path else config_dir() / "household_sim.yaml"
    robot = parse_robot_config(_read_yaml(rp), str(rp))
    return parse_sim_config(robot, _read_yaml(wp), str(wp))
