"""``llm-planner bench household``: LLM-MCTS Tables 1-3 (seed 000, §3) on the household suites.

It is one piece because the plain run and the ``--latencies`` and ``--error-rates`` grids are one
run: the same jobs (apartment x method x suite x seed) in one pool through :func:`run_job`,
differing only in the served model each method is given; the tables are printed by
:mod:`llm_planner_eval.bench.household_tables`.

For every apartment (``--home seen,unseen`` or ``--scene FILE``), method and suite, ``--seeds S``
task sets of ``--episodes N`` tasks are generated (``llm_planner.domains.household.world.tasks.generate_tasks``,
seed-reproducible) and each task is run in the closed loop (``llm_planner.execution.run_episode``)
on the symbolic world, or with ``--pybullet`` through the PyBullet simulator and its perception.
Success = every goal relation holds in the world within ``--max-steps`` (30, §3.1 "Evaluation").
A cell is the mean ± standard error over the S seeds of the per-seed success rate, printed in the
layout of Tables 1/2 (methods x suites), followed by the cost figures of Table 3 / App. E:

* LLM requests per decision: model questions not served from a cache (``offline``: answers the
  commonsense/retrieval model computed; ``openai``: questions sent to the server);
* policy-asking visits per decision: executions of Algorithm 1 line 28 (what the paper's design
  sends to the model; here answered once per tree node);
* seconds per decision, and the part of it spent inside the policy / prior;
* simulations per second, overall and without the time spent answering policy questions.

Episodes run in ``--workers`` processes (multiprocessing) with a progress bar; ``--json FILE``
writes the DESIGN.md format with one record per episode. Every record and row carries
``unrelated_moves`` (objects grabbed that the goal does not name; the success tables show it).
An apartment's suites come from its own file unless ``config/household_tasks.yaml`` names it or
``--tasks FILE`` is given (``tasks.task_config_for``); ``--list-tasks`` prints them and exits.

    llm-planner bench household --methods llm_mcts,uct,l_policy --suites simple,comp \\
        --home seen,unseen --episodes 5 --seeds 3 --workers 2 --json runs/household.json

The state suites (``--suites states,states_mixed``: things open, closed, on or off, alone and with a
placement; ``tasks.STATE_SUITES``) run the same way; the default is the seed's five placement suites.

**Latency** (``--latencies 0,0.2,0.5,1.0``): for each latency a served model (``llm-planner
serve``, answer style ``--serve-style``, default plain) is started and every method runs against it
with the ``openai`` backend, all in one pool of workers, side by side. Each method has answer
caches of its own (no method is served answers another one paid for). With latency the episodes
wait on HTTP, so ``--workers`` may exceed the cores. A latency table follows the usual ones: per
latency and method, success per suite, LLM requests, rounds of waiting, wall and search seconds
per decision, and the concurrent / sequential ratio of the wall time::

    llm-planner bench household --latencies 0.5 --suites simple,comp,novel_comp3 --episodes 8 --seeds 3 \\
        --methods "llm_mcts:max_in_flight=1,llm_mcts" --workers 12

**Model quality** (``--error-rates 0,0.2,0.4,0.6``): for each rate a served model that
answers wrongly at that rate (``llm-planner serve --error-rate P``, the way language models are
wrong: ``llm_planner_eval/stand_in/wrong_answers.py``) is started, and every method runs against each, side by
side, as with ``--latencies`` (the two grids exclude each other). A table of success against the
error rate follows, and the curves are drawn into one PNG (``FILE.error_rates.png`` next to
``--json FILE``, else ``household_error_rates.png``), with the seed's GPT-3.5 figures marked; the
JSON rows carry ``error_rate``::

    llm-planner bench household --error-rates 0,0.2,0.4,0.6 --methods llm_mcts,l_policy,uniform_prior,uct \\
        --suites simple,comp --episodes 4 --seeds 2 --workers 3 --json runs/quality.json

**Profile** (``--profile [FILE]``): the episodes run in this process under cProfile, and the
functions that take the time of the search (own time and cumulative) are printed; FILE keeps the
statistics for ``python -m pstats``.
"""
from __future__ import annotations

