"""``llm-planner snapshot``: a PNG of an apartment built in PyBullet (headless TinyRenderer).

    llm-planner snapshot --scene apartment_seen --seed 0 --out scene.png [--view perspective]

The objects stand where the scene's placement distribution puts them for ``--seed``; the robot
waits in its start room.
"""
from __future__ import annotations

import argparse
from pathlib import Path


def register(sub: argparse._SubParsersAction) -> None:
    parser = sub.add_parser("snapshot", help="render a PNG of an apartment (PyBullet, headless)",
                            description="Build the apartment in PyBullet with the object placement of --seed "
                            "and write a PNG (TinyRenderer, no display needed).")
    parser.add_argument("--scene", default="apartment_seen", help="scene name or YAML path (default apartment_seen)")
    parser.add_argument("--seed", type=int, default=0, help="object placement seed (default 0)")
    parser.add_argument("--out", required=True, type=Path, help="PNG file to write")
    parser.add_argument("--view", choices=("top", "perspective"), default="top", help="plan view or oblique view")
    parser.add_argument("--width", type=int, default=800, help="image width in pixels (default 800)")
    parser.add_argument("--height", type=int, default=600, help="image height in pixels (default 600)")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from llm_planner.errors import ConfigError
    from llm_planner.sim.world import HouseholdSim
    from llm_planner.world.scene import load_scene

    if args.width < 1 or args.height < 1:
        raise ConfigError(f"--width and --height must be positive, got {args.width}x{args.height}")
    scene = load_scene(args.scene)
    with HouseholdSim(scene, scene.sample_placement(args.seed), seed=args.seed) as sim:
        path = sim.render_png(args.out, args.width, args.height, args.view)
    print(f"wrote {path} ({args.width}x{args.height}, {args.view} view of {scene.name}, seed {args.seed})")
    return 0
