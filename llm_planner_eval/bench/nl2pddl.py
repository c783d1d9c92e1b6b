"""``llm-planner bench nl2pddl``: Levy & Karpas (seed 001) Tables 1, 2, 4 and 5 on the household
directive data set (``llm_planner/methods/levy_karpas/dataset.py``), for directive-only (D) and
directive + state (D+S) inputs.

Every test sample runs the whole system: Phase I (goal and template channels, ranked predictions)
and Phase II (Fast Downward consistency check, up to B tries). Consistency (Table 1) is the share
of samples with a consistent plan. Accuracy (Tables 2, 4, 5) is measured on the system's output:
the first consistent prediction, else the channels' top prediction; ``goal@1``/``plan@1`` give the
top predictions' accuracy *before* the check, to show what the check changes. Samples run in
parallel processes; identical planning problems are solved once per process.

**Model quality** (``--error-rates 0,0.2,0.4,0.6``): the seed's claim is that validation
with the planner (B tries) recovers from wrong top predictions. For each rate a served model
answering wrongly at that rate is started (``llm-planner serve --error-rate P``; a wrong answer has a
goal count off by one or a neighbouring object: ``llm_planner_eval/stand_in/levy_karpas_wrong_answers.py``) and Phase I
asks it over HTTP (``openai`` backend; the ranked predictions are the distinct answers of n samples,
most frequent first); the table and one PNG (``FILE.error_rates.png`` next to ``--json FILE``) show
goal and plan-template accuracy of the top prediction (top-1) against the system's output after
validation (B=5), per input, against the rate, with the seed's T5 figures (Tables 2 and 4) dotted on
the validated lines. The rows carry ``error_rate`` (also with ``--serve-error-rate P``)::

    llm-planner bench nl2pddl --error-rates 0,0.2,0.4,0.6 --splits test --n 20 --json runs/nl2pddl_quality.json

The served model answers Phase I with the offline channels over the household and state its
prompt describes (``llm_planner_eval/stand_in/levy_karpas_served.py``), so the grid's rate 0 is the offline
system's run. ``--serve-arg=--error-correlation=0`` draws each sample on its own: a question then
has right and wrong predictions at once, what validation is there to choose between.
"""
from __future__ import annotations

import argparse
import math
import time
from collections import Counter
from collections.abc import Sequence
from typing import Any

from llm_planner.domains.household.world.symbolic import goal_to_lists, household_of
from llm_planner.errors import ConfigError
from llm_planner.llm.config import load_llm_config
from llm_planner.llm.factory import make_backend
from llm_planner_eval.bench import error_rates as quality
from llm_planner_eval.bench.engine import add_engine_arguments, bench_engine
from llm_planner_eval.bench.report import BenchReport, format_table, mean_stderr, parallel_records
from llm_planner_eval.bench.serving import stops_served_models

