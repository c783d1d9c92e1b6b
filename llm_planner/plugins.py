"""The modules that register into a registry, loaded by name from configuration
(``config/methods.yaml``) and the environment (``$LLM_PLANNER_METHODS``), so that the layers they
build on (``planners``, ``llm``) name no method in code; importing a method module registers its
planners (:func:`llm_planner.planners.base.register`) and question kinds
(:func:`llm_planner.llm.questions.register`). A layer above the core loads its own groups the same
way (evaluation loads ``served_modules``).

    load_group("planner_modules", "household")   # the household domain's planners
    load_group("question_modules")               # every method's question kinds
"""
from __future__ import annotations

import importlib
import os
import threading
from functools import lru_cache
from typing import Any

from llm_planner.errors import ConfigError
from llm_planner.paths import config_dir, read_yaml_mapping

#: comma-separated modules of methods outside the package, imported with every group
EXTRA_ENV = "LLM_PLANNER_METHODS"
_LOADED: set[tuple[str, ...]] = set()
_LOCK = threading.RLock()


@lru_cache(maxsize=1)
def catalogue() -> dict[str, Any]:
    """``config/methods.yaml`` as a mapping."""
    return dict(read_yaml_mapping(config_dir() / "methods.yaml",
                                  "the method modules (planner_modules, question_modules)"))


def modules(group: str, domain: str | None = None) -> list[str]:
    """The modules of a group (``planner_modules`` of one domain, or ``question_modules``), then
    those of ``$LLM_PLANNER_METHODS``."""
    entry = catalogue().get(group)
    if entry is None:
        raise ConfigError(f"config/methods.yaml has no '{group}' list")
    if domain is not None:
        if not isinstance(entry, dict) or domain not in entry:
            known = ", ".join(entry) if isinstance(entry, dict) else "none"
            raise ConfigError(f"config/methods.yaml names no {group} for the domain '{domain}' (domains: {known})")
        entry = entry[domain]
    names = [str(m) for m in entry or ()]
    return names + extra_modules()


def domains(group: str = "planner_modules") -> list[str]:
    """The domains (household, gtamp) a per-domain group names."""
    entry = catalogue().get(group) or {}
    return list(entry) if isinstance(entry, dict) else []


def extra_modules() -> list[str]:
    """The modules named in ``$LLM_PLANNER_METHODS``."""
    return [m.strip() for m in os.environ.get(EXTRA_ENV, "").split(",") if m.strip()]


def load_group(group: str, domain: str | None = None) -> None:
    """Import the modules of a group once per process; ConfigError naming a module that does not import."""
    key = (group, domain or "", os.environ.get(EXTRA_ENV, ""))
    with _LOCK:
        if key in _LOADED:
            return
        for name in modules(group, domain):
            try:
                importlib.import_module(name)
            except ImportError as exc:
                source = f"${EXTRA_ENV}" if name in extra_modules() else "config/methods.yaml"
                raise ConfigError(f"cannot import the method module '{name}' named in {source}: {exc}; fix the name "
                                  "or put its folder on PYTHONPATH") from exc
        _LOADED.add(key)
