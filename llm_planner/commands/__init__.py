"""The sub-commands of ``llm-planner``, one module each with ``register(subparsers)``."""
from __future__ import annotations

import argparse
import importlib


def register_modules(sub: argparse._SubParsersAction, package: str, names: tuple[str, ...]) -> None:
    """Import ``package.<name>`` for each name and let it ``register(sub)``."""
    for name in names:
        importlib.import_module(f"{package}.{name}").register(sub)
