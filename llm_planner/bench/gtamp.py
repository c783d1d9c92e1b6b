"""``llm-planner bench gtamp``: STaLM and its baselines on P1-P6 (seed 003, Tables 2-4).

Every (problem, method, trial) is one episode of the closed loop the executor node runs
(:func:`run_benchmark_episode`) with the problem's time budget (300 s for P1, P2, P4 and 600 s
for P3, P5, P6 in the seed), scaled by ``--budget-scale`` or set per problem with ``--budget
P3=60``. The table shows the success rate (mean +- standard error over trials) and the mean planning
time of the successful episodes, like the seed's Table 2; further tables give LLM requests and
motion-planner calls per episode.
Table 3 (``stalm_no_uct``) and Table 4 (``stalm_no_occ``, ``stalm_no_chal``,
``stalm_no_occ_no_chal``) are rows of the same table when those methods are asked for.
"""
from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Sequence
from typing import Any

from llm_planner.bench.engine import active_engine, add_engine_arguments, bench_engine
from llm_planner.bench.gtamp_episode import EpisodeResult, run_benchmark_episode
from llm_planner.bench.report import BenchReport, format_table, mean_stderr, process_map
from llm_planner.domains.gtamp.config import load_config
from llm_planner.domains.gtamp.problems import load_problem, problem_names
from llm_planner.errors import ConfigError
from llm_planner.methods.stalm.planner import POLICIES

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


def _episode(job: tuple[str, str, int, float, str, str | None, str]) -> dict[str, Any]:
    problem, method, seed, budget, backend, config_path, clock = job
    try:
        result = run_benchmark_episode(problem, method, seed=seed, budget_s=budget, backend=backend,
                             config=load_config(config_path), clock=clock)
        return result.as_dict()
    except Exception as exc:  # noqa: BLE001 - one broken episode is recorded, the benchmark goes on
        return _error_record(job, f"error: {type(exc).__name__}: {exc}")


def _error_record(job: tuple, message: str) -> dict[str, Any]:
    """The record of an episode that ended in an error (in the episode, or its worker lost)."""
    problem, method, seed, budget = job[:4]
    return EpisodeResult(problem, method, seed, False, 0.0, budget, 0, 0, 0.0, 0, 0, 0, 0, 0.0, message).as_dict()


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
    clock = args.clock or ("cpu" if args.backend == "offline" else "wall")
    jobs = [(p, m, args.seed + t, budgets[p], args.backend, args.config, clock)
            for p in problems for m in methods for t in range(args.trials)]
    names = {p: load_problem(p).name for p in problems}
    print(f"G-TAMP benchmark: backend={args.backend}, problems={','.join(names.values())}, "
          f"methods={','.join(methods)}, trials={args.trials}, jobs={args.jobs}, clock={clock}, "
          f"budgets={', '.join(f'{names[p]}={b:g}s' for p, b in budgets.items())}", flush=True)
    started = time.perf_counter()
    with bench_engine(args, workers=args.jobs) as engine:
        episodes = _run_all(jobs, args.jobs)
    wall = time.perf_counter() - started
    report = build_report(episodes, problems=[names[p] for p in problems], methods=methods,
                          config={"backend": args.backend, "trials": args.trials, "seed": args.seed,
                                  "budgets_s": {names[p]: b for p, b in budgets.items()},
                                  "budget_scale": args.budget_scale, "clock": clock, "wall_s": round(wall, 1),
                                  "search": vars(load_config(args.config).search),
                                  "engine": engine.summary() if engine else {"engine": "processes", "jobs": args.jobs}})
    print()
    print(render_tables(report))
    if engine:
        print(engine.header())
    print(f"\n{len(episodes)} episodes in {wall:.1f} s wall time (backend {args.backend}, {args.jobs} process(es))")
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
              f"mp {ep['mp_calls']}", flush=True)

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
            report.add_row(m, p, len(eps), sr, se, planning_time_s=t_mean, planning_time_stderr=t_se,
                           llm_requests=mean_stderr([e["llm_requests"] for e in eps])[0],
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
    out = [format_table(["Method", "Metric"] + problems, body, title=title)
           + "\n(Time: mean planning time of the successful episodes; '-': no success, i.e. time-out or step limit)"]
    for key, label in (("llm_requests", "LLM requests per episode"), ("mp_calls", "motion-planner calls per episode")):
        table = [[m] + [f"{cell[(m, p)][key]:.1f}" if (m, p) in cell else "-" for p in problems] for m in methods]
        out.append(format_table(["Method"] + problems, table, title=f"\n{label} (backend: {report.backend})"))
    return "\n".join(out)


def _time(row: dict[str, Any] | None) -> str:
    if row is None:
        return "-"
    t = row["planning_time_s"]
    return "-" if t != t else f"{t:.1f} ± {row['planning_time_stderr']:.1f}"
