"""``llm-planner translate "DIRECTIVE"``: a directive to grounded goal tuples (LLM-MCTS seed 000,
§2.2 "Goal"), validated against the scene; ``--json`` prints the object of DESIGN.md::

    {"goal": [[REL, object, destination, count], ...], "pddl": "...", "message": "..."}
    {"error": "..."}
"""
from __future__ import annotations

import argparse
import json
from typing import TYPE_CHECKING

from llm_planner.domains.household.world.scene import load_scene
from llm_planner.domains.household.world.symbolic import Household
from llm_planner.errors import LlmPlannerError
from llm_planner.llm.config import load_llm_config, parse_dotted
from llm_planner.llm.factory import make_backend
from llm_planner.translation.translate import translate_directive

if TYPE_CHECKING:
    from llm_planner.llm.base import LanguageModel
    from llm_planner.translation.translate import TranslationResult


def add_llm_arguments(parser: argparse.ArgumentParser) -> None:
    """Options every LLM command shares: backend, configuration file, overrides."""
    parser.add_argument("--backend", choices=("offline", "openai"), default=None,
                        help="language-model backend (default: 'backend' of config/llm.yaml, offline)")
    parser.add_argument("--llm-config", metavar="FILE", default=None,
                        help="YAML file overriding config/llm.yaml (same keys)")
    parser.add_argument("--set", metavar="KEY=VALUE", action="append", default=[],
                        help="override one configuration key, e.g. --set openai.model=gpt-4o-mini (repeatable)")


def make_backend_from_args(args: argparse.Namespace) -> LanguageModel:
    config = load_llm_config(args.llm_config, parse_dotted(args.set))
    return make_backend(config, backend=args.backend)


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("translate", help="translate a directive into grounded goal tuples",
                            description="Translate a household directive into goal tuples "
                            "(REL, object, destination, count) that name only the scene's objects and "
                            "furniture, checked against the scene.")
    parser.add_argument("directive", help='e.g. "put two apples in the fridge and the plate on the kitchen table"')
    parser.add_argument("--scene", default="apartment_seen", help="scene name or YAML path (default apartment_seen)")
    parser.add_argument("--json", action="store_true", help="print one JSON object (goal, pddl, message or error)")
    add_llm_arguments(parser)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    try:
        result = _translate(args)
    except LlmPlannerError as exc:
        if args.json:
            print(json.dumps({"error": str(exc)}))
            return 1
        raise
    if args.json:
        print(json.dumps(result.to_json()))
        return 0
    print(result.message)
    for rel, obj, dest, count in (row for row in result.to_json()["goal"]):
        print(f"  ({rel.upper()}, {obj}, {dest}, {count})")
    print(f"PDDL goal: {result.pddl}")
    return 0


def _translate(args: argparse.Namespace) -> TranslationResult:
    household = Household(load_scene(args.scene))
    return translate_directive(args.directive, household, make_backend_from_args(args))
