"""The household apartments (LLM-MCTS, Levy-Karpas, SayCanPay) as a :class:`Domain`.

Scene from the ``scene`` parameter; the PyBullet apartment
(:class:`llm_planner.domains.household.sim.world.HouseholdSim`) as the simulator; perception from
geometry (:mod:`llm_planner.domains.household.sim.perception`) on two topics: ``state`` (the robot's
partial observation, LLM-MCTS App. A.5, with the robot's own pose), which any robot of the contract
publishes, and ``full_state`` (the simulator's privileged view, only for planners that see the full
state); directives translated to goals (:mod:`llm_planner.translation`).

A ``walk`` of a plan goes to the pose of its place (:mod:`llm_planner.domains.household.places`:
the room, the furniture, or the furniture where the robot last saw the object) as a
``navigate_to_pose`` goal; the other actions are ``robot/skill`` goals carrying the poses of their
furniture. The goal is judged on what the robot has seen (:class:`SeenWorld`).
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from llm_planner.adapters.base import Domain
from llm_planner.clarification import Option, Question
from llm_planner.domains.geometry import GeometrySnapshot
from llm_planner.domains.household.language.text import goal_to_text
from llm_planner.domains.household.places import PlacePose, PlacePoses, place_poses
from llm_planner.domains.household.sim.perception import PERCEIVED_PREDICATES, perceive, perceive_full, predicates
from llm_planner.domains.household.sim.skills import SkillFailed
from llm_planner.domains.household.world.episode import Task, unrelated_move
from llm_planner.domains.household.world.scene import load_scene
from llm_planner.domains.household.world.seen import SeenWorld
from llm_planner.domains.household.world.symbolic import (
    Action,
    Goal,
    Household,
    Observation,
    State,
    goal_from_lists,
    goal_to_lists,
)
from llm_planner.domains.percept import Fact, Percept, Translation
from llm_planner.domains.shapes import Frame2D
from llm_planner.domains.skill import Navigate, PlaceCoverage, Pose2D, RobotCommand, SkillOutcome, SkillRequest
from llm_planner.planners.base import Planner, available, create
from llm_planner.translation import make_translator, read_answer
from llm_planner.viz.markers import markers_from_geometry

ROBOT = "robot"


class HouseholdDomain(Domain):
    name = "household"
    perception_topics = ("state",)
    privileged_topics = ("full_state",)
    navigates = True
    counts_loops = True

    def __init__(self, params: Mapping[str, Any]) -> None:
        super().__init__(params)
        self.scene = load_scene(self.params["scene"])
        self.household = Household(self.scene)
        self._translate: Any = None

    @property
    def world_name(self) -> str:
        return f"scene '{self.scene.name}'"

    # ---------------------------------------------------------------- planners
    @classmethod
    def planner_names(cls) -> list[str]:
        return available("household")


    def make_planner(self, name: str) -> Planner:
        return create(self.registered_planner(name), backend=self.language_model(), seed=self.params["seed"])

    def make_task(self, directive: str, goal: Goal, timeout_s: float = 0.0) -> Task:
        return Task(directive=directive, goal=goal, household=self.household, max_steps=self.params["max_steps"])

    # ---------------------------------------------------------------- directives and goals
    def ground(self, directive: str, planner: str) -> Translation:
        if self._translate is None:
            self._translate = make_translator(self.household, self.language_model)
        translation = self._translate(directive, planner)
        goal = self.household.check_goal(translation.goal)
        return Translation(goal, translation.message, translation.llm_requests)

    def goal_lists(self, goal: Goal) -> list:
        return goal_to_lists(goal)

    def goal_from_lists(self, items: Any) -> Goal:
        return self.household.check_goal(goal_from_lists(items))

    def goal_text(self, goal: Goal) -> str:
        return goal_to_text(goal)

    def read_answer(self, question: Question, text: str) -> Option | None:
        return read_answer(self.household, self.language_model(), question, text)

    # ---------------------------------------------------------------- the robot
    def make_simulator(self) -> HouseholdSimulator:
        return HouseholdSimulator(self.scene, self.params["seed"])

    def make_perceiver(self) -> HouseholdPerceiver:
        return HouseholdPerceiver(self.household)

    def markers(self, geometry: GeometrySnapshot) -> list[Any]:
        return markers_from_geometry(geometry, self.scene)

    def place_poses(self) -> PlacePoses:
        """Where the robot goes for each room and furniture of the scene (map frame)."""
        return place_poses(self.scene)

    def place_coverage(self) -> PlaceCoverage:
        """Poses of the rooms and furniture (where a skill works, ``switchon``/``switchoff`` at the
        furniture a thing stands at, ``Household.switch_at``)."""
        poses = self.place_poses()
        return PlaceCoverage(len(poses.poses), sum(p.source == "scene" for p in poses.poses.values()),
                             dict(poses.missing))

    def percept_problems(self, percept: Percept) -> tuple[list[str], list[str]]:
        """Names the scene lacks, a robot not in one of its rooms, an object in two places, ON/OFF of
        a thing that does not switch or in both states (problems); predicates no planner reads, a
        missing pose of the robot, switchable things of the robot's room it says nothing of (warnings)."""
        household = self.household
        problems: list[str] = []
        rooms = [args[1] for name, args in percept.predicates if name == "IN_ROOM" and args[:1] == ("robot",)]
        if not rooms:
            problems.append("no IN_ROOM(robot, ROOM)")
        elif rooms[0] not in household.scene.rooms:
            problems.append(f"IN_ROOM names '{rooms[0]}', not a room of the scene ({', '.join(household.scene.rooms)})")
        names = (set(household.objects) | set(household.furniture) | set(household.scene.rooms)
                 | set(household.switchables) | {"robot"})
        unknown = sorted({a for _, args in percept.predicates for a in args if a not in names})
        if unknown:
            problems.append(f"names the scene does not have: {', '.join(unknown[:5])}")
        places: dict[str, str] = {}
        for name, args in percept.predicates:
            if name in ("INSIDE", "ON") and len(args) == 2:
                if args[0] in places and places[args[0]] != args[1]:
                    problems.append(f"{args[0]} is both in/on {places[args[0]]} and {args[1]}")
                places[args[0]] = args[1]
        problems += _switch_problems(percept, household)
        odd = sorted({name for name, _ in percept.predicates if name not in PERCEIVED_PREDICATES})
        warnings = [f"predicates the planner does not read: {', '.join(odd)}"] if odd else []
        if not any(b.name == "robot" for b in percept.bodies):
            warnings.append("no pose of the robot among objects (the navigation probe and pictures need it)")
        silent = _unreported_switches(percept, household, rooms[0] if rooms else "")
        if silent:
            warnings.append(f"no ON or OFF of {', '.join(silent[:5])} (switchable things of the robot's room): "
                            "goals to switch them on or off cannot be judged")
        return problems, warnings

    def place_pose(self, name: str) -> PlacePose:
        """Where the robot goes for a room or furniture (SceneError when the scene gives it no pose)."""
        return self.place_poses()[name]

    def robot_command(self, action: Action, observation: Observation) -> RobotCommand:
        """``walk`` as a navigation goal to the pose of its place (refused, as the symbolic model
        refuses it, when the observation shows the target out of sight); every other action as a
        skill with the pose of each furniture argument (seed 000 App. A.4's actions), and for
        ``switchon``/``switchoff`` the pose of the furniture the thing stands at."""
        verb, args = action
        if verb != "walk":
            switch_at = self.household.switch_at
            if verb in ("switchon", "switchoff") and len(args) == 1 and args[0] in switch_at:
                return SkillRequest(verb, tuple(args), (self._pose(switch_at[args[0]]),))
            poses = tuple(self._pose(a) if a in self.household.furniture_room else None for a in args)
            return SkillRequest(verb, tuple(args), poses)
        target = args[0]
        household = self.household
        if target in household.scene.rooms:
            return Navigate(target, self._pose(target))
        if target in household.furniture_room:
            if household.furniture_room[target] != observation.room:
                return SkillOutcome(False, f"{target} is not visible")
            return Navigate(target, self._pose(target))
        if target in household.index:
            if target == observation.holding:
                return SkillOutcome(False, f"already holding {target}")
            place = next((f for _, o, f in observation.relations if o == target), None)
            if place is None:
                return SkillOutcome(False, f"{target} is not visible")
            return Navigate(place, self._pose(place))
        return SkillOutcome(False, f"unknown target '{target}'")

    def _pose(self, name: str) -> Pose2D:
        pose = self.place_pose(name)
        return (pose.x, pose.y, pose.yaw)

    def observation(self, percepts: Mapping[str, Percept]) -> Observation:
        return observation_from_percept(percepts["state"], self.household)

    def full_state(self, percepts: Mapping[str, Percept]) -> State:
        return state_from_percept(percepts["full_state"], self.household)

    def goal_reached(self, percepts: Mapping[str, Percept], goal: Goal) -> bool:
        """The goal holds in what the robot sees now (``perception/state``)."""
        seen = SeenWorld(self.household)
        seen.update(self.observation(percepts))
        return seen.goal_reached(goal)

    def memory(self) -> HouseholdMemory:
        return HouseholdMemory(self)

    # ---------------------------------------------------------------- text
    @classmethod
    def step_text(cls, task: Any) -> HouseholdText:
        return HouseholdText()

    @classmethod
    def unrelated_move(cls, task: Task, action: Any) -> bool:
        return unrelated_move(task, action)