import argparse
import io
import json
import os
import sys
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from llm_planner.adapters.household import HouseholdDomain
from llm_planner.domains.household.sim.check import check_layout
from llm_planner.domains.household.sim.config import load_sim_config
from llm_planner.domains.household.world.episode import SymbolicWorld, Task
from llm_planner.domains.household.world.symbolic import household_of
from llm_planner.domains.household.world.tasks import (
    ALL_SUITES,
    SUITES,
    generate_tasks,
    suite_pools,
    task_config_for,
)
from llm_planner.errors import ConfigError
from llm_planner.execution import run_episode
from llm_planner.llm.config import load_llm_config, merge_overrides, parse_dotted
from llm_planner.llm.factory import make_backend
from llm_planner.planners.base import available, create
from llm_planner_eval.bench.engine import active_engine, add_engine_arguments, bench_engine
from llm_planner_eval.bench.error_rates import add_error_rate_arguments, for_method, served_models
from llm_planner_eval.bench.household_tables import (
    fill_rows,
    format_error_rate_table,
    format_latency_table,
    format_report,
    plot_error_rates,
)
from llm_planner_eval.bench.method_spec import LLM_PREFIX, MethodSpec
from llm_planner_eval.bench.report import BenchReport, process_map
from llm_planner_eval.bench.serving import error_profile, serve_for_bench, stop_served_models

if TYPE_CHECKING:
    from llm_planner.domains.household.world.symbolic import Household
    from llm_planner.execution import World
    from llm_planner.methods.llm_mcts.planner import LLMMCTSStats
    from llm_planner.planners.base import Planner

METHODS = ("llm_mcts", "uct", "l_policy", "no_heuristic_policy", "uniform_prior", "fully_observable")
HOMES = {"seen": "apartment_seen", "unseen": "apartment_unseen"}
#: Relative cost of a method, to start the slow episodes first (better load balance).
_COST = {"uniform_prior": 6, "fully_observable": 4, "llm_mcts": 4, "no_heuristic_policy": 1, "uct": 1, "l_policy": 0}


# ------------------------------------------------------------------------------ CLI
def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("household", help="LLM-MCTS Tables 1-3: success of the household methods per suite",
                       description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--methods", default=",".join(METHODS),
                   help="comma-separated planner names; METHOD:KEY=VALUE;KEY=VALUE runs a variant "
                        "(e.g. llm_mcts:final_action=visits; a key llm.SECTION.KEY sets config/llm.yaml for that "
                        f"variant, e.g. llm_mcts:llm.policy.inadmissible=drop). Default: {','.join(METHODS)}")
    p.add_argument("--suites", default=",".join(SUITES),
                   help=f"comma-separated suites (default: {','.join(SUITES)}; the state suites "
                        "states,states_mixed ask things open, closed, on or off)")
    p.add_argument("--home", default="seen", help="seen, unseen or seen,unseen (the shipped apartments)")
    p.add_argument("--scene", action="append", default=[], metavar="FILE",
                   help="a scene YAML file instead of --home (repeatable)")
    p.add_argument("--tasks", default=None, metavar="FILE",
                   help="a task split file like config/household_tasks.yaml for every apartment (default: that "
                        "file for the apartments it names, each other apartment's split built from its own file)")
    p.add_argument("--list-tasks", action="store_true",
                   help="print each apartment's task split and the tasks of the chosen suites and seeds, then exit")
    p.add_argument("--episodes", type=int, default=5, help="tasks per suite and seed (default 5)")
    p.add_argument("--seeds", type=int, default=3, help="task-set seeds; mean ± stderr is over them (default 3)")
    p.add_argument("--seed-offset", type=int, default=0, help="first task-set seed (default 0)")
    p.add_argument("--simulations", type=int, default=None,
                   help="N of Algorithm 1 (default: config/llm_mcts.yaml, 100)")
    p.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                   help="override a key of config/llm_mcts.yaml for every method (repeatable)")
    p.add_argument("--llm-set", action="append", default=[], metavar="KEY=VALUE",
                   help="override a key of config/llm.yaml, e.g. policy.samples=10 (repeatable)")
    p.add_argument("--backend", default=None, help="LLM backend: offline (default) or openai")
    p.add_argument("--max-steps", type=int, default=30, help="step limit per episode (default 30, §3.1)")
    p.add_argument("--workers", type=int, default=2, help="parallel episode processes (default 2)")
    p.add_argument("--pybullet", action="store_true", help="run episodes through the PyBullet world and perception")
    p.add_argument("--json", default=None, metavar="FILE", help="write rows and per-episode records (DESIGN.md format)")
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    add_error_rate_arguments(p, "household")  # --serve-style ..., --error-rates (bench/serving.py, error_rates.py)
    add_engine_arguments(p)  # --ray [ADDRESS], --llm-max-in-flight N: episodes as Ray tasks (bench/engine.py)
    p.add_argument("--latencies", default=None, metavar="S,S,...",
                   help="latency grid: start llm-planner serve with each latency (seconds per request; answer style "
                        "--serve-style, default plain) and run every method against each, side by side, each with "
                        "answer caches of its own; prints the latency table (e.g. 0,0.2,0.5,1.0)")
    p.add_argument("--profile", nargs="?", const="", default=None, metavar="FILE",
                   help="run the episodes in this process under cProfile and print where the time goes "
                        "(FILE: also write the statistics)")
    p.set_defaults(func=run)


