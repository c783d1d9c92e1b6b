"""The domains the node graph runs, by name (the ``domain`` parameter): ``get_domain("household")``
or ``get_domain("gtamp")``.

Each is a small :class:`~llm_planner.adapters.base.Domain` adapter: the composition root of one
domain, tying its worlds' model, simulator and perception (:mod:`llm_planner.domains`) to the
planners of its methods (:mod:`llm_planner.methods`), directive translation and RViz markers. A
table maps the name to its module and class, imported on first use (a node of one domain never
imports the other). Domains, methods, planners, the language-model layer and viz import no adapter
(test/test_import_graph.py); ``execution`` looks one up by name.
"""
from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

from llm_planner.errors import ConfigError

if TYPE_CHECKING:
    from llm_planner.adapters.base import Domain

#: name -> (module, class)
DOMAINS: dict[str, tuple[str, str]] = {
    "household": ("llm_planner.adapters.household", "HouseholdDomain"),
    "gtamp": ("llm_planner.adapters.gtamp", "GTampDomain"),
}


def get_domain(name: str) -> type[Domain]:
    """The adapter class of a domain; ConfigError naming the known domains."""
    if name not in DOMAINS:
        raise ConfigError(f"unknown domain '{name}' (known: {', '.join(DOMAINS)})")
    module, cls = DOMAINS[name]
    return getattr(importlib.import_module(module), cls)
