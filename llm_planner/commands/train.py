"""``llm-planner train saycanpay``: learn SayCanPay's Can and Pay models (seed 004, §6) from
expert trajectories of the household domain, on the CPU, and save them where the planner
``saycanpay`` and ``llm-planner bench saycanpay`` look for them."""
from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from llm_planner.domains.household.world.scene import load_scene
from llm_planner.domains.household.world.symbolic import Household
from llm_planner.llm.factory import make_backend

if TYPE_CHECKING:
    from llm_planner.methods.saycanpay.formats import Example


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("train", help="train a method's learned models (saycanpay: Can and Pay, seed 004 §6)")
    train_sub = parser.add_subparsers(dest="model", metavar="MODEL")
    p = train_sub.add_parser("saycanpay",
                             help="Can (InfoNCE) and Pay (discounted-reward MSE) on Sentence-BERT features",
                             description=__doc__)
    p.add_argument("--trajectories", type=int, default=None, help="N expert trajectories (default: config, 800)")
    p.add_argument("--epochs", type=int, default=None, help="training epochs (default: config, 20)")
    p.add_argument("--seed", type=int, default=None, help="task seed of the expert trajectories")
    p.add_argument("--out", default=None, metavar="DIR", help="model directory (default: <LLM cache>/saycanpay)")
    p.add_argument("--config", default=None, metavar="FILE", help="a saycanpay YAML overriding config/saycanpay.yaml")
    p.add_argument("--show-examples", type=int, default=0, metavar="K",
                   help="print K Can/Pay inputs in the seed's format")
    p.add_argument("--quiet", action="store_true", help="print only the summary")
    p.set_defaults(func=run_saycanpay)
    parser.set_defaults(func=lambda args: parser.print_help() or 2)


def run_saycanpay(args: argparse.Namespace) -> int:
    from llm_planner.methods.saycanpay.config import apply, load_config, model_dir
    from llm_planner.methods.saycanpay.formats import model_input
    from llm_planner.methods.saycanpay.training import train_models

    overrides: dict = {"training": {}}
    for key, value in (("trajectories", args.trajectories), ("epochs", args.epochs), ("seed", args.seed),
                       ("model_dir", args.out)):
        if value is not None:
            overrides["training"][key] = value
    config = apply(load_config(args.config), overrides)
    started = time.perf_counter()
    embedder = make_backend(backend="offline").resources.embedder
    log = None if args.quiet else (lambda message: print(f"[{time.perf_counter() - started:6.1f} s] {message}",
                                                         flush=True))
    if args.show_examples:
        _show(config, args.show_examples, model_input)
    models, metrics = train_models(config, embedder, progress=log)
    where = models.save(model_dir(config))
    print(f"SayCanPay Can/Pay models saved to {where} ({time.perf_counter() - started:.1f} s in all)")
    print("validation (trajectories held out): " + ", ".join(
        f"{k}={v:.3f}" if isinstance(v, float) else f"{k}={v}" for k, v in metrics.items()))
    return 0


def _show(config: dict, k: int, model_input: Callable[[Example], str]) -> None:
    """A few training inputs in the seed's text format, with their Can/Pay targets."""
    from llm_planner.domains.household.world.expert import build_dataset
    from llm_planner.methods.saycanpay.training import training_examples

    opts = config["training"]
    trajectories = build_dataset(str(opts["scene"]), 4, int(opts["seed"]), tuple(opts["suites"]),
                                 workers=1).trajectories
    data = training_examples(trajectories, {opts["scene"]: Household(load_scene(opts["scene"]))},
                             float(opts["discount"]))
    for group in data.can_groups[:k]:
        for example, label in zip(group, ("1.0 // feasible (positive)", "0.0 // same trajectory, other step",
                                          "0.0 // other trajectory"), strict=False):
            print(f"Input {model_input(example)}\nOutput {label}\n")
