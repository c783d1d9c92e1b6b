"""``llm-planner bench gtamp``: STaLM and its baselines on P1-P6 (seed 003, Tables 2-4).

Every (problem, method, trial) is one episode of the closed loop the executor node runs
(:func:`run_benchmark_episode`) with the problem's time budget (300 s for P1, P2, P4 and 600 s
for P3, P5, P6 in the seed), scaled by ``--budget-scale`` or set per problem with ``--budget
P3=60``. The table shows the success rate (mean +- standard error over trials) and the mean planning
time of the successful episodes, like the seed's Table 2; further tables give LLM requests and
motion-planner calls per episode.
Table 3 (``stalm_no_uct``) and Table 4 (``stalm_no_occ``, ``stalm_no_chal``,
``stalm_no_occ_no_chal``) are rows of the same table when those methods are asked for.

**Model quality** (``--error-rates 0,0.2,0.4,0.6``): the seed's claim is that warm-started
UCT repairs the wrong plans of an imperfect LLM (Table 3: without UCT 0.76-0.94 where STaLM has
0.84-0.96). For each rate a served model answering wrongly at that rate is started (``llm-planner
serve --error-rate P``; a wrong STaLM plan ignores an occlusion or misorders its steps:
``llm_planner_eval/stand_in/stalm_wrong_plans.py``) and every method asks it for its plans over HTTP (``openai``
backend), side by side; the table and one PNG (``FILE.error_rates.png`` next to ``--json FILE``)
show success against the rate per problem, with the seed's GPT-4 figures (Tables 2 and 3) dotted.
The rows carry ``error_rate`` (also with ``--serve-error-rate P``, one served model). Budgets stay
in CPU seconds of the planner's process unless ``--clock wall``: the stand-in's own time is not a
model's, so it is not counted::

    llm-planner bench gtamp --error-rates 0,0.2,0.4,0.6 --methods stalm,stalm_no_uct,iterative_replanning \\
        --problems P1,P4 --trials 3 --budget-scale 0.1 --jobs 2 --json runs/gtamp_quality.json
"""
from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from statistics import median
from typing import Any

from llm_planner.domains.gtamp.config import load_config
from llm_planner.domains.gtamp.problems import load_problem, problem_names
from llm_planner.errors import ConfigError
from llm_planner.methods.stalm.llm_source import make_plan_source
from llm_planner.methods.stalm.planner import LLM_METHODS, POLICIES
from llm_planner_eval.bench import error_rates as quality
from llm_planner_eval.bench.engine import active_engine, add_engine_arguments, bench_engine
from llm_planner_eval.bench.gtamp_episode import EpisodeResult, run_benchmark_episode
from llm_planner_eval.bench.report import BenchReport, format_table, mean_stderr, process_map
from llm_planner_eval.bench.serving import stops_served_models

TABLE2 = ("stalm", "uct", "uct_hcount", "saycan", "iterative_replanning", "llm_mcts")
DEFAULT_METHODS = TABLE2 + ("stalm_no_uct",)


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("gtamp", help="STaLM and baselines on G-TAMP problems P1-P6 (seed 003 Tables 2-4)",
                       description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--problems", default=",".join(problem_names()),
                   help="comma-separated problem names or YAML paths (default: all shipped)")
    p.add_argument("--methods", default=",".join(DEFAULT_METHODS),
                   help=f"comma-separated methods of: {', '.join(POLICIES)}")
    p.add_argument("--trials", type=int, default=3, help="episodes per (problem, method) (seed: 50)")
    p.add_argument("--seed", type=int, default=0, help="seed of the first trial (trial t uses seed+t)")
    p.add_argument("--budget-scale", type=float, default=1.0,
                   help="multiply every problem's time budget (e.g. 0.1: 30 s / 60 s)")
    p.add_argument("--budget", action="append", default=[], metavar="PROBLEM=SECONDS",
                   help="time budget of one problem (overrides the scaled budget; repeatable)")
    p.add_argument("--backend", default="offline", choices=("offline", "openai"), help="LLM layer backend")
    p.add_argument("--jobs", type=int, default=1, help="episodes run in parallel processes")
    p.add_argument("--clock", choices=("cpu", "wall"), default=None,
                   help="what planning time and budgets measure: this process's CPU seconds (default "
                        "with the offline backend: other programs on a shared CPU do not inflate it) or "
                        "wall seconds (default with openai: the LLM's latency counts)")
    p.add_argument("--config", default=None, help="hyper-parameter file (default config/gtamp/stalm.yaml)")
    p.add_argument("--json", default=None, metavar="FILE", help="write rows and per-episode records")
    add_engine_arguments(p)  # --ray [ADDRESS], --llm-max-in-flight N (bench/engine.py)
    quality.add_error_rate_arguments(p, "gtamp")  # --serve-style ..., --error-rates (bench/error_rates.py)
    p.set_defaults(func=run)


