"""The robot body: joints, inverse kinematics with a reach check, the travel pose."""
from __future__ import annotations

import math

import pybullet as p
import pytest

from llm_planner.domains.household.sim.config import load_sim_config
from llm_planner.domains.household.sim.layout import Frame2D
from llm_planner.domains.household.sim.robot import ArmPose, Robot

CFG = load_sim_config()


@pytest.fixture(scope="module")
def robot():
    client = p.connect(p.DIRECT)
    r = Robot(client, CFG.robot)
    r.set_base(Frame2D(1.0, 2.0, 0.7))
    yield r
    p.disconnect(client)


def test_ik_reaches_targets_in_the_workspace(robot):
    base = robot.base_pose()
    for r, a, z in ((0.5, 0.0, 0.3), (1.0, 0.6, 1.2), (0.8, -1.0, 0.1), (1.3, 0.2, 1.6)):
        target = (base.x + r * math.cos(base.yaw + a), base.y + r * math.sin(base.yaw + a), z)
        pose, error = robot.solve_ik(target, 0.0)
        assert error < CFG.robot.ik.tolerance, (target, error)
        robot.set_arm(pose)
        assert math.dist(robot.ee_pose()[0], target) < CFG.robot.ik.tolerance
        for q, lo, hi in zip(pose.as_list(), robot.lower, robot.upper):
            assert lo - 1e-9 <= q <= hi + 1e-9


def test_ik_reports_targets_out_of_reach(robot):
    base = robot.base_pose()
    far = (base.x + 3.0, base.y, 0.5)
    high = (base.x + 0.5, base.y, 2.5)
    for target in (far, high):
        _, error = robot.solve_ik(target, 0.0)
        assert error > 0.1


def test_ik_leaves_the_robot_as_it_was(robot):
    pose = robot.travel_pose(0.3, 0.5)
    robot.set_arm(pose)
    robot.solve_ik((2.0, 2.5, 0.8), 0.0)
    assert robot.arm_pose().as_list() == pytest.approx(pose.as_list())


def test_travel_pose_keeps_the_gripper_over_the_base(robot):
    robot.set_arm(robot.travel_pose(0.3, 0.0))
    base = robot.base_pose()
    gx, gy, _ = robot.ee_pose()[0]
    local = base.to_local(gx, gy)
    assert abs(local[0]) < CFG.robot.base.size[0] / 2 and abs(local[1]) < CFG.robot.base.size[1] / 2


def test_arm_pose_round_trip(robot):
    pose = ArmPose(0.9, 0.4, (0.1, 0.2, 0.05, 0.0), -1.0)
    robot.set_arm(pose)
    assert robot.arm_pose().as_list() == pytest.approx(pose.as_list())
    assert robot.arm_pose().extension == pytest.approx(0.35)
