"""The household world in PyBullet and the robot's skills.

:class:`HouseholdSim` builds an apartment from a scene file (walls with doorways, containers with
shelves and a sliding door, surfaces, objects) plus the mobile manipulator of ``robot.yaml``, and
executes the symbolic model's actions as real robot motions:

``walk``    base motion along a grid path through doorways, every pose checked against the walls
            and furniture (PyBullet closest points) before the robot moves;
``grab``    inverse kinematics to the object, a collision-checked arm motion, a fixed constraint
            between gripper and object, and the arm carrying it back over the base;
``puton`` / ``putin``  a free spot sampled on the surface / inside the container (rejection
            sampling against the other objects' AABBs, reachable by IK), the arm lowering the
            object there, release, and a few physics steps to let it settle;
``open`` / ``close``  the arm reaches the door handle and the door joint moves;
``switchon`` / ``switchoff``  the arm reaches the front of the thing's furniture and the thing
            changes state (its look lights up or goes dark, :mod:`.switches`).

The simulator owns one part per job, each given the shared :class:`~.host.SimHost` (the built
world) in its constructor: ``sensing`` (:mod:`.sensing`: what the robot reads back from the
geometry), ``manipulation`` (:mod:`.manipulation`: the arm, ``grab``, ``puton``, ``putin``, and the
undoing of a failed skill), ``driving`` (:mod:`.driving`: the base, ``walk``), ``doors``
(:mod:`.doors`: ``open``, ``close``) and ``switches`` (:mod:`.switches`: what is on, its looks,
``switchon``, ``switchoff``). This module builds the world, checks each skill's
preconditions and dispatches it to its part.

Preconditions are read from the geometry (with :mod:`llm_planner.domains.household.sim.perception`), not from any
bookkeeping, and follow the symbolic model's rules. A skill that cannot be done returns
``SkillResult(False, reason)`` and leaves the world exactly as it was.

Simplifications, on purpose:

* Motion is kinematic (poses are set, then checked with ``getClosestPoints``); physics steps run
  only where physics matters: a released object settling, objects dropping when the one they
  rested on is taken.
* The base, the arm and a carried object are checked against walls and furniture (container
  walls, shelves and doors included). Other movable objects are not obstacles for the arm: the
  symbolic model has no occlusion, and objects sit apart on their supports.
* Container doors are panels that slide straight up (a prismatic joint): side-hinged leaves
  opening 90 degrees would sweep into neighbouring appliances and into the robot's place at
  them in the shipped kitchens, making legal symbolic actions impossible.
* ``open``/``close``: the arm reaches the door's handle, then the door's own joint moves.
* Crowded surfaces: an object may rest on another one or overhang a surface edge a little
  (its centre well over the top); perception reads such stacks as ON the surface.
* ``reset`` checks that each sampled spot can be grasped from (IK, grasp and lifted pose), not
  every intermediate pose of the arm motion; ``grab`` checks them all.
"""
from __future__ import annotations

import random
import time
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path

from llm_planner.domains.bullet import pybullet as p
from llm_planner.domains.geometry import ROBOT, WALL, GeometrySnapshot
from llm_planner.domains.household.sim import perception
from llm_planner.domains.household.sim.builder import WorldBodies, build_world
from llm_planner.domains.household.sim.check import ERROR, Finding, LayoutCheck, check_layout
from llm_planner.domains.household.sim.config import SimConfig, load_sim_config
from llm_planner.domains.household.sim.doors import Doors
from llm_planner.domains.household.sim.driving import Driving
from llm_planner.domains.household.sim.host import SimHost
from llm_planner.domains.household.sim.layout import FurnitureLayout, Wall, scene_layout, wall_layout
from llm_planner.domains.household.sim.manipulation import Manipulation
from llm_planner.domains.household.sim.navigation import BasePlanner
from llm_planner.domains.household.sim.render import render_png
from llm_planner.domains.household.sim.robot import Robot
from llm_planner.domains.household.sim.sensing import Sensing
from llm_planner.domains.household.sim.skills import Point, SkillFailed, SkillResult
from llm_planner.domains.household.sim.switches import Switches, build_looks
from llm_planner.domains.household.world.scene import Scene
from llm_planner.domains.household.world.symbolic import (
    INSIDE,
    ON,
    VERB_ARITY,
    Action,
    Goal,
    Household,
    Observation,
    State,
)
from llm_planner.domains.shapes import Frame2D
from llm_planner.domains.skill import SkillOutcome
from llm_planner.errors import SceneError


