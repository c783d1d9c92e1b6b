"""Perception of the G-TAMP world from geometry (the perception node's computation) and the
perceived state read back from a percept (the executor's side); the problem file loaded for the
``problem`` parameter."""
from __future__ import annotations

from collections.abc import Mapping

from llm_planner.domains.geometry import BodyGeometry, GeometrySnapshot, quat, vec3, yaw_of
from llm_planner.domains.gtamp.codec import GTampCodecError
from llm_planner.domains.gtamp.domain import Grasp, GState, ObjPose, Pose2D, ProblemSpec
from llm_planner.domains.percept import Fact, Percept
from llm_planner.errors import ConfigError, LlmPlannerError

ROBOT = "robot"
#: the predicate perception uses to report the grasp of the held object (pitch, yaw, tool->object transform)
GRASP_PREDICATE = "HeldGrasp"
#: the robot's proprioceptive joints in the geometry (the gripper orientation of the current grasp)
GRASP_JOINTS = ("grasp_pitch", "grasp_yaw")


def load_gtamp_problem(name: str) -> ProblemSpec:
    """The problem spec; ConfigError naming the parameter when it cannot be loaded."""
    from llm_planner.domains.gtamp.problems import load_problem  # noqa: PLC0415 - heavy optional: problems loads pybullet at import

    try:
        return load_problem(name)
    except (LlmPlannerError, OSError, ValueError, KeyError) as exc:
        raise ConfigError(f"parameter 'problem' = {name!r}: {exc}") from None


class GeometryPerceiver:
    """The perceived GState and its geometric predicates from the geometry, with perception's own
    collision model built from the problem file (static geometry and shapes; never the simulator's
    state): object poses, the region each object rests on decided from its pose, door states from
    the door panels' positions, the base pose, the held object and its grasp transform from the
    gripper and forward kinematics."""

    def __init__(self, problem: ProblemSpec) -> None:
        from llm_planner.domains.gtamp.operators import GTampModel  # noqa: PLC0415 - heavy optional: operators loads pybullet at import
        from llm_planner.domains.gtamp.predicates import PredicateComputer  # noqa: PLC0415 - heavy optional: predicates loads pybullet at import

        self.problem = problem
        self.model = GTampModel(problem)
        self.predicates = PredicateComputer(self.model)

    def close(self) -> None:
        self.model.world.close()

    def perceive(self, geometry: GeometrySnapshot) -> dict[str, Percept]:
        state = self.state(geometry)
        facts: list[Fact] = [(f[0], tuple(f[1:])) for f in self.predicates.literals(state).facts()]
        if state.held is not None and state.grasp is not None:
            facts.append(grasp_fact(self.problem.object_names[state.held], state.grasp))
        return {"state": Percept(geometry.scene, self.model.room(state), tuple(facts), tuple(geometry.bodies),
                                 full_observation=True)}

    def state(self, geometry: GeometrySnapshot) -> GState:
        """The GState the geometry shows; GTampCodecError when a body is missing."""
        from llm_planner.domains.gtamp.geometry import region_under  # noqa: PLC0415 - heavy optional: geometry loads pybullet at import

        bodies = {b.name: b for b in geometry.bodies}
        held = self.problem.obj_index(geometry.held_object) if geometry.held_object else None
        poses: list[ObjPose | None] = []
        for i, name in enumerate(self.problem.object_names):
            if i == held:
                poses.append(None)
                continue
            body = _body(bodies, name)
            pose = ObjPose(*body.position, body.yaw, "")
            region = region_under(self.problem, i, pose)
            poses.append(ObjPose(*body.position, body.yaw, region.name if region else ""))
        doors = tuple(d.is_open_at(_body(bodies, d.name).position) for d in self.problem.layout.doors)
        base = Pose2D(geometry.robot_position[0], geometry.robot_position[1], geometry.robot_yaw)
        grasp = self._grasp(geometry, base, _body(bodies, geometry.held_object or "")) if held is not None else None
        return GState(base, tuple(poses), held, grasp, doors)

    def _grasp(self, geometry: GeometrySnapshot, base: Pose2D, held: BodyGeometry) -> Grasp:
        """The held object's transform in the tool frame (tool pose by forward kinematics with the
        arm at home), with the gripper orientation the robot reports as its grasp joints."""
        from llm_planner.domains.bullet import pybullet as p  # noqa: PLC0415 - heavy optional: bullet loads pybullet at import

        joints = {j.name: j.position for j in geometry.joints}
        if any(j not in joints for j in GRASP_JOINTS):
            raise GTampCodecError("the robot holds an object but reports no grasp joints")
        w = self.model.world
        w.set_base(base)
        w.set_arm(self.problem.layout.robot.home)
        tpos, torn = w.tool_pose()
        w.invalidate()
        inv_pos, inv_orn = p.invertTransform(tpos, torn)
        rel_pos, rel_orn = p.multiplyTransforms(inv_pos, inv_orn, held.position, held.orientation)
        return Grasp(joints[GRASP_JOINTS[0]], joints[GRASP_JOINTS[1]], tuple(rel_pos), tuple(rel_orn))


