"""The worlds the node graph runs, by name: ``get_domain("household")`` or ``get_domain("gtamp")``.

Each is a small :class:`~llm_planner.domains.base.Domain` adapter; a table maps the name to its
module and class, imported on first use (a node of one world never imports the other).
"""
from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

from llm_planner.errors import ConfigError

if TYPE_CHECKING:
    from llm_planner.domains.base import Domain

#: name -> (module, class)
DOMAINS: dict[str, tuple[str, str]] = {
    "household": ("llm_planner.domains.household.adapter", "HouseholdDomain"),
    "gtamp": ("llm_planner.domains.gtamp.adapter", "GTampDomain"),
}


def get_domain(name: str) -> "type[Domain]":
    """The adapter class of a domain; ConfigError naming the known domains."""
    if name not in DOMAINS:
        raise ConfigError(f"unknown domain '{name}' (known: {', '.join(DOMAINS)})")
    module, cls = DOMAINS[name]
    return getattr(importlib.import_module(module), cls)
