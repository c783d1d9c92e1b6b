"""The G-TAMP MDP (seed 003 §3.1, §4.1, Table 1): operators PICK, PLACE and OPEN with their
continuous-parameter samplers psi, the deterministic transition T and the reward R.

Samplers (a fixed number of failed samples makes the action infeasible):

* PICK(o): base path tau_nav (lazy PRM) to the predefined base pose of o's region; gripper at
  o's predefined grasp point with pitch ~ U[0, 45 deg] and yaw ~ U[-60, 60 deg] relative to the
  base; IK; tau_g linearly interpolated from home to the IK solution; tau_g and the lift-out
  with the object must not collide.
* PLACE(o, dir, ref): base path to the target region carrying o; placement (x_p, y_p) sampled
  uniformly on the region until it lies in ``dir`` of ``ref`` (rejection sampling); gripper
  orientation kept so that o keeps its orientation relative to the region; IK; tau_g.
* OPEN(d): base path to the door's base pose on the robot's side; fixed handle pose; IK; tau_g.

Reward: ``reward_goal`` times the change in the number of satisfied goal atoms (so moving an
object out of its goal costs what putting it back earns, and no loop can farm reward), and
``reward_infeasible`` for an infeasible action, which ends the simulation.
"""
from __future__ import annotations

import math
import random
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace

from llm_planner.domains.bullet import pybullet as p
from llm_planner.domains.gtamp.config import GTampConfig, load_config
from llm_planner.domains.gtamp.domain import (
    DIRECTIONS,
    OPERATORS,
    ConcreteAction,
    GoalAtom,
    Grasp,
    GState,
    Kappa,
    ObjPose,
    Pose2D,
    ProblemSpec,
    RegionSpec,
    TaskAction,
)
from llm_planner.domains.gtamp.geometry import (
    atom_holds,
    footprint_half,
    gripper_orn,
    make_grasp,
    relation_holds,
    support_region,
    tool_for_object,
)
from llm_planner.domains.gtamp.motion import BasePlanner, Carried, arm_motion, build_roadmap, sweep_hits
from llm_planner.domains.gtamp.problems import SUPPORT_GAP
from llm_planner.domains.gtamp.world import GTampWorld

DIRECTED = tuple(d for d in DIRECTIONS if d != "on")


@dataclass
class Counters:
    """Motion-planning work, reported by the benchmark (``mp_calls``)."""

    base_queries: int = 0
    ik_calls: int = 0
    samples: int = 0          # kappa ~ psi(s, a(delta)) calls

    @property
    def mp_calls(self) -> int:
        return self.base_queries + self.ik_calls


