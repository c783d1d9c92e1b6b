"""``llm-planner scene check FILE``: is this apartment (or G-TAMP problem) usable, and if not, why?

    llm-planner scene check config/scenes/my_home.yaml [--out my_home.png] [--no-pybullet] [--no-prior]

Checks, without ROS, in this order, and prints every problem with the key it concerns:

1. the schema: every key path that is missing, unknown or malformed, and what is expected;
2. the layout for the simulated robot: furniture through a wall or overlapping other furniture,
   doorways narrower than the robot needs (with the width it needs) or blocked (naming the
   furniture and where it stands), no free place to work at a furniture (naming what is in the
   way), rooms the robot cannot reach from its start;
3. (``--no-pybullet`` skips it) the scene built in PyBullet with three object placements: objects
   that do not fit where ``places`` puts them, approach poses the robot cannot drive to;
4. (notes, ``--no-prior`` skips them) object types the commonsense file does not know, and what
   the offline prior belief will assume for them instead.

It writes a labelled top-down picture (rooms, doorways, furniture names, the robot's start and
where it works at each furniture; problems in red) to ``--out`` (default: FILE with ``.png``) and
exits 1 when there are errors. A G-TAMP problem file (``config/gtamp/P*.yaml``) gets the checks
that apply to it: schema, regions and objects, the robot's start, names in the goal.
"""
from __future__ import annotations

import argparse
import time
from pathlib import Path
from typing import TYPE_CHECKING

import yaml

from llm_planner.domains.household.language.commonsense import scene_knowledge
from llm_planner.domains.household.language.text import WorldInfo
from llm_planner.domains.household.sim.check import ERROR, check_layout
from llm_planner.domains.household.sim.config import load_sim_config
from llm_planner.domains.household.world.commonsense import load_commonsense
from llm_planner.domains.household.world.scene import load_scene, resolve_scene_path
from llm_planner.domains.household.world.words import name_to_text
from llm_planner.errors import SceneError
from llm_planner.llm.factory import make_backend

