"""``llm-planner bench saycanpay``: SayCanPay (seed 004) Tables 3-5 on the household domain.

Methods: Greedy-Action and Beam-Action decoding (k = 3, m = 6) with the Say, SayCan and SayCanPay
scores (learned Can), plus the oracle variants that replace the learned Can by the exact
precondition check (``+oracle_can``), and the Greedy-Token baseline (``greedy_token``) where the
backend offers token log-probabilities (the header says whether it ran). Decoders (``--decoders``):
``paper`` (the default: the seed's offline planning from o_0 alone, a plan ends when "done task" is
chosen) and ``oracle`` (methods suffixed ``@oracle``: beams stepped with the true transition model,
Say shown each step's observation, ended at the true goal test; the planner ``saycanpay_oracle``).
Every plan is executed in the symbolic world by the closed loop (``run_episode``); the step limit
is the plan horizon. Splits (``config/saycanpay.yaml``, ``benchmark``): ``test`` (the training suites in
the seen apartment, other task seeds), and the test-generalize splits ``novel`` (novel suites, seen
apartment) and ``unseen`` (the unseen apartment).

Measures: planning success (the goal holds after the plan, Table 3), cost-effectiveness (success
with exactly the expert's plan length, Table 4; the expert is ``llm_planner.domains.household.world.expert``),
generalization (success on the test-generalize splits, Table 5) and the relative length
expert / generated (0 for failures, Figure 4).

**Model quality** (``--error-rates 0,0.2,0.4,0.6``): the seed's claim is that Can and Pay
correct Say (Say < SayCan <= SayCanPay; Greedy-Action < Beam-Action). For each rate a served model
answering wrongly at that rate is started (``llm-planner serve --error-rate P``; a wrong Say sample
is an unhelpful action, a skipped precondition, a back-and-forth step or an absent object:
``llm_planner_eval/stand_in/wrong_answers.py``) and Say is asked of it over HTTP (``openai`` backend) by every
method, side by side (the paper decoder asks it in the plan form, goal, o_0 and the planned actions,
``domains/household/language/prompts/plan.txt``; the oracle decoder in the policy form, the
observation after each step);
the table and one PNG (``FILE.error_rates.png`` next to ``--json FILE``) show
planning success per split and cost-effectiveness on test against the rate, with the seed's
VirtualHome figures (Vicuna, Tables 3 and 4) dotted. The rows carry ``error_rate`` (also with
``--serve-error-rate P``, one served model)::

    llm-planner bench saycanpay --error-rates 0,0.2,0.4,0.6 --splits test --n 8 --methods \\
        greedy_action:say,greedy_action:saycan,greedy_action:saycanpay,beam_action:say,beam_action:saycan,beam_action:saycanpay
"""
from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypedDict

from llm_planner.adapters.household import HouseholdDomain
from llm_planner.domains.household.world.episode import SymbolicWorld, Task
from llm_planner.domains.household.world.symbolic import goal_to_lists, household_of
from llm_planner.domains.household.world.tasks import generate_tasks
from llm_planner.errors import ConfigError
from llm_planner.execution import run_episode
from llm_planner.llm.config import load_llm_config
from llm_planner.llm.factory import make_backend
from llm_planner_eval.bench import error_rates as quality
from llm_planner_eval.bench.engine import add_engine_arguments, bench_engine
from llm_planner_eval.bench.report import BenchReport, format_table, mean_stderr, parallel_records
from llm_planner_eval.bench.serving import stops_served_models

if TYPE_CHECKING:
    from llm_planner.domains.household.world.tasks import HouseholdTask

