"""GTampSim: the executing side of G-TAMP. It owns its own PyBullet world, executes concrete
actions (a(delta, kappa) from a planner) on the robot after checking them against its current
geometry, and perceives the state back from the bodies' poses.

This is the API the executor calls to run a concretized plan on the robot::

    sim = GTampSim(problem)
    planner.start(GTampTask(problem), sim.observe())
    while not sim.is_goal():
        decision = planner.decide(sim.observe())
        ok, reason = sim.execute(decision.action)        # (success, reason for failure)
        planner.record(decision.action, ok, reason, sim.observe())
"""
from __future__ import annotations

import math

from llm_planner.gtamp.domain import ConcreteAction, GState, ObjPose, Pose2D, ProblemSpec
from llm_planner.gtamp.geometry import atom_holds, region_under
from llm_planner.gtamp.operators import GTampModel
from llm_planner.gtamp.world import GTampWorld
from llm_planner.sim.bullet import pybullet as p


class GTampSim:
    """Executes concrete G-TAMP actions on a PyBullet robot; ``execute`` answers (success, reason)."""

    def __init__(self, problem: ProblemSpec, gui: bool = False) -> None:
        self.problem = problem
        self.world = GTampWorld(problem, gui=gui)
        self.checker = GTampModel(problem, world=self.world)
        self._state = problem.initial
        self.executed: list[tuple[str, bool, str]] = []

    def close(self) -> None:
        self.world.close()

    def execute(self, action: ConcreteAction) -> tuple[bool, str]:
        """Check ``action`` against the current geometry, then move the robot, the object and the
        door as it says. Returns ``(True, "")`` or ``(False, reason)``; a failed step changes nothing."""
        if not isinstance(action, ConcreteAction):
            return False, f"not a G-TAMP concrete action: {action!r}"
        reason = self.checker.verify(self._state, action)
        ok = not reason
        if ok:
            self._state = self.checker.apply(self._state, action)
        self.world.invalidate()
        self.world.set_state(self._state)
        self.executed.append((str(action.action), ok, reason))
        return ok, reason

    def observe(self) -> GState:
        """The state perceived from the bodies: object poses and supporting regions from geometry,
        door states from the panels' positions, the base pose; the held object from the gripper."""
        w = self.world
        w.set_state(self._state)
        c = w.client
        poses: list[ObjPose | None] = []
        for i, body in enumerate(w.objects):
            if self._state.held == i:
                poses.append(None)
                continue
            (x, y, z), orn = p.getBasePositionAndOrientation(body, physicsClientId=c)
            yaw = p.getEulerFromQuaternion(orn)[2]
            region = region_under(self.problem, i, ObjPose(x, y, z, yaw, ""))
            poses.append(ObjPose(x, y, z, yaw, region.name if region else ""))
        doors = []
        for d in self.problem.layout.doors:
            pos, _ = p.getBasePositionAndOrientation(w.doors[d.name], physicsClientId=c)
            doors.append(math.dist(pos, d.open_center) < math.dist(pos, d.closed_center))
        (bx, by, _), born = p.getBasePositionAndOrientation(w.robot, physicsClientId=c)
        base = Pose2D(bx, by, p.getEulerFromQuaternion(born)[2])
        return GState(base, tuple(poses), self._state.held, self._state.grasp, tuple(doors))

    def is_goal(self) -> bool:
        state = self.observe()
        return all(atom_holds(self.problem, state, a) for a in self.problem.goal)


def same_state(a: GState, b: GState, tol: float = 1e-3) -> bool:
    """Whether two states agree up to ``tol`` (metres / radians): perception noise, not a change."""
    if a.held != b.held or a.doors_open != b.doors_open or len(a.poses) != len(b.poses):
        return False
    if math.dist(a.base[:2], b.base[:2]) > tol or abs(math.remainder(a.base.theta - b.base.theta, 2 * math.pi)) > tol:
        return False
    for pa, pb in zip(a.poses, b.poses):
        if (pa is None) != (pb is None):
            return False
        if pa is not None and (math.dist((pa.x, pa.y, pa.z), (pb.x, pb.y, pb.z)) > tol  # type: ignore[union-attr]
                               or abs(math.remainder(pa.yaw - pb.yaw, 2 * math.pi)) > tol):  # type: ignore[union-attr]
            return False
    return True
