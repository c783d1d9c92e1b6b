"""``llm-planner build-prior``: the commonsense prior belief of LLM-MCTS (seed 000, §2.2, App. C.2),
M answers per object type, written to a JSON file the planners reuse.

``--evaluate N`` also measures it: over N placements sampled from the scene (evaluation reads the
scene's hidden distribution; the prior never does), how often an object's true place is the
prior's first choice and among its top three.
"""
from __future__ import annotations

import argparse
import time

from llm_planner.commands.translate import add_llm_arguments, make_backend_from_args
from llm_planner.domains.household.language.text import WorldInfo
from llm_planner.domains.household.world.scene import load_scene
from llm_planner.errors import ConfigError
from llm_planner_eval.bench.report import format_table


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("build-prior", help="build the LLM-MCTS prior belief over object positions",
                            description="Ask the language model M times where each object type of the scene "
                            "usually is, and save the normalised belief (unsampled places 1e-3) as JSON.")
    parser.add_argument("--scene", default="apartment_seen", help="scene name or YAML path (default apartment_seen)")
    where = parser.add_mutually_exclusive_group(required=True)
    where.add_argument("--out", help="output JSON file")
    where.add_argument("--cache", action="store_true",
                       help="keep it where the planners look for it (the LLM cache directory, keyed by scene, "
                       "backend, model and settings): a graph or benchmark asking this model then starts without "
                       "building it; one already there is reused")
    parser.add_argument("--samples", type=int, default=None, metavar="M",
                        help="answers per object type (default world_model.samples of config/llm.yaml, 5)")
    parser.add_argument("--evaluate", type=int, default=0, metavar="N",
                        help="report top-1/top-3 rates of the true places over N sampled placements")
    add_llm_arguments(parser)
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from llm_planner.methods.llm_mcts.prior import build_prior, cached_prior, scene_content_hash
    from llm_planner_eval.bench.priors import evaluate_prior

    if args.samples is not None and args.samples < 1:
        raise ConfigError(f"--samples must be at least 1, got {args.samples}")
    scene = load_scene(args.scene)
    backend = make_backend_from_args(args)
    started = time.perf_counter()
    if args.cache:
        if args.samples is not None:
            raise ConfigError("--cache keeps the prior the planners build, with world_model.samples of the LLM "
                              "configuration: give --set world_model.samples=M instead of --samples")
        built = cached_prior(backend, WorldInfo.from_scene(scene), scene.name, scene_content_hash(scene))
        prior, path = built.prior, built.path
        print(built.describe(scene.name))
    else:
        prior = build_prior(backend, WorldInfo.from_scene(scene), scene=scene.name, m=args.samples)
        path = prior.save(args.out)
    seconds = time.perf_counter() - started
    rows = [[t, ", ".join(f"{p} {v:.2f}" for p, v in prior.top(t, 3))] for t in prior.probs]
    print(format_table(["object type", "top-3 places (probability)"], rows,
                       title=f"prior belief, scene {scene.name}, backend {backend.name} ({backend.model}), "
                       f"M={prior.samples}, floor {prior.floor:g}"))
    usage = backend.usage
    print(f"{len(prior.probs)} object types, {len(prior.places)} containers and surfaces; {seconds:.1f} s, "
          f"{usage.requests} LLM requests ({usage.cache_hits} cached answers)")
    if args.evaluate > 0:
        ev = evaluate_prior(prior, scene, range(args.evaluate))
        print(f"evaluation over {args.evaluate} sampled placements ({ev.objects} objects): true place is the "
              f"top-1 place {100 * ev.top1:.1f}%, among the top-3 {100 * ev.top3:.1f}%, "
              f"mean probability of the true place {ev.mean_true_probability:.2f}")
    print(f"wrote {path}")
    return 0
