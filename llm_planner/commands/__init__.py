"""The core's sub-commands of ``llm-planner`` (translate, scene, train), one module each with
``register(subparsers)``; :func:`register_modules` registers any package's."""
from __future__ import annotations

import argparse
import importlib


def register_modules(sub: argparse._SubParsersAction, modules: tuple[str, ...]) -> None:
    """Import each module (a dotted name) and let it ``register(sub)``."""
    for name in modules:
        importlib.import_module(name).register(sub)