def planner_figures(planner: Planner) -> dict[str, Any]:
    """An episode's cost figures, from the planner's :meth:`~llm_planner.planners.base.Planner.episode_stats`:
    LLM-MCTS's searches and decisions (:func:`llm_mcts_figures`), else the :class:`PlannerStats`
    every planner keeps."""
    from llm_planner.methods.llm_mcts.planner import LLMMCTSStats

    s = planner.episode_stats()
    if isinstance(s, LLMMCTSStats):
        return llm_mcts_figures(s)
    return {"decisions": s.decisions, "simulations": s.simulations, "llm_requests": s.llm_requests,
            "llm_requests_total": s.llm_requests, "planning_time_s": s.planning_time_s}


def llm_mcts_figures(stats: LLMMCTSStats) -> dict[str, Any]:
    """The columns of an LLM-MCTS episode's record: decisions, the searches' figures (summed, or the
    largest for depths and questions in flight), the decisions' model requests, time and tokens, and
    the reliability of the policy's and the world model's answers."""
    s, u, p = stats.search, stats.decision_usage, stats.policy_samples
    return {"decisions": stats.decisions, "simulations": s.simulations,
            "policy_visits": s.policy_visits, "policy_queries": s.policy_queries,
            "llm_requests": stats.decision_llm_requests, "llm_requests_total": stats.llm_requests,
            "planning_time_s": stats.planning_time_s, "search_seconds": s.seconds,
            "policy_seconds": stats.policy_seconds, "decide_seconds": stats.decide_seconds,
            "wait_seconds": s.wait_seconds, "waves": s.waves, "peak_in_flight": s.peak_in_flight,
            "unusable_answers": stats.unusable_answers,
            "reused_nodes": s.reused_nodes, "rollout_visits": s.rollout_visits,
            "tree_nodes": s.nodes, "max_tree_depth": s.max_depth, "goal_hits": s.goal_hits,
            "out_of_time": s.out_of_time, "decision_seconds": [round(x, 3) for x in stats.decision_seconds],
            "provisional_nodes": s.provisional, "root_provisional": s.root_provisional,
            "late_questions": s.late_questions,
            "late_answers": s.late_answers, "late_failures": s.late_failures,
            "waits": s.waits, "waits_in_time": s.waits_in_time, "root_unwaited": s.root_unwaited,
            "skipped_unreliable": s.skipped_unreliable, "skipped_busy": s.skipped_busy, "gated_searches": s.gated,
            "world_model_reliability": stats.world_model_reliability,
            "policy_samples": p.samples, "policy_samples_read": p.read, "policy_samples_mapped": p.mapped,
            "mapped_similarity_sum": round(p.mapped_similarity, 4),
            "policy_reliability": None if stats.policy_reliability is None else round(stats.policy_reliability, 4),
            "http_requests": u.requests if u else 0, "prompt_tokens": u.prompt_tokens if u else 0,
            "completion_tokens": u.completion_tokens if u else 0}


def parse_methods(text: str) -> list[MethodSpec]:
    known = available("household")  # the shipped methods and any registered ($LLM_PLANNER_METHODS)
    specs = []
    for item in [m.strip() for m in text.split(",") if m.strip()]:
        name, _, rest = item.partition(":")
        if name not in METHODS and name not in known:
            raise ConfigError(f"unknown household method '{name}' (methods: {', '.join(METHODS)}; other household "
                              f"planners: {', '.join(n for n in known if n not in METHODS) or 'none'})")
        pairs = [kv for kv in rest.split(";") if kv]
        llm = [kv.partition("=") for kv in pairs if kv.startswith(LLM_PREFIX)]
        flat: dict[str, Any] = {key.strip(): raw.strip() for key, _, raw in llm}
        flat.update(parse_dotted([kv for kv in pairs if not kv.startswith(LLM_PREFIX)]))
        overrides = tuple(sorted(flat.items()))
        specs.append(MethodSpec(name, overrides))
    if not specs:
        raise ConfigError("--methods is empty")
    return specs


