"""STaLM's G-TAMP kitchen-and-hall problems (seed 003) as a :class:`Domain`.

Problem from the ``problem`` parameter (P1..P6 or a YAML path); the simulator executes
concretized actions (:class:`ConcreteAction`, sent as JSON by :mod:`llm_planner.gtamp.codec`) on
:class:`llm_planner.gtamp.sim.GTampSim` and reports what its sensors see; perception rebuilds the
perceived :class:`GState` from that geometry and computes the geometric predicates (AtPosition,
PickOccludedBy, PlaceOccludedBy, ...) on its own collision model; a directive names the problem's
goal through the tiny grammar of :mod:`llm_planner.gtamp_directive` (no language model).
"""
from __future__ import annotations

from typing import Any, Mapping

from llm_planner.domains.base import Domain, Fact, Percept, Translation
from llm_planner.errors import ConfigError, GoalError, LlmPlannerError
from llm_planner.execution import SkillOutcome
from llm_planner.gtamp.codec import GTampCodecError, decode, encode
from llm_planner.gtamp.domain import OPERATORS, ConcreteAction, GoalAtom, Grasp, GState, ObjPose, Pose2D, ProblemSpec
from llm_planner.planners.base import Planner
from llm_planner.sim.geometry import BodyGeometry, GeometrySnapshot, JointGeometry, yaw_of

ROBOT = "robot"
#: the predicate perception uses to report the grasp of the held object (pitch, yaw, tool->object transform)
GRASP_PREDICATE = "HeldGrasp"
#: the robot's proprioceptive joints in the geometry (the gripper orientation of the current grasp)
GRASP_JOINTS = ("grasp_pitch", "grasp_yaw")


def load_gtamp_problem(name: str) -> ProblemSpec:
    """The problem spec; ConfigError naming the parameter when it cannot be loaded."""
    from llm_planner.gtamp.problems import load_problem

    try:
        return load_problem(name)
    except (LlmPlannerError, OSError, ValueError, KeyError) as exc:
        raise ConfigError(f"parameter 'problem' = {name!r}: {exc}") from None


class GTampDomain(Domain):
    name = "gtamp"
    perception_topics = ("state",)

    def __init__(self, params: Mapping[str, Any], problem: ProblemSpec | None = None) -> None:
        super().__init__(params)
        self.problem = problem or load_gtamp_problem(self.params["problem"])

    @property
    def world_name(self) -> str:
        return f"G-TAMP problem '{self.problem.name}'"

    # ---------------------------------------------------------------- planners
    @classmethod
    def planner_names(cls) -> list[str]:
        from llm_planner.planners.stalm import PLANNERS, registry_name

        return sorted(registry_name(m) for m in PLANNERS)

    @classmethod
    def resolve_planner(cls, name: str) -> str:
        """A registry name (``gtamp_uct``) or a method name of the seed's tables (``uct``)."""
        from llm_planner.planners.stalm import PLANNERS, registry_name

        if name in PLANNERS:
            return registry_name(name)
        return super().resolve_planner(name)


    def make_planner(self, name: str) -> Planner:
        """A G-TAMP planner; the methods that ask a language model get a plan source on the
        process's LanguageModel (its request counts are the planner's own)."""
        from llm_planner.gtamp.llm_source import PlanSource
        from llm_planner.planners.base import create
        from llm_planner.planners.stalm import LLM_METHODS, PLANNERS, registry_name

        registered = self.resolve_planner(name)
        method = next(m for m in PLANNERS if registry_name(m) == registered)
        source = PlanSource(self.language_model(), self.params["seed"]) if method in LLM_METHODS else None
        return create(registered, backend=self.params["llm_backend"], seed=self.params["seed"], plan_source=source)

    def make_task(self, directive: str, goal: tuple[GoalAtom, ...], timeout_s: float = 0.0) -> Any:
        from llm_planner.planners.stalm import GTampTask

        return GTampTask(self.problem.with_goal(goal), time_budget_s=timeout_s or None,
                         max_steps=self.params["max_steps"], directive=directive)

    def close_planner(self, planner: Planner) -> None:
        ctx = getattr(planner, "ctx", None)
        if ctx is not None:
            ctx.model.world.close()

    # ---------------------------------------------------------------- directives and goals
    def ground(self, directive: str, planner: str) -> Translation:
        from llm_planner.gtamp_directive import parse_directive

        goal, how = parse_directive(directive, self.problem)
        return Translation(goal, f"goal: {how}")

    def goal_lists(self, goal: tuple[GoalAtom, ...]) -> list:
        return [["AtPosition", a.obj, a.direction, a.ref] for a in goal]

    def goal_from_lists(self, items: Any) -> tuple[GoalAtom, ...]:
        from llm_planner.gtamp.problems import parse_goal

        if not isinstance(items, list):
            raise GoalError('the goal must be a JSON list of ["AtPosition", object, direction, reference]')
        atoms = []
        for item in items:
            if not (isinstance(item, list) and len(item) == 4 and item[0] == "AtPosition"):
                raise GoalError(f'goal atom {item!r} must be ["AtPosition", object, direction, reference]')
            atoms.append(item[1:])
        return parse_goal(self.problem, atoms, where="goal")

    # ---------------------------------------------------------------- the robot
    def make_simulator(self) -> "GTampSimulator":
        return GTampSimulator(self.problem)

    def make_perceiver(self) -> "GeometryPerceiver":
        return GeometryPerceiver(self.problem)

    def markers(self, geometry: GeometrySnapshot) -> list[Any]:
        from llm_planner.viz.markers import markers_from_problem

        return markers_from_problem(self.problem, geometry)

    def skill_call(self, action: ConcreteAction) -> tuple[str, list[str]]:
        return action.action.op, [encode(action)]

    def observation(self, percepts: Mapping[str, Percept]) -> GState:
        return state_from_percept(percepts["state"], self.problem)

    def goal_reached(self, percepts: Mapping[str, Percept], goal: tuple[GoalAtom, ...]) -> bool:
        facts = percepts["state"].facts()
        return all(("AtPosition", a.obj, a.direction, a.ref) in facts for a in goal)

    # ---------------------------------------------------------------- text
    @classmethod
    def step_text(cls, task: Any) -> "GTampText":
        return GTampText(task.problem)