class GTampModel:
    """World model of one problem: legal task actions, psi, T, R and goal tests on real geometry."""

    def __init__(self, problem: ProblemSpec, config: GTampConfig | None = None, seed: int = 0,
                 world: GTampWorld | None = None) -> None:
        self.problem = problem
        self.config = config or load_config()
        self.params = self.config.operators
        self.world = world or GTampWorld(problem)
        start = problem.initial.base
        self.roadmap = build_roadmap(self.world, extra=[(start.x, start.y)])
        self.base = BasePlanner(self.world, self.roadmap)
        self.rng = random.Random(seed)
        self.counters = Counters()
        self.names = problem.object_names
        self.index = {n: i for i, n in enumerate(self.names)}
        self.regions = {r.name: r for r in problem.layout.regions}
        self.doors = {d.name: k for k, d in enumerate(problem.layout.doors)}
        self.home = problem.layout.robot.home
        self._goal_counts: dict[GState, int] = {}

    # ------------------------------------------------------------------ geometry on states
    def support(self, state: GState, i: int) -> RegionSpec | None:
        """The region object i rests on, decided from its pose (not from bookkeeping)."""
        return support_region(self.problem, state, i)

    def holds(self, state: GState, atom: GoalAtom) -> bool:
        return atom_holds(self.problem, state, atom)

    def goal_count(self, state: GState) -> int:
        if state not in self._goal_counts:
            if len(self._goal_counts) > 50000:
                self._goal_counts.clear()
            self._goal_counts[state] = sum(self.holds(state, a) for a in self.problem.goal)
        return self._goal_counts[state]

    def is_goal(self, state: GState) -> bool:
        return self.goal_count(state) == len(self.problem.goal)

    def room(self, state: GState) -> str:
        return self.problem.layout.room_of(state.base.x, state.base.y)

    def radius(self, i: int) -> float:
        """Radius of object i's bounding circle."""
        return self.problem.objects[i].shape.radius

    # ------------------------------------------------------------------ actions
    def legal_actions(self, state: GState) -> list[TaskAction]:
        """Task actions whose hand precondition holds (occlusions are found by sampling, as in the
        seed: the search never computes predicates)."""
        if state.held is None:
            acts = [TaskAction("pick", (n,)) for i, n in enumerate(self.names) if state.poses[i] is not None]
            acts += [TaskAction("open", (d,)) for d, k in self.doors.items() if not state.doors_open[k]]
            return acts
        o = self.names[state.held]
        acts = [TaskAction("place", (o, "on", r)) for r in self.regions]
        acts += [TaskAction("place", (o, d, ref)) for ref in self.names if ref != o for d in DIRECTED]
        return acts

    def validate(self, action: TaskAction) -> str:
        """Why ``action`` is not a well-formed action of this problem ('' if it is)."""
        if action.op not in OPERATORS:
            return f"unknown action '{action.op}' (actions: {', '.join(OPERATORS)})"
        if len(action.args) != len(OPERATORS[action.op]):
            return f"'{action.op}' takes {len(OPERATORS[action.op])} argument(s), got {len(action.args)}"
        for kind, arg in zip(OPERATORS[action.op], action.args, strict=True):
            if kind == "object" and arg not in self.index:
                return f"unknown object '{arg}'"
            if kind == "door" and arg not in self.doors:
                return f"unknown door '{arg}'"
            if kind == "direction" and arg not in DIRECTIONS:
                return f"unknown direction '{arg}' (directions: {', '.join(DIRECTIONS)})"
        if action.op == "place":
            _, direction, ref = action.args
            if direction == "on" and ref not in self.regions:
                return f"unknown region '{ref}' for 'on'"
            if direction != "on" and ref not in self.index:
                return f"unknown reference object '{ref}'"
            if ref == action.args[0]:
                return "an object cannot be placed relative to itself"
        return ""

    def sample(self, state: GState, action: TaskAction) -> ConcreteAction:
        """kappa ~ psi(s, a(delta)): a concrete action, or an infeasible one with the reason."""
        self.counters.samples += 1
        problem = self.validate(action)
        if problem:
            return ConcreteAction(action, None, problem)
        if action.op == "pick":
            return self._pick(state, action)
        if action.op == "place":
            return self._place(state, action)
        return self._open(state, action)

    def apply(self, state: GState, ca: ConcreteAction) -> GState:
        """T(s, a(delta, kappa)); an infeasible action leaves the state unchanged (absorbing)."""
        if ca.kappa is None:
            return state
        k = ca.kappa
        end = k.base_path[-1] if k.base_path else state.base
        op, args = ca.action
        if op == "pick":
            i = self.index[args[0]]
            return replace(state.with_pose(i, None), base=end, held=i, grasp=k.grasp)
        if op == "place":
            i = self.index[args[0]]
            return replace(state.with_pose(i, k.place_pose), base=end, held=None, grasp=None)
        doors = list(state.doors_open)
        doors[self.doors[args[0]]] = True
        return replace(state, base=end, doors_open=tuple(doors))

    def reward(self, state: GState, next_state: GState, feasible: bool) -> float:
        s = self.config.search
        if not feasible:
            return s.reward_infeasible
        return s.reward_goal * (self.goal_count(next_state) - self.goal_count(state))

    def step(self, state: GState, action: TaskAction) -> tuple[ConcreteAction, GState, float]:
        """Sample kappa, apply T and R: ``(a(delta, kappa), s', r)``."""
        ca = self.sample(state, action)
        nxt = self.apply(state, ca)
        return ca, nxt, self.reward(state, nxt, ca.feasible)

    # ------------------------------------------------------------------ execution check
    def verify(self, state: GState, ca: ConcreteAction) -> str:
        """Why the concrete action cannot be executed in ``state`` ('' if it can): preconditions,
        start of the base path, and the swept volumes of its base and arm motions (and the
        placement) against this world's bodies. The executor runs this on its own world."""
        if ca.kappa is None:
            return f"infeasible action: {ca.reason}"
        op, args = ca.action
        k = ca.kappa
        if not k.base_path or math.dist(k.base_path[0][:2], state.base[:2]) > 0.05:
            return "the base path does not start at the robot's pose"
        exclude: list[int] = []
        carried = None
        skip_door = ""
        if op == "pick":
            i = self.index[args[0]]
            if state.held is not None or self.support(state, i) is None:
                return f"cannot pick {args[0]}: hand not empty or object not on a region"
            exclude = [i]
        elif op == "place":
            i = self.index[args[0]]
            if state.held != i or state.grasp is None or k.place_pose is None:
                return f"cannot place {args[0]}: not holding it"
            exclude, carried = [i], Carried(i, state.grasp)
            hits = self._placement_hits(state, i, k.place_pose, self._obstacles(state, [i], walls=True))
            if hits:
                return f"placement collides with {', '.join(hits)}"
        else:
            d = self.doors[args[0]]
            if state.held is not None or state.doors_open[d]:
                return f"cannot open {args[0]}: hand not empty or door already open"
            skip_door = args[0]
        self.world.set_state(state)
        nav = sweep_hits(self.world, k.base_path, (), self._obstacles(state, exclude, walls=carried is not None),
                         carried)
        if nav:
            return "base path collides with " + ", ".join(sorted(self.world.name_of[b] for b in nav))
        hits = self._arm_hits(state, k.base_path[-1], k.arm_path,
                              self._obstacles(state, exclude, walls=True, skip_door=skip_door), carried)
        if hits:
            return f"arm motion collides with {', '.join(hits)}"
        return ""

    # ------------------------------------------------------------------ samplers
    def _obstacles(self, state: GState, exclude: Iterable[int] = (), walls: bool = False,
                   skip_door: str = "") -> list[int]:
        w = self.world
        bodies = w.movable_bodies(exclude)
        bodies += [w.doors[d.name] for k, d in enumerate(self.problem.layout.doors)
                   if not state.doors_open[k] and d.name != skip_door]
        if walls:
            bodies += list(w.static_bodies)
        return bodies

    def _nav(self, state: GState, goal: Pose2D, carried: Carried | None, exclude: Iterable[int]) -> tuple:
        """A collision-free base path, or ``(None, reason)``."""
        self.world.set_state(state)
        self.counters.base_queries += 1
        path = self.base.free_path(state.base, goal, self._obstacles(state, exclude, walls=carried is not None),
                                   carried)
        if path is not None:
            return path, ""
        blockers = self._static_blockers(state, goal, carried, exclude)
        return None, "no collision-free base path" + (f" (blocked by {', '.join(blockers)})" if blockers else "")

    def _static_blockers(self, state: GState, goal: Pose2D, carried: Carried | None,
                         exclude: Iterable[int]) -> list[str]:
        path = self.base.static_path(state.base, goal)
        if path is None:
            return []
        self.world.set_state(state)
        hits = sweep_hits(self.world, path, (), self._obstacles(state, exclude), carried)
        return sorted(self.world.name_of[b] for b in hits)

    def ik_at(self, base: Pose2D, pos: Sequence[float], orn: Sequence[float]) -> tuple[float, ...] | None:
        """An IK solution for the tool pose with the base at ``base`` (counted as a motion-planner call)."""
        self.counters.ik_calls += 1
        self.world.set_base(base)
        return self.world.ik(pos, orn)

    def _arm_hits(self, state: GState, base: Pose2D, arm: Sequence[Sequence[float]], obstacles: Sequence[int],
                  carried: Carried | None = None) -> list[str]:
        self.world.set_state(state)
        hits = sweep_hits(self.world, [base], arm, obstacles, carried)
        return sorted(self.world.name_of[b] for b in hits)

    def _pick(self, state: GState, action: TaskAction) -> ConcreteAction:
        o = action.args[0]
        i = self.index[o]
        if state.held is not None:
            return ConcreteAction(action, None, f"hand is not empty (holding {self.names[state.held]})")
        region = self.support(state, i)
        if region is None:
            return ConcreteAction(action, None, f"{o} is not on a region")
        goal = region.base_pose
        path, reason = self._nav(state, goal, None, ())
        if path is None:
            return ConcreteAction(action, None, reason)
        pose = state.poses[i]
        assert pose is not None  # it rests on a region (support above)
        obstacles = self._obstacles(state, [i], walls=True)
        failures = _Failures()
        for _ in range(self.params.max_samples):
            sample = self.sample_grasp(i, pose, goal)
            if sample is None:
                failures.add("no IK solution")
                continue
            grasp, q = sample
            arm = arm_motion(self.home, q)
            hits = self._arm_hits(state, goal, arm, obstacles)
            if not hits:
                hits = self._arm_hits(state, goal, arm[::-1], obstacles, Carried(i, grasp))
            if hits:
                failures.add("arm motion collides with", hits)
                continue
            return ConcreteAction(action, Kappa(path, arm, grasp))
        return ConcreteAction(action, None, failures.summary(self.params.max_samples))

    def _place(self, state: GState, action: TaskAction) -> ConcreteAction:
        o, direction, ref = action.args
        i = self.index[o]
        if state.held != i or state.grasp is None:
            holding = self.names[state.held] if state.held is not None else "nothing"
            return ConcreteAction(action, None, f"not holding {o} (holding {holding})")
        region: RegionSpec | None
        if direction == "on":
            region, ref_xy, ref_r = self.regions[ref], None, 0.0
        else:
            j = self.index[ref]
            region = self.support(state, j)
            rp = state.poses[j]
            if region is None or rp is None:  # (an object with a region has a pose)
                return ConcreteAction(action, None, f"{ref} is not on a region")
            ref_xy, ref_r = (rp.x, rp.y), self.radius(j)
        goal = region.base_pose
        carried = Carried(i, state.grasp)
        path, reason = self._nav(state, goal, carried, [i])
        if path is None:
            return ConcreteAction(action, None, reason)
        obstacles = self._obstacles(state, [i], walls=True)
        yaw = self.held_yaw(goal, state.grasp)
        failures = _Failures()
        for _ in range(self.params.max_samples):
            xy = self.sample_position(region, i, yaw, direction, ref_xy, ref_r)
            if xy is None:
                return ConcreteAction(action, None, f"no position {direction} {ref} on {region.name} "
                                                    f"in {self.params.placement_draws} draws")
            place = ObjPose(xy[0], xy[1], region.height + 0.5 * self.problem.objects[i].shape.height + SUPPORT_GAP,
                            yaw, region.name)
            hits = self._placement_hits(state, i, place, obstacles)
            if hits:
                failures.add("placement collides with", hits)
                continue
            tpos, torn = tool_for_object(state.grasp, place)
            q = self.ik_at(goal, tpos, torn)
            if q is None:
                failures.add("no IK solution")
                continue
            arm = arm_motion(self.home, q)
            hits = self._arm_hits(state, goal, arm, obstacles, carried)
            if hits:
                failures.add("arm motion collides with", hits)
                continue
            return ConcreteAction(action, Kappa(path, arm, state.grasp, place))
        return ConcreteAction(action, None, failures.summary(self.params.max_samples))

    def _open(self, state: GState, action: TaskAction) -> ConcreteAction:
        d = action.args[0]
        k = self.doors[d]
        if state.held is not None:
            return ConcreteAction(action, None, f"hand is not empty (holding {self.names[state.held]})")
        if state.doors_open[k]:
            return ConcreteAction(action, None, f"{d} is already open")
        side = self.problem.layout.doors[k].side(self.room(state))
        if side is None:
            return ConcreteAction(action, None, f"{d} cannot be reached from room '{self.room(state)}'")
        path, reason = self._nav(state, side.base_pose, None, ())
        if path is None:
            return ConcreteAction(action, None, reason)
        q = self.ik_at(side.base_pose, side.handle, gripper_orn(side.base_pose.theta, 0.0, 0.0))
        if q is None:
            return ConcreteAction(action, None, f"no IK solution for the handle of {d}")
        arm = arm_motion(self.home, q)
        hits = self._arm_hits(state, side.base_pose, arm, self._obstacles(state, walls=True, skip_door=d))
        if hits:
            return ConcreteAction(action, None, f"arm motion collides with {', '.join(hits)}")
        return ConcreteAction(action, Kappa(path, arm))

    def sample_grasp(self, i: int, pose: ObjPose, base: Pose2D,
                     rng: random.Random | None = None) -> tuple[Grasp, tuple[float, ...]] | None:
        """One draw of PICK's gripper orientation (pitch ~ U[pitch range], yaw ~ U[yaw range]
        relative to the base) at object i's grasp point, and its IK solution (None: unreachable).
        ``rng`` is the stream drawn from (default: the model's own)."""
        robot = self.problem.layout.robot
        rng = self.rng if rng is None else rng
        grasp, tpos, torn = make_grasp(self.problem.objects[i], pose, base.theta,
                                       rng.uniform(*robot.pitch_range), rng.uniform(*robot.yaw_range))
        q = self.ik_at(base, tpos, torn)
        return None if q is None else (grasp, q)

    def held_yaw(self, base: Pose2D, g: Grasp) -> float:
        """Yaw the held object gets when the gripper keeps its pitch/yaw relative to ``base``
        (the object keeps its orientation relative to the region, seed Table 1)."""
        _, orn = p.multiplyTransforms((0, 0, 0), gripper_orn(base.theta, g.pitch, g.yaw), g.tool_pos, g.tool_orn)
        return p.getEulerFromQuaternion(orn)[2]

    def _placement_hits(self, state: GState, i: int, place: ObjPose, obstacles: list[int]) -> list[str]:
        w = self.world
        w.set_state(state)
        w.object_pose(i, place)
        hits = w.hits(w.objects[i], obstacles)
        w.invalidate()
        return sorted(w.name_of[b] for b in hits)

    def sample_position(self, region: RegionSpec, i: int, yaw: float, direction: str,
                        ref: tuple[float, float] | None, ref_radius: float,
                        rng: random.Random | None = None) -> tuple[float, float] | None:
        """(x_p, y_p) uniform on the region's surface (object i with ``yaw`` fully on it), rejected
        until it lies ``direction`` of ``ref``. ``rng`` is the stream drawn from (default: the
        model's own)."""
        rng = self.rng if rng is None else rng
        hu, hv = footprint_half(self.problem.objects[i].shape, yaw - region.heading)
        radius = self.radius(i)
        du, dv = 0.5 * region.depth - hu, 0.5 * region.width - hv
        if du <= 0 or dv <= 0:
            return None
        for _ in range(self.params.placement_draws):
            x, y = region.to_world(rng.uniform(-du, du), rng.uniform(-dv, dv))
            if direction == "on":
                return x, y
            assert ref is not None  # every direction but "on" is relative to a reference object
            if math.dist((x, y), ref) < radius + ref_radius + 0.005:
                continue
            if relation_holds(region, (x, y), radius, ref, ref_radius, direction):
                return x, y
        return None


class _Failures:
    """Why the samples of one action failed, summarised for the infeasibility reason (collisions,
    which name the occluders, first)."""

    def __init__(self) -> None:
        self.counts: dict[str, int] = {}
        self.bodies: dict[str, set[str]] = {}

    def add(self, kind: str, bodies: Iterable[str] = ()) -> None:
        self.counts[kind] = self.counts.get(kind, 0) + 1
        self.bodies.setdefault(kind, set()).update(bodies)

    def summary(self, samples: int) -> str:
        parts = []
        for kind, n in sorted(self.counts.items(), key=lambda kv: (not self.bodies[kv[0]], -kv[1])):
            names = ", ".join(sorted(self.bodies[kind]))
            parts.append(f"{kind} {names} in {n}" if names else f"{kind} in {n}")
        return "; ".join(parts) + f" of {samples} samples"