def _split(text: str, allowed: Sequence[str], what: str) -> list[str]:
    items = [s.strip() for s in text.split(",") if s.strip()]
    for item in items:
        if item not in allowed:
            raise ConfigError(f"unknown {what} '{item}' (choose from {', '.join(allowed)})")
    if not items:
        raise ConfigError(f"no {what} given")
    return items


# ------------------------------------------------------------------------- episodes
@dataclass(frozen=True)
class Job:
    home: str           # label in the tables: seen / unseen / scene name
    scene: str          # scene name or path
    method: MethodSpec
    suite: str
    seed: int
    index: int


_WORKER: dict[str, Any] = {}


def _init_worker(settings: dict[str, Any], own_process: bool = True) -> None:
    """Settings of the episodes; in a worker process also one thread for torch (the workers are
    the parallelism)."""
    if own_process:
        os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
        try:
            import torch

            torch.set_num_threads(1)
        except ImportError:
            pass
    _WORKER.clear()
    _WORKER.update(settings)


@lru_cache(maxsize=64)
def _tasks(scene: str, suite: str, n: int, seed: int, tasks_file: str | None = None) -> tuple:
    return tuple(generate_tasks(household_of(scene).scene, suite, n, seed, tasks_file))


def make_world(household: Household, placement_seed: int, pybullet: bool) -> World:
    """The world of one episode: the symbolic model, or PyBullet with perception (``--pybullet``)."""
    if not pybullet:
        return SymbolicWorld(household, household.sample_initial_state(placement_seed))
    from llm_planner.domains.household.sim.world import PyBulletWorld  # PyBullet only where it runs

    return PyBulletWorld(household, placement_seed)


def error_record(job: Job, message: str) -> dict[str, Any]:
    """The record of an episode its worker failed (``--ray``: the worker lost and its retries spent)."""
    return {"home": job.home, "scene": job.scene, "method": job.method.label, "planner": job.method.planner,
            "suite": job.suite, "seed": job.seed, "index": job.index, "success": False, "steps": 0,
            "message": message, "error": True}


def run_job(job: Job) -> dict[str, Any]:
    """One episode in a worker process; returns its record (never raises: errors are recorded)."""

    settings = _WORKER
    started = time.perf_counter()
    record: dict[str, Any] = {"home": job.home, "scene": job.scene, "method": job.method.label,
                              "planner": job.method.planner, "suite": job.suite, "seed": job.seed, "index": job.index}
    world = None
    try:
        household = household_of(job.scene)
        task = _tasks(job.scene, job.suite, settings["episodes"], job.seed, settings.get("tasks_file"))[job.index]
        record.update(task_id=task.task_id, instruction=task.instruction,
                      goal=[[g.rel, g.obj_type, g.destination, g.count] for g in task.goal])
        config = {**settings["config"], **job.method.planner_overrides}
        planner = create(job.method.planner, backend=settings["backend"], config=config,
                         llm_config=llm_config_of(job.method, settings), seed=job.seed * 1000 + job.index)
        world = make_world(household, task.placement_seed, settings["pybullet"])
        result = run_episode(HouseholdDomain, planner,
                             Task(task.instruction, task.goal, household, settings["max_steps"]), world)
        record.update(success=bool(result.success), steps=len(result.steps), message=result.message,
                      plan=result.plan, unrelated_moves=result.unrelated_moves, **planner_figures(planner))
    except Exception as exc:  # noqa: BLE001 - a crashed episode is a failed episode, said in the record
        record.update(success=False, steps=0, message=f"error: {type(exc).__name__}: {exc}", error=True)
    finally:
        if world is not None and hasattr(world, "close"):
            world.close()
    record["wall_s"] = time.perf_counter() - started
    return record


