"""``config/mcp.yaml``: how the MCP server's tools wait on the node graph."""
from __future__ import annotations

from dataclasses import dataclass, fields
from pathlib import Path

from llm_planner.errors import ConfigError
from llm_planner.paths import config_dir, read_yaml_mapping


@dataclass(frozen=True)
class McpSettings:
    """The keys of ``config/mcp.yaml`` (seconds where a name ends in ``_s``)."""

    poll_s: float
    task_wait_s: float
    elicit: bool
    elicit_wait_s: float
    status_tasks: int
    snapshot_scale: float
    http_host: str
    allowed_hosts: tuple[str, ...]
    token_env: str
    max_body_bytes: int


def mcp_settings(path: Path | None = None) -> McpSettings:
    """``config/mcp.yaml`` (or ``path``); ConfigError naming a missing, unknown or invalid key."""
    path = path or config_dir() / "mcp.yaml"
    data = dict(read_yaml_mapping(path, "the MCP server settings"))
    known = [f.name for f in fields(McpSettings)]
    unknown, missing = sorted(set(data) - set(known)), [k for k in known if k not in data]
    if unknown or missing:
        raise ConfigError(f"{path}: unknown keys {unknown}, missing keys {missing} (known: {', '.join(known)})")
    try:
        settings = McpSettings(float(data["poll_s"]), float(data["task_wait_s"]), _flag(data["elicit"]),
                               float(data["elicit_wait_s"]), int(data["status_tasks"]),
                               float(data["snapshot_scale"]), str(data["http_host"]), _names(data["allowed_hosts"]),
                               str(data["token_env"]), int(data["max_body_bytes"]))
    except (TypeError, ValueError) as exc:
        raise ConfigError(f"{path}: {exc}") from None
    positive = ("poll_s", "task_wait_s", "elicit_wait_s", "status_tasks", "snapshot_scale", "max_body_bytes")
    bad = [k for k in positive if getattr(settings, k) <= 0]
    if bad:
        raise ConfigError(f"{path}: {', '.join(bad)} must be positive")
    return settings


def _names(value: object) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(v, str) and v.strip() for v in value):
        raise ValueError(f"allowed_hosts must be a list of names, e.g. [robot.local], got {value!r}")
    return tuple(value)


def _flag(value: object) -> bool:
    if not isinstance(value, bool):
        raise ValueError(f"elicit must be true or false, got {value!r}")
    return value