def _budgets(problems: Sequence[str], scale: float, overrides: Sequence[str]) -> dict[str, float]:
    budgets = {name: load_problem(name).time_budget_s * scale for name in problems}
    for item in overrides:
        name, sep, value = item.partition("=")
        if not sep or name not in budgets:
            raise ConfigError(f"--budget {item!r}: expected PROBLEM=SECONDS with a problem of {sorted(budgets)}")
        try:
            budgets[name] = float(value)
        except ValueError as exc:
            raise ConfigError(f"--budget {item!r}: {value!r} is not a number") from exc
    return budgets


def _episode(job: tuple) -> dict[str, Any]:
    """One episode: ``(problem, method, seed, budget, backend, config, clock)``, and against a served
    model ``(..., llm overrides, error rate, row label)``: the plans are then asked of it over HTTP."""
    problem, method, seed, budget, backend, config_path, clock = job[:7]
    try:
        llm = job[7] if len(job) > 7 else None
        source = None
        if llm is not None and method in LLM_METHODS:
            source = make_plan_source("openai", seed, llm)
        result = run_benchmark_episode(problem, method, seed=seed, budget_s=budget, backend=backend,
                                       config=load_config(config_path), clock=clock, plan_source=source)
        return {**result.as_dict(), **_grid_fields(job)}
    except Exception as exc:  # noqa: BLE001 - one broken episode is recorded, the benchmark goes on
        return _error_record(job, f"error: {type(exc).__name__}: {exc}")


def _grid_fields(job: tuple) -> dict[str, Any]:
    """A served model's episode: its row label, the method and the served model's error rate."""
    if len(job) <= 7:
        return {}
    return {"method": job[9], "method_base": job[1], "error_rate": job[8]}


def _error_record(job: tuple, message: str) -> dict[str, Any]:
    """The record of an episode that ended in an error (in the episode, or its worker lost)."""
    problem, method, seed, budget = job[:4]
    return {**EpisodeResult(problem, method, seed, False, 0.0, budget, 0, 0, 0.0, 0, 0, 0, 0, 0.0,
                            message).as_dict(), **_grid_fields(job)}


@stops_served_models  # --serve-*, --error-rates: the servers end with the run
def run(args: argparse.Namespace) -> int:
    problems = [p.strip() for p in args.problems.split(",") if p.strip()]
    methods = [m.strip() for m in args.methods.split(",") if m.strip()]
    unknown = [m for m in methods if m not in POLICIES]
    if unknown:
        print(f"unknown method(s) {unknown}; known: {', '.join(POLICIES)}", file=sys.stderr)
        return 2
    if args.trials < 1:
        print("--trials must be at least 1", file=sys.stderr)
        return 2
    try:
        budgets = _budgets(problems, args.budget_scale, args.budget)
        load_config(args.config)
    except Exception as exc:  # noqa: BLE001 - configuration errors end the command with a message
        print(f"error: {exc}", file=sys.stderr)
        return 2
    # a served stand-in (--serve-*, --error-rates) keeps the offline default: its time is not a model's
    clock = args.clock or ("cpu" if args.backend == "offline" else "wall")
    served, backend = quality.served_models(args, {}, args.backend)
    labels = [quality.grid_label(m, key) if key is not None else m for key in served or [None] for m in methods]
    jobs: list[tuple] = [
        (p, m, args.seed + t, budgets[p], args.backend, args.config, clock)
        + ((quality.for_method(served[key], m), quality.served_rate(args, key), quality.grid_label(m, key))
           if served else ())
        for key in (served or [None]) for p in problems for m in methods for t in range(args.trials)]
    names = {p: load_problem(p).name for p in problems}
    print(f"G-TAMP benchmark: backend={backend}, problems={','.join(names.values())}, "
          f"methods={','.join(methods)}, trials={args.trials} (seeds {args.seed}..{args.seed + args.trials - 1}), "
          f"jobs={args.jobs}, clock={clock}, budgets={', '.join(f'{names[p]}={b:g}s' for p, b in budgets.items())}, "
          f"{len(jobs)} episodes", flush=True)
    if served:
        print("  " + quality.grid_header(args, served), flush=True)
    started = time.perf_counter()
    with bench_engine(args, workers=args.jobs) as engine:
        episodes = _run_all(jobs, args.jobs)
    wall = time.perf_counter() - started
    report = build_report(episodes, problems=[names[p] for p in problems], methods=labels,
                          config={"backend": backend, "trials": args.trials, "seed": args.seed,
                                  "error_rates": [quality.served_rate(args, k) for k in served],
                                  "error_seed": args.serve_error_seed if served else None,
                                  "error_profile": quality.error_profile(args) if served else None,
                                  "budgets_s": {names[p]: b for p, b in budgets.items()},
                                  "budget_scale": args.budget_scale, "clock": clock, "wall_s": round(wall, 1),
                                  "search": vars(load_config(args.config).search),
                                  "engine": engine.summary() if engine else {"engine": "processes", "jobs": args.jobs}})
    print()
    print(render_tables(report))
    if engine:
        print(engine.header())
    print(f"\n{len(episodes)} episodes in {wall:.1f} s wall time (backend {backend}, {args.jobs} process(es))")
    if args.error_rates:
        print("\n" + error_rate_table(report))
        print(f"drew {plot_error_rate_curves(report, quality.png_path(args.json, 'gtamp'))}")
    if args.json:
        print(f"wrote {report.write_json(args.json)}")
    return 0


