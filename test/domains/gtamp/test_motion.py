"""Base roadmap and swept volumes: the closed door is the only way between the rooms."""
from __future__ import annotations

from dataclasses import replace

from llm_planner.domains.gtamp.domain import Pose2D
from llm_planner.domains.gtamp.motion import poses_along, sweep_hits


def test_static_path_crosses_the_doorway_and_the_closed_door_blocks_it(model_p1, p1):
    base = model_p1.base
    start, goal = p1.layout.region("table1").base_pose, p1.layout.region("counter1").base_pose
    path = base.static_path(start, goal)
    assert path is not None and path[-1] == goal
    assert any(abs(q.x) < 0.1 for q in path)                     # through the doorway at x = 0
    world = model_p1.world
    door = world.doors["kitchen_door"]
    world.set_state(p1.initial)
    assert sweep_hits(world, path, (), [door]) == {door}
    world.set_state(p1.initial)
    assert base.free_path(start, goal, [door], None) is None
    opened = replace(p1.initial, doors_open=(True,))
    world.set_state(opened)
    assert base.free_path(start, goal, [door], None) is not None
    world.invalidate()


def test_poses_along_steps_and_ends_exactly_at_the_goal():
    poses = poses_along([(0.0, 0.0), (1.0, 0.0)], Pose2D(0.0, 0.0, 0.0), Pose2D(1.0, 0.0, 1.0))
    assert len(poses) == 11 and poses[-1] == Pose2D(1.0, 0.0, 1.0)
    assert abs(poses[5].theta - 0.5) < 1e-9