class GTampText:
    """Task actions as the seed writes them; a state as what the robot holds and where objects rest."""

    def __init__(self, problem: ProblemSpec) -> None:
        self.problem = problem

    @staticmethod
    def format_action(action: ConcreteAction) -> str:
        return str(action.action)

    def summarize(self, state: GState) -> str:
        names = self.problem.object_names
        held = f"holding {names[state.held]}" if state.held is not None else "hand empty"
        resting = [f"{n} on {p.region or '?'}" for n, p in zip(names, state.poses) if p is not None]
        closed = [d for d, is_open in zip(self.problem.door_names, state.doors_open) if not is_open]
        parts = [held, ", ".join(resting)] + ([f"closed: {', '.join(closed)}"] if closed else [])
        return "; ".join(p for p in parts if p)


# ------------------------------------------------------------------------------ simulator
class GTampSimulator:
    """:class:`GTampSim` behind the ``robot/skill`` service: a skill is an operator name and the JSON
    of a concrete action; the sensors report body poses and AABBs, what the gripper holds and the
    gripper orientation of the current grasp as two joints."""

    def __init__(self, problem: ProblemSpec) -> None:
        from llm_planner.gtamp.sim import GTampSim  # PyBullet only where the simulator runs

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
        from llm_planner.sim.bullet import pybullet as p

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
        from llm_planner.gtamp.geometry import atom_holds

        state = self.sim.observe()
        return all(atom_holds(self.sim.problem, state, a) for a in goal)


# ------------------------------------------------------------------------------ perception
class GeometryPerceiver:
    """The perceived GState and its geometric predicates from the geometry, with perception's own
    collision model built from the problem file (static geometry and shapes; never the simulator's
    state): object poses, the region each object rests on decided from its pose, door states from
    the door panels' positions, the base pose, the held object and its grasp transform from the
    gripper and forward kinematics."""

    def __init__(self, problem: ProblemSpec) -> None:
        from llm_planner.gtamp.operators import GTampModel
        from llm_planner.gtamp.predicates import PredicateComputer

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
        from llm_planner.gtamp.geometry import region_under

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
        from llm_planner.sim.bullet import pybullet as p

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
        grasp = Grasp(v[0], v[1], v[2:5], v[5:9])
    return GState(base, tuple(poses), held, grasp, doors)