def _run_all(jobs: list[tuple], workers: int) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    total = len(jobs)

    def progress(ep: dict[str, Any]) -> None:
        out.append(ep)
        status = "success" if ep["success"] else f"fail ({ep['stop']})"
        print(f"[{len(out)}/{total}] {ep['problem']} {ep['method']} seed={ep['seed']}: {status}, "
              f"planning {ep['planning_time_s']:.1f}s, steps {ep['steps']}, llm {ep['llm_requests']}, "
              f"unanswered {ep.get('llm_unanswered', 0)}, mp {ep['mp_calls']}", flush=True)

    if workers <= 1 and active_engine() is None:
        for job in jobs:
            progress(_episode(job))
        return out
    for episode in process_map(_episode, jobs, workers, start_method="fork", error_record=_error_record):
        progress(episode)
    return out


def build_report(episodes: list[dict[str, Any]], problems: Sequence[str], methods: Sequence[str],
                 config: dict[str, Any], backend: str | None = None) -> BenchReport:
    """Rows per (method, problem): success rate +- stderr, planning time of successes, LLM
    requests and motion-planner calls per episode."""
    report = BenchReport("gtamp", backend or str(config.get("backend", "offline")), config)
    for m in methods:
        for p in problems:
            eps = [e for e in episodes if e["method"] == m and e["problem"] == p]
            if not eps:
                continue
            sr, se = mean_stderr([float(e["success"]) for e in eps])
            times = [e["planning_time_s"] for e in eps if e["success"]]
            t_mean, t_se = mean_stderr(times) if times else (float("nan"), float("nan"))
            grid = {k: eps[0][k] for k in ("method_base", "error_rate") if k in eps[0]}
            asked = [s for e in eps for s in e.get("question_seconds") or []]
            plans = [n for e in eps for n in e.get("question_plans") or []]
            report.add_row(m, p, len(eps), sr, se, **grid, planning_time_s=t_mean, planning_time_stderr=t_se,
                           questions=len(asked), question_max_s=max(asked) if asked else None,
                           question_median_s=median(asked) if asked else None,
                           plans_per_question=sum(plans) / len(plans) if plans else None,
                           llm_requests=mean_stderr([e["llm_requests"] for e in eps])[0],
                           llm_unanswered=mean_stderr([e.get("llm_unanswered", 0) for e in eps])[0],
                           mp_calls=mean_stderr([e["mp_calls"] for e in eps])[0],
                           steps=mean_stderr([e["steps"] for e in eps])[0],
                           errors=sum(1 for e in eps if str(e["stop"]).startswith("error")))
    report.episodes = list(episodes)
    return report