class HouseholdMemory:
    """What the robot has seen during one task (:class:`SeenWorld`), from its ``perception/state``."""

    def __init__(self, domain: HouseholdDomain) -> None:
        self.domain = domain
        self.seen = SeenWorld(domain.household)

    def update(self, percepts: Mapping[str, Percept]) -> None:
        self.seen.update(self.domain.observation(percepts))

    def goal_reached(self, goal: Goal) -> bool:
        return self.seen.goal_reached(goal)

    def state(self) -> State:
        return self.seen.state()


class HouseholdText:
    @staticmethod
    def format_action(action: Action) -> str:
        return str(action)

    @staticmethod
    def summarize(observation: Observation) -> str:
        return describe_observation(observation)


class HouseholdSimulator:
    """The PyBullet apartment behind ``robot/skill`` (grab, open, close, putin, puton, switchon,
    switchoff by verb and arguments) and ``navigate_to_pose`` (a drive to any free pose, planned and
    checked first). What is on at the start is the episode's of ``seed``."""

    def __init__(self, scene: Any, seed: int) -> None:
        from llm_planner.domains.household.sim.world import HouseholdSim  # noqa: PLC0415 - heavy optional: world loads pybullet at import; PyBullet only where the simulator runs

        self.sim = HouseholdSim(scene, scene.sample_placement(seed), seed=seed,
                                switched_on=scene.sample_switched_on(seed))

    def execute_skill(self, name: str, args: list[str]) -> tuple[bool, str]:
        verb = name.strip().lower()
        if verb == "walk":
            return False, "going places is navigate_to_pose (nav2_msgs/action/NavigateToPose), not a skill"
        result = self.sim.execute(Action(verb, tuple(a.strip() for a in args)))
        return bool(result.success), result.reason

    def plan_navigation(self, pose: Pose2D) -> tuple[list[Pose2D], str]:
        try:
            poses = self.sim.plan_navigation(Frame2D(*pose))
        except SkillFailed as exc:
            return [], str(exc)
        return [(q.x, q.y, q.yaw) for q in poses], ""

    def move_base(self, pose: Pose2D) -> None:
        self.sim.move_base(Frame2D(*pose))

    def base_pose(self) -> Pose2D:
        q = self.sim.robot.base_pose()
        return (q.x, q.y, q.yaw)

    @property
    def last_path(self) -> list[tuple[float, float]]:
        return list(self.sim.last_path)

    def geometry(self) -> GeometrySnapshot:
        return self.sim.geometry()

    def render_png(self, path: str, view: str) -> str:
        return str(self.sim.render_png(path, view=view))

    def close(self) -> None:
        self.sim.close()