class HouseholdSim:
    """One apartment in its own PyBullet client (DIRECT unless ``gui``).

    >>> # with HouseholdSim(load_scene("apartment_seen"), scene.sample_placement(0)) as sim:
    >>> #     sim.execute(Action("walk", ("kitchen",)))

    ``switched_on``: the switchable things that are on at the start (the episode's
    ``scene.sample_switched_on(seed)``; none by default).

    Raises SceneError (PlacementError) when the scene fails the layout check or its objects do
    not fit where ``placement`` puts them."""

    def __init__(self, scene: Scene, placement: Mapping[str, str], *, gui: bool = False, seed: int = 0,
                 config: SimConfig | None = None, switched_on: Iterable[str] = ()) -> None:
        self.scene = scene
        self.cfg = config or load_sim_config()
        self.client = p.connect(p.GUI if gui else p.DIRECT)
        self.timings: dict[str, list[float]] = defaultdict(list)
        try:
            self.host = self._build(random.Random(seed))
            self.sensing = Sensing(self.host)
            self.manipulation = Manipulation(self.host, self.sensing)
            self.driving = Driving(self.host, self.manipulation)
            self.doors = Doors(self.host, self.sensing, self.manipulation)
            looks = build_looks(self.client, scene, self.host.layouts, self.cfg)  # visual only, after every body
            self.switches = Switches(self.host, self.sensing, self.manipulation, looks)
            self.host.goals = self.driving.make_goals()
            self.reset(placement, switched_on=switched_on)
        except BaseException:
            p.disconnect(self.client)
            raise

    # ================================================================ construction
    def _build(self, rng: random.Random) -> SimHost:
        cfg, scene = self.cfg, self.scene
        p.setGravity(0, 0, cfg.gravity, physicsClientId=self.client)
        p.setTimeStep(cfg.time_step, physicsClientId=self.client)
        p.setPhysicsEngineParameter(numSolverIterations=cfg.solver_iterations, physicsClientId=self.client)
        # The same checks as `llm-planner scene check`: a bad scene is refused here, naming the culprits.
        layout_check = check_layout(scene, cfg)
        layout_check.raise_errors()
        layouts = scene_layout(scene, cfg)
        walls = wall_layout(scene, cfg)
        self._check_furniture_rooms(layouts)
        bodies = build_world(self.client, scene, layouts, walls, cfg)
        robot = Robot(self.client, cfg.robot)
        for body in bodies.objects.values():  # resting objects may sleep (cheap physics steps)
            p.changeDynamics(body, -1, activationState=p.ACTIVATION_STATE_ENABLE_SLEEPING, physicsClientId=self.client)
        return SimHost(scene, cfg, self.client, rng, layouts, walls, layout_check, bodies, robot)

    def _check_furniture_rooms(self, layouts: Mapping[str, FurnitureLayout]) -> None:
        for name, layout in layouts.items():
            room = perception.room_at(self.scene, layout.frame.x, layout.frame.y)
            if room != layout.room:
                raise SceneError(f"furniture.{name}: its position lies in room '{room}', not '{layout.room}'")
            if perception.room_at(self.scene, layout.approach.x, layout.approach.y) != layout.room:
                raise SceneError(f"furniture.{name}: the robot would work at it from outside room '{layout.room}'")

    # ================================================================ the built world
    @property
    def robot(self) -> Robot:
        return self.host.robot

    @property
    def bodies(self) -> WorldBodies:
        return self.host.bodies

    @property
    def layouts(self) -> dict[str, FurnitureLayout]:
        return self.host.layouts

    @property
    def walls(self) -> list[Wall]:
        return self.host.walls

    @property
    def layout_check(self) -> LayoutCheck:
        return self.host.layout_check

    @property
    def planner(self) -> BasePlanner:
        """The base's grid planner (paths through doorways)."""
        return self.host.planner

    @property
    def last_path(self) -> list[Point]:
        """The base path of the last walk (for pictures)."""
        return self.host.last_path

    # ================================================================ public API
    def reset(self, placement: Mapping[str, str], room: str | None = None, seed: int | None = None,
              switched_on: Iterable[str] = ()) -> None:
        """Doors closed, hand empty, robot in ``room`` (default: the scene's start room), every
        object on a sampled free spot of its furniture, exactly ``switched_on`` on. Reuses the
        bodies (no rebuilding).

        Raises ValueError for a placement, room or switchable thing the scene does not have,
        PlacementError when the objects given to one furniture do not fit there."""
        self._check_placement(placement)
        room = room or self.scene.robot_room
        if room not in self.scene.rooms:
            raise ValueError(f"unknown room '{room}' (rooms: {', '.join(self.scene.rooms)})")
        self.switches.set_on(switched_on)
        host = self.host
        rng = random.Random(seed) if seed is not None else host.rng
        self.manipulation.release()
        for name, layout in self.layouts.items():
            if layout.is_container:
                host.set_door(name, 0.0)
        for k, body in enumerate(self.bodies.objects.values()):  # park everything out of the way
            p.resetBasePositionAndOrientation(body, [k * 1.0, -50.0, 5.0], [0, 0, 0, 1], physicsClientId=self.client)
        by_furniture: dict[str, list[str]] = defaultdict(list)
        for obj in self.scene.object_names:
            by_furniture[placement[obj]].append(obj)
        for furniture, objects in by_furniture.items():
            self.manipulation.place_initial(furniture, objects, rng)
        for body in self.bodies.objects.values():  # at rest: asleep until something touches them
            p.changeDynamics(body, -1, activationState=p.ACTIVATION_STATE_SLEEP, physicsClientId=self.client)
        self.robot.set_base(host.goals[room].pose)
        self.robot.set_arm(self.manipulation.travel_arm())

    def execute(self, action: Action) -> SkillResult:
        """Run one skill; on failure nothing changes and the reason says why."""
        start = time.perf_counter()
        verb, args = action
        self.host.last_path = []
        try:
            if VERB_ARITY.get(verb) != len(args):
                raise SkillFailed(f"unknown action {action}")
            handler = getattr(self, f"_skill_{verb}")
            handler(*args)
            result = SkillResult(True)
        except SkillFailed as exc:
            result = SkillResult(False, str(exc))
        self.timings[verb if result.success else f"{verb} (failed)"].append(time.perf_counter() - start)
        return result

    def plan_navigation(self, pose: Frame2D) -> list[Frame2D]:
        """The base poses of a drive from where the robot stands to ``pose`` (map frame), every one
        checked against walls and furniture; empty when the robot is there. SkillFailed saying why
        the robot cannot go there. The robot does not move: :meth:`move_base` moves it pose by pose."""
        goal = self.driving.goal_at(pose)
        return self.driving.plan_to(goal, f"({pose.x:.2f}, {pose.y:.2f})")

    def move_base(self, pose: Frame2D) -> None:
        """Put the base at one pose of a plan of :meth:`plan_navigation` (the held object with it)."""
        self.driving.move_base(pose)

    def geometry(self) -> GeometrySnapshot:
        """What the sensors report: poses, AABBs, door joints and the gripper's attachment."""
        sense = self.sensing
        bodies = []
        for name, body in self.bodies.furniture.items():
            bodies.append(sense.body_geometry(name, self.layouts[name].kind, body))
        for name, body in self.bodies.walls.items():
            bodies.append(sense.body_geometry(name, WALL, body))
        for name, body in self.bodies.objects.items():
            bodies.append(sense.body_geometry(name, self.scene.type_of(name), body))
        bodies.append(sense.body_geometry(ROBOT, ROBOT, self.robot.body))
        joints = sense.joints()
        pos, orn = p.getBasePositionAndOrientation(self.robot.body, physicsClientId=self.client)
        return GeometrySnapshot(self.scene.name, tuple(pos), tuple(orn), sense.attached_object(), bodies, joints)

    def render_png(self, path: str | Path, width: int = 640, height: int = 480, view: str = "top",
                   room: str | None = None, look_from: str = "south") -> Path:
        """A headless image (TinyRenderer) of the apartment, or of one ``room``: ``view`` is ``top``
        or ``perspective`` (the camera on the ``look_from`` side: south, north, east, west)."""
        return render_png(self, Path(path), width, height, view, room, look_from)

    def skill_timings(self) -> dict[str, dict[str, float]]:
        """Per skill (successful calls, and failed ones apart): calls and mean / max milliseconds."""
        return {verb: {"calls": len(ts), "mean_ms": 1e3 * sum(ts) / len(ts), "max_ms": 1e3 * max(ts)}
                for verb, ts in sorted(self.timings.items()) if ts}

    def close(self) -> None:
        if self.client >= 0:
            p.disconnect(self.client)
            self.client = -1

    def __enter__(self) -> HouseholdSim:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ================================================================ skills
    def _skill_walk(self, target: str) -> None:
        view = self.sensing.view()
        goals = self.host.goals
        if target in self.scene.rooms:
            goal = goals[target]
        elif target in self.layouts:
            if self.layouts[target].room != view.room:
                raise SkillFailed(f"{target} is not visible")
            goal = goals[target]
        elif target in self.bodies.objects:
            if target == view.holding:
                raise SkillFailed(f"already holding {target}")
            place = self.sensing.visible_place(target, view)
            goal = goals[place]
        else:
            raise SkillFailed(f"unknown target '{target}'")
        self.driving.drive(goal, target)

    def _skill_grab(self, obj: str) -> None:
        if obj not in self.bodies.objects:
            raise SkillFailed(f"{obj} is not a movable object")
        view = self.sensing.view()
        if view.holding is not None:
            raise SkillFailed(f"hand is full (holding {view.holding})")
        place = self.sensing.visible_place(obj, view)
        if place != view.near:
            raise SkillFailed(f"not close to {obj}")
        arm = self.manipulation
        neighbours = [o for o, (_, f) in self.sensing.supports().items() if f == place and o != obj]
        above = arm.resting_on(obj, neighbours)
        with arm.undo_on_failure(neighbours + [obj]):
            approach, retract, held = arm.plan_grab(obj)
            arm.run(approach)
            arm.attach(held)
            arm.run(retract)
            if above:
                arm.let_fall(neighbours, place)

    def _skill_open(self, furniture: str) -> None:
        self.doors.door_skill(furniture, opening=True)

    def _skill_close(self, furniture: str) -> None:
        self.doors.door_skill(furniture, opening=False)

    def _skill_switchon(self, thing: str) -> None:
        self.switches.switch_skill(thing, on=True)

    def _skill_switchoff(self, thing: str) -> None:
        self.switches.switch_skill(thing, on=False)

    def _skill_putin(self, obj: str, furniture: str) -> None:
        self._put(obj, furniture, INSIDE)

    def _skill_puton(self, obj: str, furniture: str) -> None:
        self._put(obj, furniture, ON)

    def _put(self, obj: str, furniture: str, rel: str) -> None:
        if furniture not in self.layouts:
            raise SkillFailed(f"unknown furniture '{furniture}'")
        view = self.sensing.view()
        if view.near != furniture:
            raise SkillFailed(f"not close to {furniture}")
        if view.holding != obj:
            raise SkillFailed(f"not holding {obj}")
        layout = self.layouts[furniture]
        if rel == INSIDE and not layout.is_container:
            raise SkillFailed(f"{furniture} is a surface; use puton")
        if rel == ON and layout.is_container:
            raise SkillFailed(f"{furniture} is a container; use putin")
        if rel == INSIDE and furniture not in view.opened:
            raise SkillFailed(f"{furniture} is closed")
        arm = self.manipulation
        with arm.undo_on_failure([obj]):
            failure = None
            for attempt, (_spot, approach, lowered, retract) in enumerate(arm.put_plans(obj, layout)):
                if attempt >= self.cfg.placement.put_attempts:
                    break
                checkpoint = arm.undo_on_failure([obj])
                try:
                    arm.run(approach)
                    arm.run([lowered])
                    arm.release()
                    arm.run(retract)
                    arm.settle(obj, furniture)
                    return
                except SkillFailed as exc:  # it would not stay there: put it elsewhere
                    checkpoint.restore()
                    failure = exc
            raise failure or SkillFailed(f"no free spot {'in' if layout.is_container else 'on'} {furniture} for {obj}")

    # ================================================================ helpers
    def _check_placement(self, placement: Mapping[str, str]) -> None:
        missing = [o for o in self.scene.object_names if o not in placement]
        if missing:
            raise ValueError(f"placement lacks objects: {', '.join(missing[:5])}")
        unknown = [o for o in placement if o not in self.bodies.objects]
        if unknown:
            raise ValueError(f"placement names unknown objects: {', '.join(unknown[:5])}")
        bad = {o: f for o, f in placement.items() if f not in self.layouts}
        if bad:
            o, f = next(iter(bad.items()))
            raise ValueError(f"placement puts {o} on unknown furniture '{f}'")


