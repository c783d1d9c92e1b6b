"""The names of the world a graph runs, for an assistant that phrases directives: rooms, furniture
(with the relation an object takes to it: ``inside`` or ``on``) and object types with their counts.

Only what a person standing in the apartment would name: no object's location, no prior weight.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any

from llm_planner.domains.gtamp.problems import load_problem, resolve_problem_path
from llm_planner.domains.household.world.scene import load_scene, resolve_scene_path
from llm_planner.domains.household.world.words import name_to_text
from llm_planner.errors import LlmPlannerError


def describe_world(domain: str, world: str) -> dict[str, Any]:
    """``{"domain", "world", "rooms": {room: [furniture ...]}, "furniture": {name: {"room",
    "relation"}}, "objects": {type: count}}`` of a household scene, names as people say them; for a G-TAMP problem its
    description, regions and objects. LlmPlannerError for another domain."""
    if domain == "household":
        scene = load_scene(world)
        rooms: dict[str, list[str]] = {name_to_text(name): [] for name in scene.rooms}
        for furniture in scene.furniture.values():
            rooms[name_to_text(furniture.room)].append(name_to_text(furniture.name))
        return {"domain": domain, "world": scene.name, "rooms": rooms,
                "furniture": {name_to_text(f.name): {"room": name_to_text(f.room), "relation": f.relation}
                              for f in scene.furniture.values()},
                "objects": {name_to_text(t.name): t.count for t in scene.object_types.values()}}
    if domain == "gtamp":
        problem = load_problem(world)
        return {"domain": domain, "world": problem.name, "description": problem.description,
                "rooms": {r.name: [g.name for g in problem.layout.regions if g.room == r.name]
                          for r in problem.layout.rooms},
                "objects": [o.name for o in problem.objects]}
    raise LlmPlannerError(f"unknown domain {domain!r}: the planner node runs household or gtamp")


def world_file(domain: str, world: str) -> Path:
    """The YAML file of the graph's scene (household) or problem (G-TAMP)."""
    return resolve_scene_path(world) if domain == "household" else resolve_problem_path(world)
