"""The PyBullet world: IK checked by forward kinematics, penetration-based collisions."""
from __future__ import annotations

import math

from llm_planner.domains.gtamp.domain import ObjPose
from llm_planner.domains.gtamp.geometry import gripper_orn


def test_ik_reaches_a_counter_and_not_the_far_wall(model_p2):
    world = model_p2.world
    region = model_p2.regions["counter2"]
    world.set_base(region.base_pose)
    x, y = region.to_world(0.1, 0.1)
    orn = gripper_orn(region.base_pose.theta, 0.3, 0.2)
    q = world.ik((x, y, region.height + 0.08), orn)
    assert q is not None
    pos, _ = world.tool_pose()
    assert math.dist(pos, (x, y, region.height + 0.08)) < 0.01
    assert world.ik((x, y + 2.0, region.height), orn) is None
    world.invalidate()


def test_collisions_are_penetrations_not_resting_contact(model_p2, p2):
    world = model_p2.world
    world.set_state(p2.initial)
    salter, bottle2 = world.objects[0], world.objects[1]
    counter = world.regions["counter2"]
    assert world.hits(salter, [counter, bottle2]) == []          # resting on the counter, apart
    pose = p2.initial.poses[1]
    world.object_pose(0, ObjPose(pose.x + 0.02, pose.y, pose.z, 0.0, "counter2"))
    assert world.hits(salter, [counter, bottle2]) == [bottle2]   # pushed into bottle2
    world.invalidate()