def check_in_pybullet(scene: Scene, seeds: Sequence[int] = (0, 1, 2), config: SimConfig | None = None) -> list[Finding]:
    """Build the scene in PyBullet and place its objects for each placement seed; every refusal
    becomes an error (objects that do not fit on their furniture, furniture the robot cannot reach
    from the rest of the apartment along a collision-checked path)."""
    findings: list[Finding] = []
    try:
        sim = HouseholdSim(scene, scene.sample_placement(seeds[0]), seed=seeds[0], config=config)
    except SceneError as exc:
        return [_finding_of(line, f"placement seed {seeds[0]}") for line in (exc.problems or (str(exc),))]
    try:
        for seed in seeds[1:]:
            try:
                sim.reset(scene.sample_placement(seed), seed=seed)
            except SceneError as exc:
                findings += [_finding_of(line, f"placement seed {seed}") for line in (exc.problems or (str(exc),))]
    finally:
        sim.close()
    return findings


def _finding_of(line: str, context: str) -> Finding:
    where, _, message = line.partition(": ")
    if not message or " " in where:
        return Finding(ERROR, "pybullet", f"{line} ({context})")
    return Finding(ERROR, where, f"{message} ({context})")


class PyBulletWorld:
    """The PyBullet apartment (:class:`HouseholdSim`) as a world of the closed loop
    (:func:`llm_planner.execution.run_episode`; benchmarks, snapshots): skills move the robot;
    observations and the goal check come from geometry through
    :mod:`llm_planner.domains.household.sim.perception` (never from the simulator's bookkeeping)."""

    def __init__(self, household: Household, placement_seed: int) -> None:
        self.household = household
        scene = household.scene
        self.sim = HouseholdSim(scene, scene.sample_placement(placement_seed), seed=placement_seed,
                                switched_on=scene.sample_switched_on(placement_seed))

    def execute(self, action: Action) -> SkillOutcome:
        result = self.sim.execute(action)
        return SkillOutcome(bool(result.success), str(getattr(result, "reason", "")))

    def observe(self) -> Observation:
        return perception.perceive(self.household.scene, self.sim.geometry())

    def full_state(self) -> State:
        return perception.perceive_full(self.household.scene, self.sim.geometry(), self.household)

    def goal_reached(self, goal: Goal) -> bool:
        return self.household.satisfied(self.full_state(), goal)

    def loop_state(self) -> State:
        return self.full_state()

    def close(self) -> None:
        self.sim.close()
