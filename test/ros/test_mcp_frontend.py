"""The MCP server's plain parts: config/mcp.yaml is checked key by key, and describe_world gives the
names a person uses but no object's place (test/nodes/test_mcp.py drives the server itself)."""
from __future__ import annotations

import json

import pytest
import yaml

from llm_planner.errors import ConfigError, LlmPlannerError
from llm_planner.paths import config_dir
from llm_planner_ros.frontends.mcp.settings import mcp_settings
from llm_planner_ros.frontends.mcp.world import describe_world


def test_the_settings_refuse_unknown_missing_and_invalid_keys(tmp_path) -> None:
    settings = mcp_settings()
    assert settings.http_host == "127.0.0.1" and settings.elicit and settings.poll_s > 0
    shipped = yaml.safe_load((config_dir() / "mcp.yaml").read_text())
    path = tmp_path / "mcp.yaml"
    for change, message in (({"pol_s": 1.0}, r"unknown keys \['pol_s'\]"), ({"poll_s": 0}, "poll_s must be positive"),
                            ({"elicit": "yes"}, "elicit must be true or false"), ({"task_wait_s": "long"}, "long")):
        path.write_text(yaml.safe_dump({**shipped, **change}))
        with pytest.raises(ConfigError, match=message):
            mcp_settings(path)
    path.write_text(yaml.safe_dump({k: v for k, v in shipped.items() if k != "http_host"}))
    with pytest.raises(ConfigError, match=r"missing keys \['http_host'\]"):
        mcp_settings(path)


def test_describe_world_names_rooms_furniture_and_counts_but_no_places_of_objects() -> None:
    world = describe_world("household", "apartment_seen")
    assert world["furniture"]["coffee table"] == {"room": "living room", "relation": "on"}
    assert world["furniture"]["fridge"]["relation"] == "inside" and "coffee table" in world["rooms"]["living room"]
    assert world["objects"]["apple"] == 2 and world["objects"]["remote control"] == 1
    assert "kitchen counter" not in json.dumps(world["objects"])  # where the apples lie is for the robot to find
    problem = describe_world("gtamp", "P2")
    assert "salter" in problem["objects"] and problem["description"]
    with pytest.raises(LlmPlannerError, match="unknown domain 'moon'"):
        describe_world("moon", "apartment_seen")