def llm_config_of(spec: MethodSpec, settings: dict[str, Any]) -> dict[str, Any]:
    """The LLM overrides of a method's episodes: those of its latency's served model, if any. Against
    a served model each method names itself in the model id, which keys the answer cache and the
    prior file, so no method is served answers (or a prior) another method paid for."""
    served = settings.get("served") or {}
    overrides = merge_overrides(served.get(spec.served_key, settings["llm_config"]), spec.llm_overrides)
    return for_method(overrides, spec.base_label) if served else overrides


#: The key of a served model of a run: its latency (``--latencies``), ``("error_rate", P)``
#: (``--error-rates``), or None (the one ``--serve-style`` model).
ServedKey = float | tuple[str, float] | None


def start_served_models(args: argparse.Namespace, llm_overrides: dict[str, Any],
                        backend: str) -> tuple[dict[ServedKey, dict[str, Any]], str]:
    """The served models of the run, by latency: one per ``--latencies`` value, or the one of
    ``--serve-style`` (key None), or none; each is started by ``bench.serving`` and stopped at exit.
    With ``--error-rates``: one per rate, keyed ``("error_rate", P)``."""
    if args.error_rates:
        return _error_rate_models(args, llm_overrides, backend)
    if not args.latencies:
        overrides, backend = serve_for_bench(args, llm_overrides, backend)
        return ({None: overrides} if args.serve_style else {}), backend
    try:
        latencies = [float(x) for x in args.latencies.split(",") if x.strip()]
    except ValueError:
        raise ConfigError(f"--latencies '{args.latencies}': give seconds per request, e.g. 0,0.2,0.5,1.0") from None
    if not latencies or any(x < 0 for x in latencies) or len(set(latencies)) != len(latencies):
        raise ConfigError(f"--latencies '{args.latencies}': give distinct non-negative seconds, e.g. 0,0.2,0.5,1.0")
    if args.serve_latency not in ("0", "", None):
        raise ConfigError("--latencies and --serve-latency exclude each other (the grid sets each server's latency)")
    served: dict[ServedKey, dict[str, Any]] = {}
    for latency in latencies:
        one = argparse.Namespace(**{**vars(args), "serve_style": args.serve_style or "plain",
                                    "serve_latency": f"{latency:g}"})
        served[latency], backend = serve_for_bench(one, llm_overrides, backend)
    return served, backend


def _error_rate_models(args: argparse.Namespace, llm_overrides: dict[str, Any],
                       backend: str) -> tuple[dict[ServedKey, dict[str, Any]], str]:
    """``--error-rates``: one served model per rate (``bench.error_rates.served_models``)."""
    served, backend = served_models(args, llm_overrides, backend)
    return {("error_rate", float(rate or 0.0)): overrides for rate, overrides in served.items()}, backend


# --------------------------------------------------------------------------- running
def run(args: argparse.Namespace) -> int:
    try:
        return _run(args)
    finally:
        stop_served_models()  # --serve-style / --latencies: the servers end with the run