class HouseholdPerceiver:
    """Predicates from geometry, never from the simulator's bookkeeping: the partial observation
    (``state``) and the privileged full view (``full_state``)."""

    def __init__(self, household: Household) -> None:
        self.household = household

    def perceive(self, geometry: GeometrySnapshot) -> dict[str, Percept]:
        observation = perceive(self.household.scene, geometry)
        visible = {o for _, o, _ in observation.relations} | ({observation.holding} if observation.holding else set())
        visible.add(ROBOT)  # the robot's own pose (check-robot, pictures)
        state = perceive_full(self.household.scene, geometry, self.household)
        return {
            "state": Percept(geometry.scene, observation.room, tuple(predicates(observation)),
                             tuple(b for b in geometry.bodies if b.name in visible)),
            "full_state": Percept(geometry.scene, state.room, tuple(state_predicates(self.household, state)),
                                  tuple(geometry.bodies), full_observation=True),
        }

    def close(self) -> None:
        pass


# ------------------------------------------------------------------ predicates <-> observations
def _switch_problems(percept: Percept, household: Household) -> list[str]:
    """ON(thing) / OFF(thing) (one argument) of a thing the scene cannot switch, or of one in both states."""
    states: dict[str, set[str]] = {}
    for name, args in percept.predicates:
        if (name == "OFF" or name == "ON" and len(args) == 1) and args:
            states.setdefault(args[0], set()).add(name)
    problems = []
    odd = sorted(d for d in states if d not in household.switch_at)
    if odd:
        problems.append(f"ON/OFF of {', '.join(odd[:5])}, which the scene cannot switch "
                        f"(switchable: {', '.join(household.switchables) or 'nothing'})")
    both = sorted(d for d, s in states.items() if len(s) > 1)
    if both:
        problems.append(f"{', '.join(both[:5])} both ON and OFF")
    return problems


