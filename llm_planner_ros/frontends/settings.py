"""The front ends' settings: the ``web`` and ``voice`` sections of ``config/frontends.yaml``."""
from __future__ import annotations

from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any, TypeVar

from llm_planner.errors import ConfigError
from llm_planner.paths import config_dir, read_yaml_mapping

T = TypeVar("T")


@dataclass(frozen=True)
class WebSettings:
    """``llm-planner web``: how much it keeps for late browsers and how long it waits (seconds)."""

    history_events: int
    recent_tasks: int
    heartbeat_s: float
    command_wait_s: float
    render_view: str
    render_wait_s: float
    spin_s: float
    shutdown_s: float
    max_body_bytes: int
    token_env: str
    allowed_hosts: tuple[str, ...]


@dataclass(frozen=True)
class VoiceSettings:
    """``llm-planner voice``: the confidence floor, the audio rate, the waits (seconds), the robot's voice."""

    confidence_floor: float
    confirm_below: float
    sample_rate_hz: int
    task_wait_s: float
    start_wait_s: float
    microphone_utterance_s: float
    voice: str
    words_per_minute: int


def _section(cls: type[T], data: Any, where: str) -> T:
    """``cls`` built from the mapping ``data``; ConfigError naming ``where`` and any unknown, missing
    or ill-typed key. Numbers must be positive, except the two confidence levels; a list holds text."""
    if not isinstance(data, dict):
        raise ConfigError(f"{where} must be a mapping of settings")
    known = {f.name: f for f in fields(cls)}  # type: ignore[arg-type]
    unknown, missing = sorted(set(data) - set(known)), sorted(set(known) - set(data))
    if unknown or missing:
        raise ConfigError(f"{where}: unknown keys {unknown}, missing keys {missing} (known: {', '.join(known)})")
    values: dict[str, Any] = {}
    for name, f in known.items():
        value = data[name]
        if str(f.type) == "tuple[str, ...]":
            if not isinstance(value, list) or not all(isinstance(v, str) and v.strip() for v in value):
                raise ConfigError(f"{where}: {name} = {value!r} must be a list of names, e.g. [robot.local]")
            values[name] = tuple(value)
            continue
        kind = {"int": int, "float": float, "str": str}[str(f.type)]
        if isinstance(value, bool) or not isinstance(value, (int, float) if kind is not str else str):
            raise ConfigError(f"{where}: {name} = {value!r} must be a {'text' if kind is str else 'number'}")
        if not isinstance(value, str) and value <= 0 and name not in ("confidence_floor", "confirm_below"):
            raise ConfigError(f"{where}: {name} = {value!r} must be > 0")
        values[name] = kind(value)
    return cls(**values)


def load_settings(path: Path | None = None) -> tuple[WebSettings, VoiceSettings]:
    """``config/frontends.yaml`` (or ``path``): its two sections, checked."""
    path = path or config_dir() / "frontends.yaml"
    data = read_yaml_mapping(path, "the front ends' settings (sections web and voice)")
    web = _section(WebSettings, data.get("web"), f"{path}: web")
    if web.render_view not in ("top", "perspective"):
        raise ConfigError(f"{path}: web: render_view = {web.render_view!r} must be top or perspective")
    return web, _section(VoiceSettings, data.get("voice"), f"{path}: voice")
