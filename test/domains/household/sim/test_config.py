"""Simulator configuration: loads, and bad values fail naming the file and the key."""
from __future__ import annotations

import pytest
import yaml

from llm_planner.errors import ConfigError
from llm_planner.paths import config_dir
from llm_planner.domains.household.sim.config import load_sim_config


def test_shipped_configuration_loads():
    cfg = load_sim_config()
    assert cfg.robot.arm.max_length > cfg.robot.arm.retracted_length > 0
    assert cfg.robot.lift.min >= cfg.robot.base.top


def _write(tmp_path, name: str, change) -> str:
    data = yaml.safe_load((config_dir() / name).read_text())
    change(data)
    path = tmp_path / name
    path.write_text(yaml.safe_dump(data))
    return str(path)


@pytest.mark.parametrize("change, message", [
    (lambda d: d["base"].update(size=[0.5, -1, 0.03]), r"robot.yaml.base.size: every size must be positive"),
    (lambda d: d["lift"].pop("max"), r"robot.yaml.lift: missing key 'max'"),
    (lambda d: d["lift"].update(min=0.01), r"robot.yaml.lift.min: the arm passes over the base"),
    (lambda d: d["arm"].update(stages="four"), r"robot.yaml.arm.stages: expected a positive integer"),
    (lambda d: d["arm"].update(retracted_length=0.5), r"robot.yaml.arm.retracted_length: the retracted gripper"),
])
def test_bad_robot_values_name_file_and_key(tmp_path, change, message):
    with pytest.raises(ConfigError, match=message):
        load_sim_config(_write(tmp_path, "robot.yaml", change), None)


@pytest.mark.parametrize("change, message", [
    (lambda d: d["world"].update(wall_height="high"), r"household_sim.yaml.world.wall_height: expected a number"),
    (lambda d: d["perception"].update(near_tolerance=0), r"perception.near_tolerance: must be positive"),
    (lambda d: d["world"].update(door_open_fraction=1.5), r"world.door_open_fraction: must be below 1"),
    (lambda d: d["world"].update(container_plinth=0.001), r"world.container_plinth: a container's lowest level"),
])
def test_bad_world_values_name_file_and_key(tmp_path, change, message):
    with pytest.raises(ConfigError, match=message):
        load_sim_config(None, _write(tmp_path, "household_sim.yaml", change))


def test_missing_file_is_named(tmp_path):
    with pytest.raises(ConfigError, match="no such configuration file"):
        load_sim_config(str(tmp_path / "nope.yaml"), None)