STRATEGIES = ("greedy_action", "beam_action")
SCORES = ("say", "saycan", "saycanpay")
ORACLE = "+oracle_can"
ORACLE_DECODER = "@oracle"
GREEDY_TOKEN = "greedy_token"
DECODERS = ("paper", "oracle")
METHODS = tuple(f"{s}:{c}" for s in STRATEGIES for c in SCORES) + tuple(
    f"{s}:{c}{ORACLE}" for s in STRATEGIES for c in ("saycan", "saycanpay"))


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("saycanpay", help="SayCanPay Tables 3-5: success, cost-effectiveness, generalization",
                       description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--backend", default=None, help="LLM backend of Say: offline (default) or openai")
    p.add_argument("--methods", default=None,
                   help="comma-separated STRATEGY:SCORE[+oracle_can][@oracle] or greedy_token (default: every "
                        "STRATEGY:SCORE, and greedy_token where the backend offers token log-probabilities)")
    p.add_argument("--decoders", default="paper", help="paper (default: the seed's decoder), oracle, or both "
                                                       "(paper,oracle): each method runs with each decoder")
    p.add_argument("--splits", default="test,novel,unseen", help="test, novel, unseen (default all)")
    p.add_argument("--n", type=int, default=None, help="tasks per split (default: config/saycanpay.yaml)")
    p.add_argument("--models", default=None, metavar="DIR",
                   help="trained Can/Pay models (default: the training output)")
    p.add_argument("--say-input", default=None, choices=("observations", "full"),
                   help="what the offline Say reads besides the plan so far (default: config)")
    p.add_argument("--config", default=None, metavar="FILE", help="a saycanpay YAML overriding config/saycanpay.yaml")
    p.add_argument("--workers", type=int, default=2, help="parallel processes (default 2)")
    p.add_argument("--json", default=None, metavar="FILE", help="write rows and per-episode records (DESIGN.md format)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    add_engine_arguments(p)  # --ray [ADDRESS], --llm-max-in-flight N: episodes as Ray tasks (bench/engine.py)
    quality.add_error_rate_arguments(p, "saycanpay")  # --serve-style ..., --error-rates (bench/error_rates.py)
    p.set_defaults(func=run)


class MethodParams(TypedDict):
    """The SayCanPay planner parameters a benchmark method name stands for."""

    strategy: str
    score: str
    can: str
    variant: str


def parse_method(name: str) -> MethodParams:
    """``STRATEGY:SCORE[+oracle_can][@oracle]`` or ``greedy_token[@oracle]`` as planner parameters."""

    variant = "oracle" if name.endswith(ORACLE_DECODER) else "paper"
    base = name.removesuffix(ORACLE_DECODER)
    if base == GREEDY_TOKEN:
        return {"strategy": GREEDY_TOKEN, "score": "say", "can": "learned", "variant": variant}
    strategy, _, score = base.partition(":")
    can = "oracle" if score.endswith(ORACLE) else "learned"
    score = score.removesuffix(ORACLE)
    if strategy not in STRATEGIES or score not in SCORES:
        raise ConfigError(f"unknown method '{name}' (methods: {', '.join(METHODS)}, {GREEDY_TOKEN}; "
                          f"suffix {ORACLE_DECODER} for the oracle decoder)")
    return {"strategy": strategy, "score": score, "can": can, "variant": variant}


def needs_models(parsed: MethodParams) -> bool:
    return parsed["score"] == "saycanpay" or (parsed["score"] == "saycan" and parsed["can"] == "learned")


# ----------------------------------------------------------------------------- workers
_WORKER: dict[str, Any] = {}


def _init_worker(backend: str | None, config: dict[str, Any], models_dir: str | None, need_models: bool,
                 done_step: bool = False, served: dict[float | None, dict[str, Any]] | None = None) -> None:
    """A worker's Say backends: the run's backend, or one ``openai`` backend per served model
    (``served``: the LLM overrides by error rate; they share the run's sentence embedder)."""
    from llm_planner.methods.saycanpay.config import model_dir
    from llm_planner.methods.saycanpay.planner import load_models

    own = make_backend(backend=backend or None)
    backends = {key: make_backend(overrides, backend="openai", embedder=own.resources.embedder)
                for key, overrides in (served or {}).items()}
    _WORKER.update(backends=backends or {None: own}, config=config)

    _WORKER["models"] = load_models(Path(models_dir) if models_dir else model_dir(config),
                                    done_step=done_step) if need_models else None


def _run_job(job: tuple) -> dict[str, Any]:
    """One plan, executed: ``(split, task, method)``, against a served model ``(..., its key, its
    error rate)``."""
    from llm_planner.domains.household.world.expert import expert_plan
    from llm_planner.methods.saycanpay.planner import SayCanPayPlanner

    split, task, method = job[:3]
    key, rate = job[3:] if len(job) > 3 else (None, None)
    household = household_of(task.scene)
    state = household.sample_initial_state(task.placement_seed)
    config = _WORKER["config"]
    planner = SayCanPayPlanner(backend=_WORKER["backends"][key], config=config, models=_WORKER["models"],
                               **parse_method(method))
    episode = Task(task.instruction, task.goal, household, max_steps=int(config["decoding"]["max_steps"]))
    started = time.perf_counter()
    result = run_episode(HouseholdDomain, planner, episode, SymbolicWorld(household, state))
    expert = len(expert_plan(household, state, task.goal))
    steps = len(result.steps)
    parsed = parse_method(method)
    decoder = planner.decoder
    grid = {} if len(job) <= 3 else {"method_base": method, "error_rate": rate}
    return {"method": quality.grid_label(method, key), **grid, "decoder": parsed["variant"],
            "strategy": parsed["strategy"],
            "say_probabilities": getattr(decoder, "say_source", "samples"), "split": split, "task_id": task.task_id,
            "suite": task.suite, "scene": task.scene,
            "instruction": task.instruction, "goal": goal_to_lists(task.goal), "success": result.success,
            "steps": steps, "expert_length": expert, "cost_effective": result.success and steps == expert,
            "relative_length": expert / steps if result.success and steps else (1.0 if result.success else 0.0),
            "failed_steps": sum(1 for s in result.steps if not s.success), "message": result.message,
            "plan": result.plan, "planning_time_s": round(planner.stats.planning_time_s, 3),
            "llm_requests": planner.stats.llm_requests, "seconds": round(time.perf_counter() - started, 3)}


# ------------------------------------------------------------------------ aggregation
def tasks_of(config: dict[str, Any], split: str, n: int | None) -> list[HouseholdTask]:
    spec = config["benchmark"][split]
    total = int(n if n is not None else spec["n"])
    suites = list(spec["suites"])
    per = [total // len(suites) + (1 if i < total % len(suites) else 0) for i in range(len(suites))]
    return [t for suite, k in zip(suites, per, strict=True)
            for t in generate_tasks(str(spec["scene"]), suite, k, int(spec["seed"]))]


def summarize(records: Sequence[dict], backend: str, config: dict, methods: Sequence[str], splits: Sequence[str],
              extra: dict) -> BenchReport:
    report = BenchReport("saycanpay", backend, {**extra, "decoding": config["decoding"],
                                                "benchmark": {s: config["benchmark"][s] for s in splits}})
    for method in methods:
        for split in splits:
            rs = [r for r in records if r["method"] == method and r["split"] == split]
            if not rs:
                continue
            success, err = mean_stderr([float(r["success"]) for r in rs])
            cost, cost_err = mean_stderr([float(r["cost_effective"]) for r in rs])
            rel, _ = mean_stderr([r["relative_length"] for r in rs])
            grid = {k: rs[0][k] for k in ("method_base", "error_rate") if k in rs[0]}
            report.add_row(method, split, len(rs), success, err, **grid, cost_effectiveness=cost,
                           cost_effectiveness_stderr=cost_err,
                           relative_length=rel, planning_time_s=sum(r["planning_time_s"] for r in rs) / len(rs),
                           llm_requests_per_plan=sum(r["llm_requests"] for r in rs) / len(rs))
    report.episodes = list(records)
    return report


def _table(report: BenchReport, splits: Sequence[str], figure: str, err: str | None, title: str,
           scale: float = 100.0, digits: int = 0) -> str:
    """Methods as rows (decoder, decoding strategy, score, Can), splits as columns (percentages by default)."""
    grid = any("error_rate" in r for r in report.rows)
    header = ["decoder", "strategy", "score", "can"] + (["P"] if grid else []) + list(splits)
    body = []
    for method in dict.fromkeys(r["method"] for r in report.rows):
        first = next(r for r in report.rows if r["method"] == method)
        p = parse_method(first.get("method_base", method))
        cells = []
        for split in splits:
            row = next((r for r in report.rows if r["method"] == method and r["split"] == split), None)
            if row is None:
                cells.append("-")
            else:
                cells.append(f"{scale * row[figure]:.{digits}f}" + (f" ± {scale * row[err]:.{digits}f}" if err else ""))
        token = p["strategy"] == GREEDY_TOKEN
        rate = [f"{first['error_rate']:g}"] if grid else []
        body.append([p["variant"], p["strategy"], "-" if token else p["score"],
                     p["can"] if p["score"] != "say" else "-", *rate] + cells)
    return format_table(header, body, title=title)


def print_tables(report: BenchReport, splits: Sequence[str]) -> None:
    cfg = report.config
    methods = max(1, len({e["method"] for e in report.episodes}))
    sizes = ", ".join(f"{s} n={sum(1 for e in report.episodes if e['split'] == s) // methods} "
                      f"({cfg['benchmark'][s]['scene']}: {'/'.join(cfg['benchmark'][s]['suites'])})" for s in splits)
    print(f"saycanpay | Say backend: {report.backend} (Say input: {cfg['say_input']}) | {sizes} | "
          f"k={cfg['decoding']['beam_size']} m={cfg['decoding']['candidates']} | models: {cfg['models']} | "
          f"wall time {cfg['wall_time_s']} s")
    print(f"decoders: {', '.join(cfg['decoders'])} (paper: plan from o_0 alone, ended by 'done task'; oracle: beams "
          f"stepped with the true transition model, ended at the true goal test) | Say probabilities: "
          f"{cfg['say_probabilities']} | Greedy-Token: {cfg['greedy_token']}")
    test = [s for s in splits if s == "test"]
    general = [s for s in splits if s != "test"]
    if test:
        print()
        print(_table(report, test, "success_rate", "stderr", "Table 3: planning success % (test)"))
        print()
        print(_table(report, test, "cost_effectiveness", "cost_effectiveness_stderr",
                     "Table 4: cost-effectiveness % (success with the expert's plan length; test)"))
    if general:
        print()
        print(_table(report, general, "success_rate", "stderr", "Table 5: generalization, planning success % "
                                                                "(novel: novel suites; unseen: unseen apartment)"))
    print()
    print(_table(report, splits, "relative_length", None,
                 "Figure 4: relative length expert/generated x100 (0 = failed)"))
    print()
    print(_table(report, splits, "planning_time_s", None, "planning seconds per plan", scale=1.0, digits=2))


# ---------------------------------------------------------------------------- training
def train_on_first_use(config: dict[str, Any], directory: Path, progress: bool = True) -> None:
    """Train the Can and Pay models (seed 004, §6) with ``config["training"]`` and save them in
    ``directory``, with progress bars: what ``llm-planner train saycanpay`` does, done on first use."""

    from tqdm import tqdm

    from llm_planner.domains.household.world.expert import build_dataset
    from llm_planner.methods.saycanpay.training import train_models

    opts = config["training"]
    epochs = int(opts["epochs"])
    print(f"no trained SayCanPay Can/Pay models in {directory}: training them now, once ({opts['trajectories']} "
          f"expert trajectories of {opts['scene']}, {epochs} epochs; `llm-planner train saycanpay` does this alone)",
          flush=True)
    started = time.perf_counter()
    summary = build_dataset(str(opts["scene"]), int(opts["trajectories"]), int(opts["seed"]), tuple(opts["suites"]),
                            workers=int(opts["workers"]), progress=progress)
    bar = tqdm(total=1 + 2 * epochs, desc="Can/Pay training", unit="stage", disable=not progress, file=sys.stderr,
               dynamic_ncols=True)

    def step(message: str) -> None:
        bar.update(1)
        bar.set_postfix_str(message[:70])

    try:
        embedder = make_backend(backend="offline").resources.embedder
        models, metrics = train_models(config, embedder, trajectories=summary.trajectories, progress=step)
    finally:
        bar.close()
    where = models.save(directory)
    print(f"trained in {time.perf_counter() - started:.0f} s and saved to {where}; validation: can group accuracy "
          f"{metrics['can_group_accuracy']:.3f}, pay MSE {metrics['pay_mse']:.4f}", flush=True)


# --------------------------------------------------------------------------------- run
@stops_served_models  # --serve-*, --error-rates: the servers end with the run
def run(args: argparse.Namespace) -> int:
    from llm_planner.methods.saycanpay.config import load_config, model_dir
    from llm_planner.methods.saycanpay.decoding import token_logprobs_backend
    from llm_planner.methods.saycanpay.models import Models

    config = load_config(args.config)
    if args.say_input:
        config["decoding"]["say_input"] = args.say_input
    decoders = [d.strip() for d in args.decoders.split(",") if d.strip()]
    unknown = [d for d in decoders if d not in DECODERS]
    if unknown or not decoders:
        raise ConfigError(f"--decoders: unknown {', '.join(unknown) or 'empty list'} (choose from "
                          f"{', '.join(DECODERS)})")
    served, backend = quality.served_models(args, {}, args.backend or str(load_llm_config().backend))
    offers = token_logprobs_backend(make_backend(next(iter(served.values()), None), backend=backend))
    base = [m.strip() for m in (args.methods or ",".join(METHODS)).split(",") if m.strip()]
    if args.methods is None and offers:
        base.insert(0, GREEDY_TOKEN)
    greedy_token = "ran (token log-probabilities)" if GREEDY_TOKEN in base and offers else (
        f"not run (the {backend} backend offers no token log-probabilities)" if not offers
        else "not asked for")
    if not offers:
        base = [m for m in base if m.removesuffix(ORACLE_DECODER) != GREEDY_TOKEN]
    methods = list(dict.fromkeys(m if d == "paper" or m.endswith(ORACLE_DECODER) else m + ORACLE_DECODER
                                 for d in decoders for m in base
                                 if not (d == "oracle" and m.removesuffix(ORACLE_DECODER) == GREEDY_TOKEN)))
    parsed = [parse_method(m) for m in methods]
    splits = [s.strip() for s in args.splits.split(",") if s.strip()]
    need_models = any(needs_models(p) for p in parsed)
    done_step = any(needs_models(p) and p["variant"] == "paper" for p in parsed)
    models_dir = args.models or str(model_dir(config))
    if need_models:
        from llm_planner.methods.saycanpay.planner import load_models

        try:
            load_models(Path(models_dir), done_step=done_step)
        except ConfigError:
            if args.models:  # a directory the user named: never train into it unasked
                raise
            train_on_first_use(config, Path(models_dir), progress=not args.no_progress)
            from llm_planner.methods.saycanpay import planner as planner_module

            planner_module._MODELS.pop(str(Path(models_dir)), None)  # the new models, not the refused ones
            load_models(Path(models_dir), done_step=done_step)
    started = time.perf_counter()
    jobs: list[tuple] = [(split, task, m) + ((key, quality.served_rate(args, key)) if served else ())
                         for key in (served or [None]) for split in splits for task in tasks_of(config, split, args.n)
                         for m in methods]
    if served:
        print(quality.grid_header(args, served), flush=True)
    with bench_engine(args) as engine:
        records = parallel_records(jobs, _run_job, _init_worker,
                                   (args.backend, config, models_dir, need_models, done_step, served),
                                   args.workers, "saycanpay", not args.no_progress)
    order = {quality.grid_label(m, key): i
             for i, (key, m) in enumerate((k, m) for k in (served or [None]) for m in methods)}
    records.sort(key=lambda r: (order[r["method"]], r["split"], r["task_id"]))
    sources = sorted({r["say_probabilities"] for r in records if r["strategy"] != GREEDY_TOKEN}) or ["samples"]
    models_used = f"{models_dir} (sha256 {Models.digest(models_dir)})" if need_models else "none"
    extra = {"say_input": config["decoding"]["say_input"], "models": models_used,
             "decoders": decoders, "say_probabilities": "/".join(sources), "greedy_token": greedy_token,
             "n": args.n, "wall_time_s": round(time.perf_counter() - started, 1)}
    extra.update(error_rates=[quality.served_rate(args, k) for k in served],
                 error_seed=args.serve_error_seed if served else None,
                 error_profile=quality.error_profile(args) if served else None)
    report = summarize(records, backend, config, list(order), splits, extra)
    report.config["engine"] = engine.summary() if engine else {"engine": "processes", "workers": args.workers}
    print_tables(report, splits)
    if engine:
        print(engine.header())
    if args.error_rates:
        curves = error_rate_curves(report, splits)
        print("\n" + error_rate_table(report, curves))
        print(f"drew {plot_error_rate_curves(report, curves, quality.png_path(args.json, 'saycanpay'))}")
    if args.json:
        print(f"\nwrote {report.write_json(args.json)}")
    return 0


# --------------------------------------------------------------------------- model quality (--error-rates)
#: The panel of cost-effectiveness on the test split (Table 4); the other panels are the splits' success.
COST_PANEL = "test cost-effective"
SEED_FIGURES = "SayCanPay VirtualHome with Vicuna, Tables 3 (success) and 4 (cost-effectiveness), 100 plans"


def error_rate_curves(report: BenchReport, splits: Sequence[str]) -> quality.Curves:
    """Planning success per split and, with the test split, its cost-effectiveness, per method."""
    curves = quality.Curves.from_rows(report.rows)
    if "test" in splits:
        for row in report.rows:
            if row["split"] == "test" and row.get("error_rate") is not None and "method_base" in row:
                curves.add(row["method_base"], COST_PANEL, row["error_rate"], row["cost_effectiveness"],
                           row["cost_effectiveness_stderr"])
    return curves


def _marks(curves: quality.Curves) -> dict[tuple[str, str], float]:
    """The seed's figures per curve and panel; a method of the oracle decoder (``...@oracle``) takes
    its method's (the seed has one decoder: the paper's)."""
    marks = quality.seed_levels("saycanpay")
    return {(method, panel): marks[(method.removesuffix(ORACLE_DECODER), panel)]
            for method, panels in curves.points.items() for panel in panels
            if (method.removesuffix(ORACLE_DECODER), panel) in marks}


def _sizes(report: BenchReport) -> str:
    cfg = report.config
    methods = max(1, len({e["method"] for e in report.episodes}))
    splits = dict.fromkeys(e["split"] for e in report.episodes)
    return ", ".join(f"{s} n={sum(1 for e in report.episodes if e['split'] == s) // methods}" for s in splits) + (
        f"; decoders {'/'.join(cfg.get('decoders', []))}; error seed {cfg.get('error_seed')}; "
        f"wall {cfg.get('wall_time_s')} s")


def error_rate_table(report: BenchReport, curves: quality.Curves) -> str:

    title = (f"Success (%) against the served model's share of wrong answers (llm-planner serve --error-rate P; "
             f"{_sizes(report)}); seed: {SEED_FIGURES}")
    return quality.format_error_rate_table(curves, curves.rates, _marks(curves), title,
                                           "seed (Vicuna)", "split")


def plot_error_rate_curves(report: BenchReport, curves: quality.Curves, path: str) -> Any:

    return quality.plot_error_rates(curves, curves.panels, _marks(curves), path,
                            "saycanpay: success against the served model's error rate (llm-planner serve --error-rate)",
                            f"{_sizes(report)}; dotted: the seed's VirtualHome figure with Vicuna (its error rate "
                            "unknown)", panel_titles={COST_PANEL: "cost-effectiveness (test)",
                                                      **{s: f"success ({s})" for s in curves.panels
                                                         if s != COST_PANEL}})