def _body(bodies: Mapping[str, BodyGeometry], name: str) -> BodyGeometry:
    if name not in bodies:
        raise GTampCodecError(f"the geometry has no body {name!r}")
    return bodies[name]


def grasp_fact(obj: str, grasp: Grasp) -> Fact:
    """The held object's grasp as a predicate (floats as ``repr`` text: exact round trip)."""
    values = (grasp.pitch, grasp.yaw, *grasp.tool_pos, *grasp.tool_orn)
    return GRASP_PREDICATE, (obj, *(repr(float(v)) for v in values))


def _floats(args: tuple[str, ...], where: str) -> tuple[float, ...]:
    try:
        return tuple(float(a) for a in args)
    except ValueError:
        raise GTampCodecError(f"{where}: expected numbers, got {list(args)!r}") from None


def state_from_percept(percept: Percept, problem: ProblemSpec) -> GState:
    """The perceived GState of a percept: object poses (regions from ``AtPosition .. on``), the
    robot's base, closed doors (``IsClosed``), the held object and its grasp (``HeldGrasp``)."""
    facts = percept.facts()
    bodies = {b.name: b for b in percept.bodies}
    if ROBOT not in bodies:
        raise GTampCodecError("perception reported no pose of the robot")
    on = {f[1]: f[3] for f in facts if f[0] == "AtPosition" and len(f) == 4 and f[2] == "on"}
    held_name = next((f[1] for f in facts if f[0] == "RobotHolding" and len(f) == 2), None)
    poses: list[ObjPose | None] = []
    for name in problem.object_names:
        if name == held_name:
            poses.append(None)
            continue
        if name not in bodies:
            raise GTampCodecError(f"perception reported no pose of {name!r}")
        b = bodies[name]
        poses.append(ObjPose(*b.position, b.yaw, on.get(name, "")))
    r = bodies[ROBOT]
    base = Pose2D(r.position[0], r.position[1], yaw_of(r.orientation))
    closed = {f[1] for f in facts if f[0] == "IsClosed" and len(f) == 2}
    doors = tuple(d not in closed for d in problem.door_names)
    held = problem.obj_index(held_name) if held_name else None
    grasp = None
    if held_name:
        g = next((f for f in facts if f[0] == GRASP_PREDICATE and len(f) == 11 and f[1] == held_name), None)
        if g is None:
            raise GTampCodecError(f"the robot holds {held_name!r} but perception reports no grasp")
        v = _floats(g[2:], GRASP_PREDICATE)
        grasp = Grasp(v[0], v[1], vec3(v[2:5]), quat(v[5:9]))
    return GState(base, tuple(poses), held, grasp, doors)
