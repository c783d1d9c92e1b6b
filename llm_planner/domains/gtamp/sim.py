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
from typing import Any

from llm_planner.domains.bullet import pybullet as p
from llm_planner.domains.geometry import BodyGeometry, GeometrySnapshot, JointGeometry
from llm_planner.domains.gtamp.codec import GTampCodecError, decode
from llm_planner.domains.gtamp.domain import OPERATORS, ConcreteAction, GoalAtom, GState, ObjPose, Pose2D, ProblemSpec
from llm_planner.domains.gtamp.geometry import atom_holds, region_under
from llm_planner.domains.gtamp.operators import GTampModel
from llm_planner.domains.gtamp.perception import GRASP_JOINTS, ROBOT
from llm_planner.domains.gtamp.world import GTampWorld
from llm_planner.domains.skill import SkillOutcome


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
    for pa, pb in zip(a.poses, b.poses, strict=True):
        if (pa is None) != (pb is None):
            return False
        if pa is not None and pb is not None and (math.dist((pa.x, pa.y, pa.z), (pb.x, pb.y, pb.z)) > tol
                                                  or abs(math.remainder(pa.yaw - pb.yaw, 2 * math.pi)) > tol):
            return False
    return True


class GTampSimulator:
    """:class:`GTampSim` behind the ``robot/skill`` service: a skill is an operator name and the JSON
    of a concrete action; the sensors report body poses and AABBs, what the gripper holds and the
    gripper orientation of the current grasp as two joints."""

    def __init__(self, problem: ProblemSpec) -> None:
        self.problem = problem
        self.sim = GTampSim(problem)
        self.last_path: list[tuple[float, float]] = []

    def execute_skill(self, name: str, args: list[str]) -> tuple[bool, str]:
        self.last_path = []
        try:
            action = self.parse(name, args)
        except GTampCodecError as exc:
            return False, f"bad skill request: {exc}"
        try:
            ok, reason = self.sim.execute(action)
            if ok and action.kappa is not None:
                self.last_path = [(q.x, q.y) for q in action.kappa.base_path]
            return ok, reason
        except (KeyError, IndexError, TypeError, ValueError) as exc:  # names or values the problem lacks
            return False, f"bad skill request: {type(exc).__name__}: {exc}"

    @staticmethod
    def parse(name: str, args: list[str]) -> ConcreteAction:
        """The concrete action of a skill request; GTampCodecError saying what is wrong."""
        if name not in OPERATORS:
            raise GTampCodecError(f"unknown G-TAMP skill {name!r} (known: {', '.join(OPERATORS)})")
        if len(args) != 1:
            raise GTampCodecError("args must hold exactly one element: the JSON of the concrete action")
        action = decode(args[0], ConcreteAction)
        if action.action.op != name:
            raise GTampCodecError(f"skill {name!r} does not match the action's operator {action.action.op!r}")
        return action

    def geometry(self) -> GeometrySnapshot:
        """The sensors' report of the world as it is now."""
        w = self.sim.world
        observed = self.sim.observe()  # syncs the bodies; only held/grasp (gripper sensors) are read from it
        bodies = [(name, "object", w.objects[i]) for i, name in enumerate(self.problem.object_names)]
        bodies += [(name, "door", body) for name, body in w.doors.items()]
        bodies.append((ROBOT, ROBOT, w.robot))
        out = []
        for name, kind, body in bodies:
            pos, orn = p.getBasePositionAndOrientation(body, physicsClientId=w.client)
            lo, hi = p.getAABB(body, physicsClientId=w.client)
            out.append(BodyGeometry(name, kind, tuple(pos), tuple(orn), tuple(lo), tuple(hi)))
        robot = out[-1]
        joints = []
        held = None
        if observed.held is not None and observed.grasp is not None:
            held = self.problem.object_names[observed.held]
            joints = [JointGeometry(GRASP_JOINTS[0], float(observed.grasp.pitch), 0.0),
                      JointGeometry(GRASP_JOINTS[1], float(observed.grasp.yaw), 0.0)]
        return GeometrySnapshot(self.problem.name, robot.position, robot.orientation, held, out, joints)

    def close(self) -> None:
        self.sim.close()


class GTampSimWorld:
    """:class:`GTampSim` as a world of the closed loop (benchmarks and tests, no ROS)."""

    def __init__(self, sim: Any) -> None:
        self.sim = sim

    def execute(self, action: ConcreteAction) -> SkillOutcome:
        ok, reason = self.sim.execute(action)
        return SkillOutcome(ok, reason)

    def observe(self) -> GState:
        return self.sim.observe()

    def full_state(self) -> GState:
        return self.sim.observe()

    def goal_reached(self, goal: tuple[GoalAtom, ...]) -> bool:
        state = self.sim.observe()
        return all(atom_holds(self.sim.problem, state, a) for a in goal)

    def loop_state(self) -> None:
        """The closed loop's guard counts household states only."""
        return None
