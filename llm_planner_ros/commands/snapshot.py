"""``llm-planner snapshot``: labelled pictures of an apartment or a G-TAMP problem, or of an episode.

    llm-planner snapshot --scene apartment_seen --seed 0 --out scene.png        # labelled plan
    llm-planner snapshot --scene apartment_seen --out scene.png --view top      # PyBullet's own render
    llm-planner snapshot --scene apartment_seen --out on.png --view perspective --room living_room \
        --look-from north --switched-on tv floor_lamp                            # a lit TV and lamp up close
    llm-planner snapshot --problem P2 --out p2.png                               # G-TAMP, with occluders
    llm-planner snapshot --scene apartment_seen --run --suite comp --planner llm_mcts --out-dir runs/report
    llm-planner snapshot --problem P2 --run --planner stalm --out-dir runs/p2
    llm-planner snapshot --task 1a2b3c4d5e6f --out-dir runs/task                 # a task the graph executed

The labelled plan (``--view plan``, the default) names rooms and furniture, highlights and names
the goal's objects and destinations, draws the robot and the path it drove, and objects that
moved faded where they started. The switchable things (a TV, lamps, appliances) are on as in the
episode of ``--seed`` unless ``--switched-on`` names the ones to show on (``--switched-on`` alone:
none); a lit lamp, a bright screen and a lit indicator show in the ``top`` and ``perspective``
renders. ``--run`` executes one task in this process (the PyBullet world,
no ROS) through the same closed loop as the executor and writes ``before.png``, ``after.png``,
``strip.png`` (one frame per step with its action) and ``strip.gif`` into ``--out-dir``.
``--task`` draws a task a running node graph executed (any caller: the action, ``/plan_task``, a
voice directive): the executor node keeps the steps and the world after each of its last
``task_records`` tasks (service ``task_record``); the same pictures plus ``report.md``, the steps
with the LLM requests of each decision and where the planner believed the goal's objects were.
"""
from __future__ import annotations

import argparse
from pathlib import Path

from llm_planner.adapters.household import HouseholdDomain
from llm_planner.domains.household.world.episode import Task
from llm_planner.domains.household.world.scene import load_scene
from llm_planner.domains.household.world.symbolic import Household
from llm_planner.domains.household.world.tasks import SUITES, generate_tasks
from llm_planner.errors import ConfigError
from llm_planner.execution import StepRecord, run_episode
from llm_planner.planners.base import create
from llm_planner_ros.commands.plan import add_graph_options