def _unreported_switches(percept: Percept, household: Household, room: str) -> list[str]:
    """The switchable things of ``room`` the percept says neither ON(thing) nor OFF(thing) of."""
    told = {args[0] for name, args in percept.predicates if name in ("ON", "OFF") and len(args) == 1}
    return sorted(household.room_switchables.get(room, frozenset()) - told)


def state_predicates(household: Household, state: State) -> list[Fact]:
    """The full state as predicates (the privileged topic): every relation, container and switch state."""
    preds: list[Fact] = [("IN_ROOM", (ROBOT, state.room))]
    if state.near:
        preds.append(("CLOSE", (ROBOT, state.near)))
    if state.holding:
        preds.append(("HOLDING", (ROBOT, state.holding)))
    for c in household.furniture:
        if household.is_container[c]:
            preds.append(("OPEN" if c in state.opened else "CLOSED", (c,)))
    preds += [("ON" if d in state.switched_on else "OFF", (d,)) for d in household.switchables]
    preds += [(rel.upper(), (o, f)) for rel, o, f in sorted(household.facts(state))]
    return preds


def _split(predicates: Iterable[Fact],
           furniture: Mapping[str, str]) -> tuple[str, str | None, str | None, set, set, set, set, set]:
    """Robot room, the furniture it is near (CLOSE also names objects there), holding, relations, open,
    closed, switched on (``ON(thing)``, one argument), switched off."""
    room, near, holding = "", None, None
    relations: set[tuple[str, str, str]] = set()
    opened: set[str] = set()
    closed: set[str] = set()
    on: set[str] = set()
    off: set[str] = set()
    for name, args in predicates:
        if name == "IN_ROOM" and args[:1] == (ROBOT,):
            room = args[1]
        elif name == "CLOSE" and args[:1] == (ROBOT,) and args[1] in furniture:
            near = args[1]
        elif name == "HOLDING":
            holding = args[-1]
        elif name in ("INSIDE", "ON") and len(args) == 2:
            relations.add((name.lower(), args[0], args[1]))
        elif name == "OPEN":
            opened.add(args[0])
        elif name == "CLOSED":
            closed.add(args[0])
        elif name == "ON" and len(args) == 1:
            on.add(args[0])
        elif name == "OFF" and len(args) == 1:
            off.add(args[0])
    return room, near, holding, relations, opened, closed, on, off


def observation_from_percept(percept: Percept, household: Household) -> Observation:
    """The robot's observation from its ``perception/state`` percept (ON/OFF of the room's switchable things)."""
    room, near, holding, relations, opened, closed, on, off = _split(percept.predicates, household.furniture_room)
    room = room or percept.room
    seen = household.room_surfaces.get(room, frozenset()) | frozenset(opened)
    switches = household.switch_at
    return Observation(room=room, near=near, holding=holding, relations=frozenset(relations),
                       open_containers=frozenset(opened), closed_containers=frozenset(closed), seen_places=seen,
                       switched_on=frozenset(d for d in on if d in switches),
                       switched_off=frozenset(d for d in off - on if d in switches))


def state_from_percept(percept: Percept, household: Household) -> State:
    """The full state from the privileged full-observation percept."""
    room, near, holding, relations, opened, _, on, _ = _split(percept.predicates, household.furniture_room)
    where = {o: f for _, o, f in relations}
    placement = tuple(where.get(o) for o in household.objects)
    return State(room=room or percept.room, near=near, holding=holding, placement=placement, opened=frozenset(opened),
                 switched_on=frozenset(d for d in on if d in household.switch_at))


def describe_observation(observation: Observation, limit: int = 12) -> str:
    """A short human-readable summary of an observation (for feedback, status messages and the demo)."""
    parts = [f"in {observation.room}"]
    if observation.near:
        parts.append(f"near {observation.near}")
    parts.append(f"holding {observation.holding}" if observation.holding else "hand empty")
    if observation.open_containers:
        parts.append("open: " + ", ".join(sorted(observation.open_containers)))
    relations = sorted(observation.relations, key=lambda r: (r[2], r[1]))
    shown = [f"{o} {rel} {f}" for rel, o, f in relations[:limit]]
    if len(relations) > limit:
        shown.append(f"... {len(relations) - limit} more")
    if shown:
        parts.append("sees " + ", ".join(shown))
    return "; ".join(parts)
