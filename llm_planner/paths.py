"""Where the package's data lives: the source tree when run from a checkout (editable install),
else the ament share directory (colcon / ROS 2 install, ``share/llm_planner``); and reading a
YAML file of it."""
from __future__ import annotations

import os
from collections.abc import Mapping
from functools import lru_cache
from pathlib import Path
from typing import Any

import yaml

from llm_planner.errors import ConfigError

PACKAGE = "llm_planner"


@lru_cache(maxsize=1)
def share_dir() -> Path:
    """Directory holding ``config/``, ``launch/`` and ``package.xml``."""
    override = os.environ.get("LLM_PLANNER_SHARE")
    if override:
        return Path(override)
    source = Path(__file__).resolve().parents[1]
    if (source / "config").is_dir() and (source / "package.xml").is_file():
        return source
    try:
        from ament_index_python.packages import get_package_share_directory  # noqa: PLC0415 - ROS: the ament index only when ROS is installed

        return Path(get_package_share_directory(PACKAGE))
    except Exception:  # noqa: BLE001 - any failure means: not installed through ament
        return source


def config_dir() -> Path:
    return share_dir() / "config"


def launch_dir() -> Path:
    return share_dir() / "launch"


def read_yaml_mapping(path: str | Path, what: str) -> Mapping[str, Any]:
    """The mapping a YAML file holds (an empty file: ``{}``); ConfigError naming the file and saying
    it should hold ``what`` (e.g. "an LLM configuration")."""
    try:
        data = yaml.safe_load(Path(path).read_text()) or {}
    except (OSError, yaml.YAMLError) as exc:
        raise ConfigError(f"{path}: cannot read {what}: {exc}") from None
    if not isinstance(data, Mapping):
        raise ConfigError(f"{path}: {what} must be a mapping")
    return data