INPUTS = ("directive", "directive+state")
INPUT_LABEL = {"directive": "D", "directive+state": "D+S"}


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("nl2pddl", help="Levy-Karpas Tables 1, 2, 4, 5: consistency and goal/template accuracy",
                       description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--backend", default=None, help="LLM backend: offline (default) or openai")
    p.add_argument("--splits", default="test,test_unseen",
                   help="data set splits to evaluate (default test,test_unseen)")
    p.add_argument("--n", type=int, default=None, help="samples per split (default: config/nl2pddl.yaml)")
    p.add_argument("--inputs", default=",".join(INPUTS), help="directive, directive+state or both (default both)")
    p.add_argument("--tries", type=int, default=None, help="B, predictions tried (default 5)")
    p.add_argument("--timeout", type=float, default=None, help="Fast Downward time limit per try, s")
    p.add_argument("--config", default=None, metavar="FILE", help="an nl2pddl YAML overriding config/nl2pddl.yaml")
    p.add_argument("--workers", type=int, default=2, help="parallel processes (default 2)")
    p.add_argument("--json", default=None, metavar="FILE", help="write rows and per-sample records (DESIGN.md format)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    add_engine_arguments(p)  # --ray [ADDRESS], --llm-max-in-flight N: episodes as Ray tasks (bench/engine.py)
    quality.add_error_rate_arguments(p, "nl2pddl")  # --serve-style ..., --error-rates (bench/error_rates.py)
    p.set_defaults(func=run)


def _config(args: argparse.Namespace) -> dict[str, Any]:
    from llm_planner.methods.levy_karpas.config import load_config

    config = load_config(args.config)
    if args.tries is not None:
        config["consistency"]["tries"] = int(args.tries)
    if args.timeout is not None:
        config["consistency"]["planner_timeout_s"] = float(args.timeout)
    if args.n is not None:
        for name, spec in config["dataset"]["splits"].items():
            if name != "train":
                spec["n"] = int(args.n)
    return config


# ---------------------------------------------------------------------------- workers
_WORKER: dict[str, Any] = {}


def _init_worker(backend: str | None, config: dict[str, Any],
                 served: dict[float | None, dict[str, Any]] | None = None) -> None:
    """A worker's systems: on the run's backend, or one per served model (``served``: the LLM
    overrides by error rate, ``openai`` backend) sharing the planner's memo and the embedder."""
    from llm_planner.methods.levy_karpas.consistency import memoized
    from llm_planner.methods.levy_karpas.system import LevyKarpasSystem

    solver = memoized()
    own = make_backend(backend=backend or None)
    _WORKER["systems"] = {key: LevyKarpasSystem.create(make_backend(overrides, backend="openai",
                                                                    embedder=own.resources.embedder),
                                                       config, solver=solver)
                          for key, overrides in (served or {}).items()} or {
        None: LevyKarpasSystem.create(own, config, solver=solver)}


def _run_job(job: tuple) -> dict[str, Any]:
    """One sample with one input ``(sample, input)``, against a served model ``(..., its key, its
    error rate)``: the system's output, its scores and costs."""
    from llm_planner.methods.levy_karpas.metrics import score_goal, score_template

    sample, modality = job[:2]
    key, rate = job[2:] if len(job) > 2 else (None, None)
    system = _WORKER["systems"][key]
    household = household_of(sample.scene)
    state = household.sample_initial_state(sample.placement_seed)
    started = time.perf_counter()
    result = system.run(household, state, sample.goal_directive, sample.step_directive,
                        use_state=modality == "directive+state")
    seconds = time.perf_counter() - started
    out, check = result.output, result.check
    top_goal = out.goals[0] if out.goals else ()
    top_template = out.templates[0] if out.templates else None
    goal = check.chosen.goal if check.chosen and check.chosen.goal else top_goal
    template = check.chosen.template if check.chosen and not check.chosen.template.empty else top_template
    scores = {"goal": score_goal(goal, sample.goal), "template": score_template(template, sample.template),
              "goal@1": score_goal(top_goal, sample.goal), "template@1": score_template(top_template, sample.template)}
    grid = {} if len(job) <= 2 else {"method": quality.grid_label(modality, key), "error_rate": rate}  # a served model
    return {"sample_id": sample.sample_id, "split": sample.split, "kind": sample.kind, "input": modality, **grid,
            "consistent": check.consistent, "tries": len(check.attempts), "seconds": round(seconds, 3),
            "planner_seconds": round(sum(a.seconds for a in check.attempts), 3), "message": result.message,
            "goal_directive": sample.goal_directive, "step_directive": sample.step_directive,
            "gold_goal": goal_to_lists(sample.goal), "gold_template": str(sample.template),
            "goal": goal_to_lists(goal), "template": str(template) if template is not None else "",
            "plan_length": len(check.plan or []), "llm_requests": out.requests,
            "scores": {k: {"right": v.right, "total": v.total} for k, v in scores.items()}}


# ------------------------------------------------------------------------- aggregation
def _rate(records: Sequence[dict], part: str, measure: str) -> tuple[float, float, int]:
    right = sum(r["scores"][part]["right"].get(measure, 0) for r in records)
    total = sum(r["scores"][part]["total"].get(measure, 0) for r in records)
    if not total:
        return float("nan"), float("nan"), 0
    p = right / total
    return p, math.sqrt(p * (1 - p) / total), total


def _cell(p: float) -> str:
    return "-" if math.isnan(p) else f"{p:.2f}"


def summarize(records: Sequence[dict], backend: str, config: dict, splits: Sequence[str], inputs: Sequence[str],
              wall_s: float) -> BenchReport:
    """Rows per input (and served model: ``error_rate``) and split."""
    report = BenchReport("nl2pddl", backend, {
        "tries_B": config["consistency"]["tries"], "planner_timeout_s": config["consistency"]["planner_timeout_s"],
        "splits": {s: config["dataset"]["splits"][s] for s in splits},
        "train_n": config["dataset"]["splits"]["train"]["n"],
        "wall_time_s": round(wall_s, 1)})
    rates = sorted({r.get("error_rate") for r in records}, key=lambda x: -1.0 if x is None else x)
    for modality in inputs:
        for rate in rates:
            group = [r for r in records if r["input"] == modality and r.get("error_rate") == rate]
            for split in splits:
                rs = [r for r in group if r["split"] == split]
                if rs:
                    consistency, err = mean_stderr([float(r["consistent"]) for r in rs])
                    grid = {} if rate is None else {"method_base": modality, "error_rate": rate}
                    report.add_row(rs[0].get("method", modality), split, len(rs), consistency, err, **grid,
                                   **_figures(rs))
    report.episodes = list(records)
    return report


def _figures(rs: Sequence[dict]) -> dict[str, Any]:
    """Accuracy figures of a row's samples (Tables 2, 4, 5), before and after the check."""
    from llm_planner.methods.levy_karpas.metrics import GOAL_MEASURES, TEMPLATE_MEASURES

    figures: dict[str, Any] = {}
    for m in GOAL_MEASURES:
        figures[f"goal_{m}"] = _rate(rs, "goal", m)[0]
    for m in TEMPLATE_MEASURES:
        figures[f"template_{m}"] = _rate(rs, "template", m)[0]
    figures["goal_at_1"] = _rate(rs, "goal@1", "goal")[0]
    figures["plan_at_1"] = _rate(rs, "template@1", "plan")[0]
    verbs = sorted({k.split(":", 1)[1] for r in rs for k in r["scores"]["template"]["total"] if ":" in k})
    figures["action_by_op"] = {v: _rate(rs, "template", f"action:{v}")[0] for v in verbs}
    figures["tries_mean"] = sum(r["tries"] for r in rs) / len(rs)
    figures["seconds_per_directive"] = sum(r["seconds"] for r in rs) / len(rs)
    figures["accuracy"] = figures["goal_goal"]
    return figures


def _label(rows: Sequence[dict], method: str) -> str:
    """D or D+S, and ``P=...`` in a grid of served models."""
    row = next((r for r in rows if r["method"] == method), {})
    base = row.get("method_base", method)
    return INPUT_LABEL.get(base, base) + (f" P={row['error_rate']:g}" if "method_base" in row else "")


def print_tables(report: BenchReport) -> None:
    from llm_planner.methods.levy_karpas.metrics import GOAL_MEASURES, TEMPLATE_MEASURES

    rows = report.rows
    splits = list(dict.fromkeys(r["split"] for r in rows))
    cfg = report.config
    samples = samples_per_split(report)
    sizes = ", ".join(f"{s} n={samples.get(s, 0)} ({cfg['splits'][s]['scene']})" for s in splits)
    print(f"nl2pddl (Levy-Karpas) | backend: {report.backend} | {sizes} | train n={cfg['train_n']} | "
          f"B={cfg['tries_B']} | Fast Downward limit {cfg['planner_timeout_s']:g} s | wall time {cfg['wall_time_s']} s")
    t1 = [[_label(rows, m)] + [next((f"{r['success_rate']:.2f} ± {r['stderr']:.2f}" for r in rows
                                           if r["method"] == m and r["split"] == s), "-") for s in splits]
          for m in dict.fromkeys(r["method"] for r in rows)]
    print()
    print(format_table(["input"] + splits, t1, title="Table 1: consistency (a plan within B tries)"))
    t2 = [[_label(rows, r["method"]), r["split"]] + [_cell(r[f"goal_{m}"]) for m in GOAL_MEASURES]
          + [_cell(r["goal_at_1"])] for r in rows]
    print()
    print(format_table(["input", "split", *GOAL_MEASURES, "goal@1"], t2,
                       title="Table 2: goal prediction accuracy (_p: permissive; goal@1: top "
                             "prediction before the check)"))
    t4 = [[_label(rows, r["method"]), r["split"]]
          + [_cell(r[f"template_{m}"]) for m in TEMPLATE_MEASURES]
          + [_cell(r["plan_at_1"]), f"{r['tries_mean']:.2f}", f"{r['seconds_per_directive']:.2f}"] for r in rows]
    print()
    print(format_table(["input", "split", *TEMPLATE_MEASURES, "plan@1", "tries", "s/sample"], t4,
                       title="Table 4: plan-template accuracy (plan@1: top template before the check; s/sample: "
                             "a problem solved for one input is not solved again for the other)"))
    verbs = sorted({v for r in rows for v in r["action_by_op"]})
    t5 = [[_label(rows, r["method"]), r["split"]]
          + [_cell(r["action_by_op"].get(v, float("nan"))) for v in verbs]
          for r in rows]
    print()
    print(format_table(["input", "split", *verbs], t5, title="Table 5: action accuracy by operator type"))


# --------------------------------------------------------------------------------- run
@stops_served_models  # --serve-*, --error-rates: the servers end with the run
def run(args: argparse.Namespace) -> int:
    from llm_planner.methods.levy_karpas.dataset import build_splits

    config = _config(args)
    splits = [s.strip() for s in args.splits.split(",") if s.strip()]
    inputs = [s.strip() for s in args.inputs.split(",") if s.strip()]
    bad = [m for m in inputs if m not in INPUTS]
    if bad:
        raise ConfigError(f"unknown input '{bad[0]}' (inputs: {', '.join(INPUTS)})")
    served, backend = quality.served_models(args, {}, args.backend or str(load_llm_config().backend))
    if served:
        print(quality.grid_header(args, served), flush=True)
    started = time.perf_counter()
    data = build_splits(config["dataset"], only=splits)
    jobs: list[tuple] = [(s, m) + ((key, quality.served_rate(args, key)) if served else ())
                         for key in (served or [None]) for split in splits for s in data[split] for m in inputs]
    with bench_engine(args) as engine:
        records = parallel_records(jobs, _run_job, _init_worker, (args.backend, config, served), args.workers,
                                   "nl2pddl", not args.no_progress)
    records.sort(key=lambda r: (r["input"], r.get("error_rate") or 0.0, r["split"], r["sample_id"]))
    report = summarize(records, backend, config, splits, inputs, time.perf_counter() - started)
    report.config.update(error_rates=[quality.served_rate(args, k) for k in served],
                         error_seed=args.serve_error_seed if served else None,
                         error_profile=quality.error_profile(args) if served else None,
                         serve_args=list(args.serve_arg) if served else [])  # e.g. --error-correlation=0
    report.config["engine"] = engine.summary() if engine else {"engine": "processes", "workers": args.workers}
    print_tables(report)
    if engine:
        print(engine.header())
    if args.error_rates:
        curves = error_rate_curves(report)
        print("\n" + error_rate_table(report, curves))
        print(f"drew {plot_error_rate_curves(report, curves, quality.png_path(args.json, 'nl2pddl'))}")
    if args.json:
        print(f"\nwrote {report.write_json(args.json)}")
    return 0


# --------------------------------------------------------------------------- model quality (--error-rates)
#: The accuracy measures drawn: (panel name, the system's output part, before the check part, measure).
CURVE_MEASURES = (("goal", "goal", "goal@1", "goal"), ("plan", "template", "template@1", "plan"))
SEED_FIGURES = "Levy-Karpas T5 on ALFRED val_unseen, Tables 2 (goal) and 4 (plan template), validated with B = 5"


def error_rate_curves(report: BenchReport) -> quality.Curves:
    """Per input: the top prediction's accuracy (``top-1``) and the system's output after validation
    (``B=5``), per measure (goal, plan template) and split, against the error rate; binomial stderr."""
    curves = quality.Curves()
    tries = report.config["tries_B"]
    groups = dict.fromkeys((e["input"], e["split"], e["error_rate"]) for e in report.episodes
                           if e.get("error_rate") is not None)
    for modality, split, rate in groups:
        rs = [e for e in report.episodes if (e["input"], e["split"], e.get("error_rate")) == (modality, split, rate)]
        for panel, after, before, measure in CURVE_MEASURES:
            label = INPUT_LABEL[modality]
            for name, part in ((f"top-1 {label}", before), (f"B={tries} {label}", after)):
                p, err, total = _rate(rs, part, measure)
                if total:
                    curves.add(name, f"{panel} {split}", rate, p, err)
    return curves


def _marks(report: BenchReport, curves: quality.Curves) -> dict[tuple[str, str], float]:
    """The seed's figures on the validated lines of every split (the seed reports one split)."""
    tries = report.config["tries_B"]
    return {(method.replace("validated", f"B={tries}"), panel): value
            for (method, measure), value in quality.seed_levels("nl2pddl").items()
            for panel in curves.panels if panel.split(" ")[0] == measure}


def samples_per_split(report: BenchReport) -> dict[str, int]:
    """Samples of each split: its records over the runs of each sample (inputs x served models)."""
    runs = max(1, len({(e["input"], e.get("error_rate")) for e in report.episodes}))
    records = Counter(e["split"] for e in report.episodes)
    return {split: n // runs for split, n in records.items()}


def _sizes(report: BenchReport) -> str:
    cfg = report.config
    return ", ".join(f"{s} n={n}" for s, n in samples_per_split(report).items()) + (
        f"; B={cfg['tries_B']}; error seed {cfg.get('error_seed')}"
        + "".join(f"; {a.lstrip('-')}" for a in cfg.get("serve_args") or []) + f"; wall {cfg['wall_time_s']} s")


def error_rate_table(report: BenchReport, curves: quality.Curves) -> str:

    title = (f"Accuracy (%) against the served model's share of wrong answers (llm-planner serve --error-rate P; "
             f"{_sizes(report)}); top-1: the top prediction before the check; seed: {SEED_FIGURES}")
    return quality.format_error_rate_table(curves, curves.rates, _marks(report, curves), title, "seed (T5)", "measure")


def plot_error_rate_curves(report: BenchReport, curves: quality.Curves, path: str) -> Any:

    return quality.plot_error_rates(curves, curves.panels, _marks(report, curves), path,
                            "nl2pddl (Levy-Karpas): accuracy against the served model's error rate "
                            "(llm-planner serve --error-rate)",
                            f"{_sizes(report)}; top-1: before the check; dotted: the seed's T5 figure (val_unseen, "
                            "its error rate unknown)", ylabel="accuracy (%)",
                            panel_titles={p: f"{p.split(' ')[0]} accuracy ({p.split(' ', 1)[1]})"
                                          for p in curves.panels})