def render_tables(report: BenchReport) -> str:
    """Seed Table 2 layout (success rate and time of successes per method and problem), then the
    cost tables."""
    problems = list(dict.fromkeys(r["split"] for r in report.rows))
    methods = list(dict.fromkeys(r["method"] for r in report.rows))
    cell = {(r["method"], r["split"]): r for r in report.rows}
    body = []
    for m in methods:
        rows = [cell.get((m, p)) for p in problems]
        body.append([m, "Success rate"] + [f"{r['success_rate']:.2f} ± {r['stderr']:.2f}" if r else "-" for r in rows])
        body.append(["", "Time (s)"] + [_time(r) for r in rows])
    n = max((r["episodes"] for r in report.rows), default=0)
    title = (f"G-TAMP success rate and planning time of successes (backend: {report.backend}, "
             f"{n} trials per cell, budgets {report.config.get('budgets_s', {})} "
             f"in {report.config.get('clock', 'wall')} seconds)")
    out = [format_table(["Method", "Metric"] + problems, body, title=title, keys=2)
           + "\n(Time: mean planning time of the successful episodes; '-': no success, i.e. time-out or step limit)"]
    for key, label in (("llm_requests", "LLM requests per episode"),
                       ("llm_unanswered", "LLM questions per episode given up or open at its end"),
                       ("mp_calls", "motion-planner calls per episode")):
        table = [[m] + [f"{cell[(m, p)][key]:.1f}" if (m, p) in cell else "-" for p in problems] for m in methods]
        out.append(format_table(["Method"] + problems, table, title=f"\n{label} (backend: {report.backend})"))
    asked = [m for m in methods if any(cell.get((m, p), {}).get("questions") for p in problems)]
    if asked:
        table = [[m] + [_questions(cell.get((m, p))) for p in problems] for m in asked]
        out.append(format_table(["Method"] + problems, table, title=(
            f"\nQuestions that ended (backend: {report.backend}): how many, median / longest seconds, plans "
            "asked per question (search.question_bound_s bounds a question; given up: the table above)")))
    return "\n".join(out)


def _questions(row: dict[str, Any] | None) -> str:
    if not row or not row.get("questions"):
        return "-"
    return (f"{row['questions']}: {row['question_median_s']:.1f} / {row['question_max_s']:.1f} s, "
            f"{row['plans_per_question']:.1f} plans")


def _time(row: dict[str, Any] | None) -> str:
    if row is None:
        return "-"
    t = row["planning_time_s"]
    return "-" if t != t else f"{t:.1f} ± {row['planning_time_stderr']:.1f}"


# --------------------------------------------------------------------------- model quality (--error-rates)
#: What the seed's figures are (``seed_marks: gtamp`` of ``config/serve_errors.yaml``).
SEED_FIGURES = "STaLM Tables 2-3 with gpt-4-turbo (50 trials; its error rate unknown)"


def error_rate_table(report: BenchReport) -> str:
    """Success (%) per method and problem at each error rate, and the seed's figure."""

    curves = quality.Curves.from_rows(report.rows)
    cfg = report.config
    title = (f"Success (%) against the served model's share of wrong answers (llm-planner serve --error-rate P, error "
             f"seed {cfg.get('error_seed')}; {cfg.get('trials')} trials per cell, seeds {cfg.get('seed')}.."
             f"{int(cfg.get('seed', 0)) + int(cfg.get('trials', 1)) - 1}, budgets {cfg.get('budgets_s')} in "
             f"{cfg.get('clock')} seconds, wall {cfg.get('wall_s')} s); seed: {SEED_FIGURES}")
    return quality.format_error_rate_table(curves, curves.rates, quality.seed_levels("gtamp"), title, "seed (GPT-4)",
                                           "problem")


def plot_error_rate_curves(report: BenchReport, path: str) -> Any:
    """One PNG: per problem, success against the error rate, one line per method, the seed's dotted."""

    curves = quality.Curves.from_rows(report.rows)
    cfg = report.config
    return quality.plot_error_rates(
        curves, curves.panels, quality.seed_levels("gtamp"), path,
        "gtamp (STaLM): success against the served model's error rate (llm-planner serve --error-rate)",
        f"{cfg.get('trials')} trials per point, budgets {cfg.get('budgets_s')} ({cfg.get('clock')} s), error seed "
        f"{cfg.get('error_seed')}, wall {cfg.get('wall_s')} s; dotted: the seed's GPT-4 figure (its error rate "
        "unknown)")