RUN_DIR = Path("runs/snapshot")


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("snapshot", help="labelled pictures of a scene, a G-TAMP problem or an executed task",
                            description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--scene", default="apartment_seen", help="scene name or YAML path (default apartment_seen)")
    parser.add_argument("--problem", default=None, help="a G-TAMP problem (P1..P6 or a YAML path) instead of --scene")
    parser.add_argument("--seed", type=int, default=0, help="object placement seed (default 0)")
    parser.add_argument("--out", type=Path, default=None, help="PNG file to write (pictures of a scene or problem)")
    parser.add_argument("--view", choices=("plan", "top", "perspective"), default="plan",
                        help="plan: labelled top-down drawing (default); top / perspective: PyBullet's TinyRenderer")
    parser.add_argument("--width", type=int, default=800, help="top/perspective: image width in pixels (default 800)")
    parser.add_argument("--height", type=int, default=600, help="top/perspective: image height in pixels (default 600)")
    parser.add_argument("--room", default=None, help="top/perspective: frame this room alone (default: the apartment)")
    parser.add_argument("--look-from", choices=("south", "north", "east", "west"), default="south",
                        help="perspective: the side the camera looks from (default south)")
    parser.add_argument("--switched-on", nargs="*", default=None, metavar="THING",
                        help="the switchable things shown on (default: as in the episode of --seed; alone: none)")
    run = parser.add_argument_group("--run: execute one task and draw the episode")
    run.add_argument("--run", action="store_true", help="execute a task in this process and write its pictures")
    run.add_argument("--planner", default=None, help="household: l_policy (default), llm_mcts, ...; G-TAMP: stalm")
    run.add_argument("--suite", default="simple", help="household task suite (default simple)")
    run.add_argument("--index", type=int, default=0, help="which task of the suite's seed (default 0)")
    run.add_argument("--max-steps", type=int, default=30, help="step limit (default 30)")
    run.add_argument("--out-dir", type=Path, default=None,
                     help="report folder (default runs/snapshot; with --task runs/tasks/TASK_ID)")
    run.add_argument("--no-gif", action="store_true", help="no animated GIF")
    graph = parser.add_argument_group("--task: draw a task a running node graph executed")
    graph.add_argument("--task", metavar="TASK_ID", default=None,
                       help="task id (as printed by plan --execute, demo or status; 'last' for the last task)")
    add_graph_options(graph)
    parser.set_defaults(func=run_snapshot)


def run_snapshot(args: argparse.Namespace) -> int:
    if args.width < 1 or args.height < 1:
        raise ConfigError(f"--width and --height must be positive, got {args.width}x{args.height}")
    if args.task:
        return _executed_task(args)
    if args.run:
        return _run_gtamp(args) if args.problem else _run_household(args)
    if args.out is None:
        raise ConfigError("give --out FILE.png (or --run --out-dir DIR)")
    if args.problem:
        return _problem_picture(args)
    from llm_planner.domains.household.sim.world import HouseholdSim

    scene = load_scene(args.scene)
    switched_on = scene.sample_switched_on(args.seed) if args.switched_on is None else args.switched_on
    unknown = sorted(set(switched_on) - set(scene.switchables))
    if unknown:
        raise ConfigError(f"--switched-on names {', '.join(unknown)}, which {scene.name} cannot switch "
                          f"(switchable: {', '.join(scene.switchables) or 'nothing'})")
    if args.room is not None and args.room not in scene.rooms:
        raise ConfigError(f"--room {args.room}: not a room of {scene.name} ({', '.join(scene.rooms)})")
    with HouseholdSim(scene, scene.sample_placement(args.seed), seed=args.seed, switched_on=switched_on) as sim:
        if args.view == "plan":
            from llm_planner.viz.household import snapshot_view
            from llm_planner.viz.topdown import save_png

            picture = save_png(snapshot_view(scene, sim.geometry(), title=f"{scene.name}, placement seed {args.seed}",
                                             cfg=sim.cfg), args.out)
            size = f"{picture.width}x{picture.height}"
            path = picture.path
        else:
            path = sim.render_png(args.out, args.width, args.height, args.view, args.room, args.look_from)
            size = f"{args.width}x{args.height}"
    print(f"wrote {path} ({size}, {args.view} view of {scene.name}, seed {args.seed})")
    return 0


def _problem_picture(args: argparse.Namespace) -> int:
    from llm_planner.domains.gtamp.operators import GTampModel
    from llm_planner.domains.gtamp.predicates import PredicateComputer
    from llm_planner.domains.gtamp.problems import load_problem
    from llm_planner.viz.gtamp import problem_view
    from llm_planner.viz.topdown import save_png

    problem = load_problem(args.problem)
    model = GTampModel(problem)
    try:
        literals = PredicateComputer(model).literals(problem.initial)
    finally:
        model.world.close()
    picture = save_png(problem_view(problem, literals=literals), args.out)
    print(f"wrote {picture.path} ({picture.width}x{picture.height}, G-TAMP problem {problem.name} with the occluders "
          f"of its goal's objects)")
    return 0


def _run_household(args: argparse.Namespace) -> int:
    from llm_planner.domains.household.sim.world import PyBulletWorld
    from llm_planner.viz.recorder import HouseholdRecorder

    if args.suite not in SUITES:
        raise ConfigError(f"unknown suite '{args.suite}' (suites: {', '.join(SUITES)})")
    household = Household(load_scene(args.scene))
    tasks = generate_tasks(household.scene, args.suite, args.index + 1, args.seed)
    task = tasks[args.index]
    planner = create(args.planner or "l_policy", seed=args.seed)
    world = PyBulletWorld(household, task.placement_seed)
    try:
        recorder = HouseholdRecorder.for_sim(world.sim, goal=task.goal, title=f"{task.instruction}")
        recorder.start()
        print(f"task {task.task_id}: {task.instruction!r} "
              f"({planner.name if hasattr(planner, 'name') else args.planner}, "
              f"PyBullet world of {household.scene.name})", flush=True)

        def on_step(r: StepRecord) -> None:
            recorder.on_step(r)
            print(f"  {r.step}. {r.action} -> {'ok' if r.success else 'failed: ' + r.reason}", flush=True)

        result = run_episode(HouseholdDomain, planner, Task(task.instruction, task.goal, household, args.max_steps),
                             world, on_step=on_step)
        written = recorder.write(args.out_dir or RUN_DIR, gif=not args.no_gif)
    finally:
        world.close()
    print(f"result: {'SUCCESS' if result.success else 'FAILURE'} - {result.message}")
    print("pictures: " + ", ".join(str(p) for p in written.values()))
    return 0 if result.success else 1


def _run_gtamp(args: argparse.Namespace) -> int:
    from llm_planner.adapters.gtamp import GTampDomain
    from llm_planner.domains.gtamp.problems import load_problem
    from llm_planner.domains.gtamp.sim import GTampSim
    from llm_planner.methods.stalm.planner import GTampTask, registry_name
    from llm_planner.viz.recorder import GTampRecorder, PathTap

    problem = load_problem(args.problem)
    method = args.planner or "stalm"
    planner = create(registry_name(method), seed=args.seed)
    sim = GTampSim(problem)
    tap = PathTap(sim)
    try:
        recorder = GTampRecorder(problem, sim.observe, lambda: tap.last_path,
                                 title=f"{problem.name}: {problem.description}")
        recorder.start()
        print(f"G-TAMP {problem.name} with {method}: {problem.description}", flush=True)

        def on_step(record: StepRecord) -> None:
            recorder.on_step(record)
            print(f"  {record.step}. {record.action_text} -> {'ok' if record.success else 'failed: ' + record.reason}",
                  flush=True)

        run = run_episode(GTampDomain, planner, GTampTask(problem, max_steps=args.max_steps), tap, on_step=on_step)
        written = recorder.write(args.out_dir or RUN_DIR, gif=not args.no_gif)
    finally:
        sim.close()
        ctx = getattr(planner, "ctx", None)
        if ctx is not None:
            ctx.model.world.close()
    print(f"result: {'SUCCESS' if run.success else 'FAILURE'} - {run.message}")
    print("pictures: " + ", ".join(str(p) for p in written.values()))
    return 0 if run.success else 1


def _executed_task(args: argparse.Namespace) -> int:
    from llm_planner.viz.report import write_report
    from llm_planner_ros.client import PlannerClient

    task_id = "" if args.task == "last" else args.task
    with PlannerClient("llm_planner_snapshot", args.namespace, args.server_timeout) as client:
        record = client.task_record(task_id)
    out_dir = args.out_dir or Path("runs/tasks") / record.task_id
    written = write_report(record, out_dir, gif=not args.no_gif)
    print(f"task {record.task_id} ({record.planner}, {record.state}, {len(record.steps)} step(s)): "
          f"{record.directive!r}")
    print("report: " + ", ".join(str(p) for p in written.values()))
    return 0