def _run(args: argparse.Namespace) -> int:
    from llm_planner.methods.llm_mcts.config import load_config

    methods = parse_methods(args.methods)
    suites = _split(args.suites, ALL_SUITES, "suite")
    homes = ([(s, s) for s in args.scene] if args.scene
             else [(h, HOMES[h]) for h in _split(args.home, list(HOMES), "home")])
    if args.episodes < 1 or args.seeds < 1:
        raise ConfigError("--episodes and --seeds must be >= 1")
    if args.workers < 1:
        raise ConfigError("--workers must be >= 1")
    config = parse_dotted(args.set)
    if args.simulations is not None:
        config["simulations"] = args.simulations
    mcts_config = load_config(config)  # validates keys now, not in the workers
    for spec in methods:
        load_config({**config, **spec.planner_overrides})
    llm_overrides = parse_dotted(args.llm_set)
    llm_config = load_llm_config(overrides=llm_overrides)
    backend = args.backend or str(mcts_config["backend"])
    llm_config = llm_config.with_overrides({"backend": backend})
    served, backend = start_served_models(args, llm_overrides, backend)  # --serve-style, --latencies
    if None in served:
        llm_overrides = served[None]
    if args.error_rates:
        methods = [MethodSpec(m.planner, m.overrides, error_rate=key[1])
                   for key in served if isinstance(key, tuple) for m in methods]
    elif args.latencies:
        methods = [MethodSpec(m.planner, m.overrides, latency)
                   for latency in served if isinstance(latency, float) for m in methods]
    for _home, scene in homes:
        household_of(scene)  # a bad scene fails here, with its file named
        for suite in suites:
            for seed in range(args.seed_offset, args.seed_offset + args.seeds):
                _tasks(scene, suite, args.episodes, seed, args.tasks)
    if args.list_tasks:
        print(list_tasks(homes, suites, args))
        return 0
    if args.pybullet:
        for _, scene in homes:  # a scene the PyBullet world refuses fails here, naming the culprits
            check_layout(household_of(scene).scene, load_sim_config()).raise_errors()

    settings = {"episodes": args.episodes, "tasks_file": args.tasks, "config": config, "llm_config": llm_overrides,
                "backend": backend,
                "pybullet": bool(args.pybullet), "max_steps": args.max_steps, "served": served}
    jobs = [Job(home, scene, spec, suite, seed, i)
            for home, scene in homes for spec in methods for suite in suites
            for seed in range(args.seed_offset, args.seed_offset + args.seeds) for i in range(args.episodes)]
    in_flight = {spec: int(load_config({**config, **spec.planner_overrides})["max_in_flight"]) for spec in methods}
    # slow episodes first: costly methods, then long latencies asked one question at a time
    jobs.sort(key=lambda j: (-_COST.get(j.method.planner, 1), -(j.method.latency or 0.0) / in_flight[j.method]))
    sims = int(mcts_config["simulations"])

    described = make_backend(next(iter(served.values()), llm_overrides), backend=backend).describe()  # lazy: cheap
    if args.profile is not None:
        args.workers = 1  # the profile is of this process
    backend_label = f"{described.get('backend')} (model {described.get('model')})"
    world_kind = "PyBullet + perception" if args.pybullet else "symbolic model"
    print(f"household benchmark: {len(homes)} apartment(s) x {len(methods)} method(s) x {len(suites)} suite(s) x "
          f"{args.seeds} seed(s) x {args.episodes} episode(s) = {len(jobs)} episodes; backend {backend_label}; "
          f"N={sims} simulations; world: {world_kind}; {args.workers} worker(s)", flush=True)
    budget = float(mcts_config.get("decision_time_s") or 0.0)  # config/llm_mcts.yaml: the node graph reads it too
    print(f"  decision budget (decision_time_s, for waits on a model server; the robot's value unless --set): "
          f"{f'{budget:g} s' if budget > 0 else 'none'}", flush=True)
    if described.get("server"):  # what the model server honours (probed on first contact)
        print(f"  server: {described['server']}", flush=True)
    from llm_planner_eval.bench.priors import prepare_bench_priors  # the prior: its own step, timed, cached
    for line in prepare_bench_priors(homes, [(m.planner, backend, llm_config_of(m, settings)) for m in methods],
                                     not args.no_progress):
        print(line, flush=True)
    started = time.perf_counter()
    engine = None
    if args.profile is None:
        with bench_engine(args) as engine:
            stream = Path(str(args.json).removesuffix(".json") + ".episodes.jsonl") if args.json else None
            records = _run_jobs(jobs, settings, args.workers, not args.no_progress, stream)
    else:
        records = _profiled(lambda: _run_jobs(jobs, settings, 1, not args.no_progress), args.profile)
    wall = time.perf_counter() - started

    report = BenchReport("household", backend, config={"backend": described,
        "homes": [h for h, _ in homes], "scenes": [s for _, s in homes], "methods": [m.label for m in methods],
        "suites": suites, "episodes_per_seed": args.episodes, "seeds": args.seeds, "seed_offset": args.seed_offset,
        "max_steps": args.max_steps, "workers": args.workers, "world": world_kind, "llm_mcts": mcts_config,
        "llm_overrides": llm_overrides, "wall_s": round(wall, 1),
        "latencies": [x for x in served if isinstance(x, float)],
        "error_rates": [x[1] for x in served if isinstance(x, tuple)] or (
            [args.serve_error_rate] if args.serve_error_rate else []),
        "error_seed": args.serve_error_seed, "error_profile": error_profile(args),
        "serve_style": args.serve_style or (
            "plain" if args.latencies or args.error_rates else None)})
    report.episodes = records
    report.config["engine"] = engine.summary() if engine else {"engine": "processes", "workers": args.workers}
    fill_rows(report, records, homes, methods, suites, range(args.seed_offset, args.seed_offset + args.seeds))
    print(format_report(report, homes, methods, suites, sims, wall))
    if engine:
        print(engine.header())
    if args.latencies:
        print("\n" + format_latency_table(report, methods, suites, in_flight))
    if args.error_rates:
        print("\n" + format_error_rate_table(report, methods, suites))
        png = plot_error_rates(report, methods, suites, (str(args.json).removesuffix(".json") + ".error_rates.png")
                               if args.json else "household_error_rates.png")
        print(f"drew {png}")
    errors = [r for r in records if r.get("error")]
    if errors:
        print(f"\n{len(errors)} episode(s) ended in an error, counted as failures; first: {errors[0]['message']}",
              file=sys.stderr)
    if args.json:
        path = report.write_json(args.json)
        print(f"\nwrote {path}")
    return 0