if TYPE_CHECKING:
    from llm_planner.domains.household.world.scene import Scene


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("scene", help="check a scene file (apartment or G-TAMP problem) and draw it",
                            description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    scene_sub = parser.add_subparsers(dest="scene_command", metavar="ACTION")
    p = scene_sub.add_parser("check", help="validate a scene file, print what is wrong, write a labelled picture",
                             description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("file", help="a scene YAML file (or the name of a shipped scene / G-TAMP problem)")
    p.add_argument("--out", type=Path, default=None, help="PNG to write (default: next to FILE, .png)")
    p.add_argument("--no-pybullet", action="store_true", help="skip building the scene in PyBullet")
    p.add_argument("--no-prior", action="store_true", help="skip the notes on the commonsense prior")
    p.add_argument("--seeds", type=int, default=3, help="object placements tried in PyBullet (default 3)")
    p.set_defaults(func=run_check)
    parser.set_defaults(func=lambda args: parser.print_help() or 2)


def run_check(args: argparse.Namespace) -> int:
    path = _resolve(args.file)
    out = args.out or (path.with_suffix(".png") if path.suffix in (".yaml", ".yml") else Path(f"{path.name}.png"))
    if _is_gtamp(path):
        return _check_gtamp(path, out)

    started = time.perf_counter()
    try:
        scene = load_scene(path)
    except SceneError as exc:
        lines = exc.problems or (str(exc),)
        print(f"{path}: {len(lines)} schema error(s); fix these first "
              "(llm_planner/domains/household/world/scene.py has the schema):")
        for line in lines:
            print(f"  error: {line.removeprefix(f'{path}: ')}")
        return 1
    from llm_planner.domains.household.sim.world import check_in_pybullet
    from llm_planner.viz.household import layout_view
    from llm_planner.viz.topdown import save_png

    cfg = load_sim_config()
    check = check_layout(scene, cfg)
    findings = list(check.findings)
    stages = ["schema", "layout"]
    if not args.no_pybullet and not check.errors:
        findings += check_in_pybullet(scene, tuple(range(max(1, args.seeds))), cfg)
        stages.append(f"PyBullet ({max(1, args.seeds)} placements)")
    notes = [] if args.no_prior else prior_notes(scene)
    if notes:
        stages.append("commonsense prior")
    check.findings = findings
    picture = save_png(layout_view(check, cfg), out)
    errors = [f for f in findings if f.severity == ERROR]
    print(f"{path}: {scene.name}, {len(scene.rooms)} rooms, {len(scene.doorways)} doorways, {len(scene.furniture)} "
          f"furniture, {len(scene.object_names)} objects of {len(scene.object_types)} types; checked "
          f"{', '.join(stages)} in {time.perf_counter() - started:.1f} s")
    for finding in errors:
        print(f"  error: {finding}")
    for note in notes:
        print(f"  note: {note}")
    print(f"picture: {picture.path} ({picture.width}x{picture.height})")
    if errors:
        print(f"{len(errors)} error(s): the simulator and the benchmarks with --pybullet refuse this scene until they "
              f"are fixed")
        return 1
    print("ok: the scene loads in the symbolic model and in PyBullet" if not args.no_pybullet else
          "ok: the scene's schema and layout are fine (PyBullet not tried)")
    return 0


def _resolve(name: str) -> Path:
    from llm_planner.domains.gtamp.problems import gtamp_dir

    path = Path(name)
    if path.exists():
        return path
    candidate = gtamp_dir() / f"{name}.yaml"
    return candidate if candidate.exists() else resolve_scene_path(name)


def _is_gtamp(path: Path) -> bool:
    """A G-TAMP problem names a layout or a goal of atoms; a layout file has regions."""

    try:
        data = yaml.safe_load(path.read_text())
    except (OSError, yaml.YAMLError):
        return False
    return isinstance(data, dict) and "furniture" not in data and any(k in data for k in ("layout", "regions", "goal"))


# ----------------------------------------------------------------------- commonsense notes
def prior_notes(scene: Scene) -> list[str]:
    """What the offline backend's prior belief (LLM-MCTS §2.2) assumes for object types the curated
    commonsense file does not name, and furniture it never suggests."""
    from llm_planner.methods.llm_mcts.prior import build_prior

    backend = make_backend(backend="offline")
    world = WorldInfo.from_scene(scene)
    knowledge = scene_knowledge(backend.resources, world)
    notes = []
    odd = []
    # the file's own names and aliases
    named = load_commonsense(backend.config.get("offline.commonsense")).alias_index()
    for otype in scene.object_types:
        if name_to_text(otype) in named and knowledge.place_weights(otype):
            continue
        odd.append((otype, knowledge.known_type(otype)))
    if odd:
        prior = build_prior(backend, world, scene=scene.name, obj_types=[t for t, _ in odd])
        for otype, entry in odd:
            top = ", ".join(f"{p} {q:.2f}" for p, q in prior.top(otype, 3))
            if entry is None:
                why = "the commonsense file knows nothing like it"
            elif not knowledge.place_weights(otype):
                why = f"the commonsense file keeps '{entry}' in places this apartment lacks"
            else:
                why = f"it is not in the commonsense file; the offline prior treats it like '{entry}'"
            uniform = len(set(prior.probs[otype])) == 1
            assume = (f"a uniform belief over all {len(prior.places)} containers and surfaces "
                      f"({1 / len(prior.places):.3f} each): the robot will search for it" if uniform
                      else f"most likely {top}")
            notes.append(f"objects.{otype}: {why}; the offline prior will assume {assume} "
                         "(add it to llm_planner/domains/household/world/data/commonsense.yaml, or use "
                         "--backend openai)")
    for name in scene.furniture:  # where each receptacle's prior weight comes from
        notes.append(f"furniture.{name}: prior weight from {knowledge.describe_source(name)}")
    return notes


# ----------------------------------------------------------------------------------- G-TAMP
def _check_gtamp(path: Path, out: Path) -> int:
    from llm_planner.domains.gtamp.problems import check_problem_file
    from llm_planner.viz.gtamp import problem_view
    from llm_planner.viz.topdown import save_png

    started = time.perf_counter()
    report = check_problem_file(path)
    for line in report.errors:
        print(f"  error: {line}")
    if report.problem is not None:
        picture = save_png(problem_view(report.problem, problems=report.marks), out)
        print(f"{path}: G-TAMP problem {report.problem.name}, {len(report.problem.objects)} objects, "
              f"{len(report.problem.layout.regions)} regions, goal of {len(report.problem.goal)} atom(s); checked in "
              f"{time.perf_counter() - started:.1f} s")
        print(f"picture: {picture.path} ({picture.width}x{picture.height})")
    if report.errors:
        print(f"{len(report.errors)} error(s)")
        return 1
    print("ok")
    return 0