def list_tasks(homes: Sequence[tuple[str, str]], suites: Sequence[str], args: argparse.Namespace) -> str:
    """``--list-tasks``: per apartment where its split comes from and its size (training and novel
    (object type, destination) pairs, compositions), then each chosen suite's tasks per seed."""

    out = []
    for home, scene in homes:
        household = household_of(scene)
        config = task_config_for(household.scene, args.tasks)
        pools = suite_pools(household, config)
        types = {t for t, _ in pools.train + pools.novel}
        destinations = {d for _, d in pools.train + pools.novel}
        out.append(f"{home} ({scene}): split from {config.source}: {len(pools.train)} training and "
                   f"{len(pools.novel)} novel (object type, destination) pairs ({len(pools.train) + len(pools.novel)} "
                   f"task pairs) over {len(types)} object types and {len(destinations)} destinations; "
                   f"{len(pools.train_comps)} training and {len(pools.novel_comps)} novel compositions")
        for suite in suites:
            for seed in range(args.seed_offset, args.seed_offset + args.seeds):
                tasks = _tasks(scene, suite, args.episodes, seed, args.tasks)
                out.append(f"  {suite}, seed {seed}:")
                out += [f"    {t.task_id}  {t.instruction}  {' '.join(map(str, t.goal))}" for t in tasks]
    return "\n".join(out)


def _profiled(work: Callable[[], list[dict[str, Any]]], path: str) -> list[dict[str, Any]]:
    """``work()`` under cProfile; prints the top functions by own and by cumulative time."""
    import cProfile
    import pstats

    profile = cProfile.Profile()
    records = profile.runcall(work)
    out = io.StringIO()
    stats = pstats.Stats(profile, stream=out).strip_dirs()
    stats.sort_stats("tottime").print_stats(20)
    stats.sort_stats("cumulative").print_stats("mcts|symbolic|belief|policy|planner", 20)
    print("\nprofile (this process; own time first, then cumulative time of the search's functions):\n"
          + "\n".join(line for line in out.getvalue().splitlines() if line.strip()))
    if path:
        stats.dump_stats(path)
        print(f"profile statistics written to {path} (python -m pstats {path})")
    return records


def _run_jobs(jobs: list[Job], settings: dict[str, Any], workers: int, progress: bool,
              stream: Path | None = None) -> list[dict[str, Any]]:
    """Every job's episode record; with ``stream``, each record is also appended to that JSON-lines
    file as its episode ends, so a long run stopped half-way keeps what it measured."""

    from tqdm import tqdm

    tqdm.set_lock(threading.RLock())  # no multiprocessing lock (it leaks a semaphore with spawn)
    bar = tqdm(total=len(jobs), desc="episodes", unit="ep", disable=not progress, file=sys.stderr, dynamic_ncols=True)
    records: list[dict[str, Any]] = []
    sink = open(stream, "w") if stream else None  # noqa: SIM115 - closed below

    def finished(record: dict[str, Any]) -> None:
        records.append(record)
        bar.update(1)
        bar.set_postfix_str(f"{sum(r['success'] for r in records)}/{len(records)} ok")
        if sink is not None:
            sink.write(json.dumps(record, default=str) + "\n")
            sink.flush()

    try:
        if workers == 1 and active_engine() is None:
            _init_worker(settings, own_process=False)
            for job in jobs:
                finished(run_job(job))
        else:
            # spawned workers: torch and PyBullet do not survive fork well
            for record in process_map(run_job, jobs, workers, init=_init_worker, initargs=(settings,),
                                      error_record=error_record):
                finished(record)
    finally:
        bar.close()
        if sink is not None:
            sink.close()
    records.sort(key=lambda r: (r["home"], r["method"], r["suite"], r["seed"], r["index"]))
    return records
