"""Geometric predicates of a G-TAMP state (seed 003 §3.2, Figure 3, Appendix A).

* ``AtPosition(o, dir, ref)``: from the poses (``on`` a region; ``left_of`` ... an object on the
  same region, in the region frame).
* ``PickOccludedBy(o, occ)``: the motion to pick o is planned *without* movable objects and
  doors (base path on the static roadmap, a gripper sample with an IK solution, the arm
  trajectory); ``occ`` is a movable object or closed door the swept volume touches.
* ``PlaceOccludedBy(o, dir, ref, occ)``: likewise for carrying o from its region to the target
  region and placing it ``dir`` of ``ref``; the placed object's own footprint counts too. A few
  placements are sampled and the one with the fewest occluders is reported.

Caching (Appendix A), by dependency keys instead of rules: a path depends on the start pose,
the target and the object's pose; its collisions depend only on the poses of the bodies near
the swept volume and on the doors. So after PICK every literal is reused; after OPEN only the
door's literals change; after PLACE only literals whose paths come near the moved object's old
or new position are recomputed. The gripper pose sampled for ``PickOccludedBy(o, .)`` is reused
as o's grasp for ``PlaceOccludedBy(o, ...)``.
"""
from __future__ import annotations

import math
import random
from collections.abc import Sequence
from dataclasses import dataclass

from llm_planner.domains.gtamp.domain import Grasp, GState, ObjPose, Pose2D, RegionSpec
from llm_planner.domains.gtamp.geometry import make_grasp, relation_holds, tool_for_object
from llm_planner.domains.gtamp.motion import Carried, arm_motion, sweep_hits
from llm_planner.domains.gtamp.operators import DIRECTED, GTampModel
from llm_planner.domains.gtamp.problems import SUPPORT_GAP

#: a movable object farther than this from every configuration of a base path cannot touch it
NAV_REACH = 0.9
#: ... and farther than this from the base pose cannot touch an arm motion made there
ARM_REACH = 1.4


@dataclass(frozen=True)
class Literals:
    """The true grounded predicates of one state (what CreatePrompt lists in ``(:init``)."""

    holding: str | None
    closed_doors: tuple[str, ...]
    at_position: tuple[tuple[str, str, str], ...]
    pick_occluded: tuple[tuple[str, str], ...]
    place_occluded: tuple[tuple[str, str, str, str], ...]

    def facts(self, occlusion: bool = True) -> list[tuple[str, ...]]:
        """Predicate tuples in the prompt's order (Figure 3)."""
        out: list[tuple[str, ...]] = [("HandAvailable",)] if self.holding is None else [("RobotHolding", self.holding)]
        out += [("IsClosed", d) for d in self.closed_doors]
        out += [("AtPosition", *a) for a in self.at_position]
        if occlusion:
            out += [("PickOccludedBy", *a) for a in self.pick_occluded]
            out += [("PlaceOccludedBy", *a) for a in self.place_occluded]
        return out

    def pick_occluders(self, obj: str) -> set[str]:
        return {occ for o, occ in self.pick_occluded if o == obj}

    def place_occluders(self, obj: str, direction: str, ref: str) -> set[str]:
        return {occ for o, d, r, occ in self.place_occluded if (o, d, r) == (obj, direction, ref)}


@dataclass(frozen=True)
class _Path:
    """A motion planned without movable objects: base path then arm path at its last pose."""

    base: tuple[Pose2D, ...]
    arm: tuple[tuple[float, ...], ...]


class PredicateComputer:
    """Computes :class:`Literals` with the caches of Appendix A; counts its motion-planning work
    in the model's counters. Its grasp and placement samples come from a random stream of its
    own (``seed``), so computing predicates (for a prompt, or not at all) leaves the model's
    stream, and so the search's samples, as they would be without them."""

    def __init__(self, model: GTampModel, samples: int | None = None, seed: int = 0) -> None:
        self.model = model
        self.rng = random.Random(seed)
        self.world = model.world
        self.samples = samples or model.params.predicate_samples
        self._literals: dict[GState, Literals] = {}
        self._grasps: dict[tuple[int, ObjPose], list[tuple[Grasp, tuple]]] = {}
        self._placements: dict[tuple, list[tuple[ObjPose, tuple]]] = {}
        self._hits: dict[tuple, frozenset[str]] = {}
        self.computed = 0        # literal sets computed (not from cache)
        self.hit_queries = 0     # swept-volume collision checks run (not from cache)

    # ------------------------------------------------------------------ public
    def literals(self, state: GState) -> Literals:
        if state not in self._literals:
            self.computed += 1
            self._literals[state] = self._compute(state)
        return self._literals[state]

    def at_position(self, state: GState) -> list[tuple[str, str, str]]:
        m = self.model
        out = []
        for i, name in enumerate(m.names):
            region = m.support(state, i)
            if region is None:
                continue
            out.append((name, "on", region.name))
            for j, other in enumerate(m.names):
                if j == i or m.support(state, j) is not region:
                    continue
                a, b = state.poses[i], state.poses[j]
                assert a is not None and b is not None  # both rest on the region
                for d in DIRECTED:
                    if relation_holds(region, (a.x, a.y), m.radius(i), (b.x, b.y), m.radius(j), d):
                        out.append((name, d, other))
        return out

    def pick_occluders(self, state: GState, i: int) -> frozenset[str] | None:
        """Occluders of picking object i (fewest over the sampled grasps); None if even without
        obstacles it cannot be picked."""
        m = self.model
        region = m.support(state, i)
        if region is None:
            return None
        base = m.base.static_path(state.base, region.base_pose)
        if base is None:
            return None
        best: frozenset[str] | None = None
        for _, arm in self._grasps_of(state, i, region):
            hits = self._path_hits(state, _Path(base, arm), exclude=i, carried=None)
            if best is None or len(hits) < len(best):
                best = hits
            if not best:
                break
        return best

    def place_occluders(self, state: GState, i: int, direction: str, ref: str) -> frozenset[str] | None:
        """Occluders of placing object i ``direction`` of ``ref`` (fewest over the sampled placements);
        None if no placement is reachable even without obstacles."""
        m = self.model
        start, grasp = self._carry_start(state, i)
        if start is None or grasp is None:
            return None
        region: RegionSpec | None
        if direction == "on":
            region, ref_pose = m.regions[ref], None
        else:
            j = m.index[ref]
            region = m.support(state, j)
            ref_pose = state.poses[j]
            if region is None:
                return None
        base = m.base.static_path(start, region.base_pose)
        if base is None:
            return None
        carried = Carried(i, grasp)
        best: frozenset[str] | None = None
        for place, arm in self._placement_samples(state, i, direction, ref, region, ref_pose, grasp):
            hits = self._path_hits(state, _Path(base, arm), exclude=i, carried=carried)
            hits = hits | self._footprint_hits(state, i, place)
            if best is None or len(hits) < len(best):
                best = hits
            if not best:
                break
        return best

    # ------------------------------------------------------------------ computation
    def _compute(self, state: GState) -> Literals:
        m = self.model
        doors = tuple(d.name for k, d in enumerate(m.problem.layout.doors) if not state.doors_open[k])
        pick, place = [], []
        for i, name in enumerate(m.names):
            if state.held is None and state.poses[i] is not None:
                pick += [(name, occ) for occ in sorted(self.pick_occluders(state, i) or ())]
            for direction, ref in self._placements_of(i):
                occ = self.place_occluders(state, i, direction, ref)
                place += [(name, direction, ref, o) for o in sorted(occ or ())]
        holding = m.names[state.held] if state.held is not None else None
        return Literals(holding, doors, tuple(self.at_position(state)), tuple(pick), tuple(place))

    def _placements_of(self, i: int) -> list[tuple[str, str]]:
        m = self.model
        out = [("on", r) for r in m.regions]
        out += [(d, ref) for ref in m.names if ref != m.names[i] for d in DIRECTED]
        return out

    def _grasps_of(self, state: GState, i: int, region: RegionSpec) -> list[tuple[Grasp, tuple]]:
        """Gripper poses with an IK solution for object i (no obstacles), cached per object pose."""
        pose = state.poses[i]
        assert pose is not None  # it rests on ``region``
        key = (i, pose)
        if key not in self._grasps:
            m = self.model
            found = []
            for _ in range(m.params.max_samples):
                sample = m.sample_grasp(i, pose, region.base_pose, self.rng)
                if sample is not None:
                    found.append((sample[0], arm_motion(m.home, sample[1])))
                    if len(found) >= self.samples:
                        break
            self._grasps[key] = found
        return self._grasps[key]

    def _carry_start(self, state: GState, i: int) -> tuple[Pose2D | None, Grasp | None]:
        """Where the robot starts carrying object i, and with which grasp."""
        m = self.model
        if state.held == i:
            return state.base, state.grasp
        region = m.support(state, i)
        if region is None:
            return None, None
        samples = self._grasps_of(state, i, region)
        if not samples:
            pose = state.poses[i]
            assert pose is not None  # it rests on ``region``
            grasp = make_grasp(m.problem.objects[i], pose, region.base_pose.theta, 0.0, 0.0)[0]
            return region.base_pose, grasp
        return region.base_pose, samples[0][0]

    def _placement_samples(self, state: GState, i: int, direction: str, ref: str, region: RegionSpec,
                           ref_pose: ObjPose | None, grasp: Grasp) -> list[tuple[ObjPose, tuple]]:
        """Placements with an IK solution (no obstacles), cached per (object, dir, ref pose, grasp)."""
        key = (i, direction, ref, ref_pose, grasp)
        if key in self._placements:
            return self._placements[key]
        m = self.model
        goal = region.base_pose
        spec = m.problem.objects[i]
        ref_xy = (ref_pose.x, ref_pose.y) if ref_pose else None
        ref_r = m.radius(m.index[ref]) if ref_pose else 0.0
        yaw = m.held_yaw(goal, grasp)
        out = []
        for _ in range(self.samples * 2):
            xy = m.sample_position(region, i, yaw, direction, ref_xy, ref_r, self.rng)
            if xy is None:
                break
            place = ObjPose(xy[0], xy[1], region.height + 0.5 * spec.shape.height + SUPPORT_GAP, yaw, region.name)
            tpos, torn = tool_for_object(grasp, place)
            q = m.ik_at(goal, tpos, torn)
            if q is not None:
                out.append((place, arm_motion(m.home, q)))
            if len(out) >= self.samples:
                break
        self._placements[key] = out
        return out

    # ------------------------------------------------------------------ collisions, cached
    def _near(self, state: GState, points: Sequence[tuple[float, float]], reach: float, exclude: int) -> tuple:
        """(index, pose) of the movable objects within ``reach`` of any of ``points``."""
        out = []
        for j, pose in enumerate(state.poses):
            if j == exclude or pose is None:
                continue
            if any(math.dist((pose.x, pose.y), pt) <= reach for pt in points):
                out.append((j, pose))
        return tuple(out)

    def _path_hits(self, state: GState, path: _Path, exclude: int, carried: Carried | None) -> frozenset[str]:
        base_pts = [(b.x, b.y) for b in path.base]
        end = path.base[-1]
        near_nav = self._near(state, base_pts, NAV_REACH, exclude)
        near_arm = self._near(state, [(end.x, end.y)], ARM_REACH, exclude)
        doors = tuple(k for k, is_open in enumerate(state.doors_open) if not is_open)
        grasp = carried.grasp if carried else None
        key = ("path", path.base[0], end, path.arm, exclude, grasp, near_nav, near_arm, doors)
        if key not in self._hits:
            self.hit_queries += 1
            w = self.world
            w.set_state(state)
            door_bodies = [w.doors[self.model.problem.layout.doors[k].name] for k in doors]
            nav = sweep_hits(w, path.base, (), [w.objects[j] for j, _ in near_nav] + door_bodies, carried)
            w.set_state(state)
            arm = sweep_hits(w, [end], path.arm, [w.objects[j] for j, _ in near_arm] + door_bodies, carried)
            self._hits[key] = frozenset(w.name_of[b] for b in nav | arm)
        return self._hits[key]

    def _footprint_hits(self, state: GState, i: int, place: ObjPose) -> frozenset[str]:
        near = self._near(state, [(place.x, place.y)], 0.8, i)
        key = ("place", i, place, near)
        if key not in self._hits:
            w = self.world
            w.set_state(state)
            w.object_pose(i, place)
            hits = w.hits(w.objects[i], [w.objects[j] for j, _ in near])
            w.invalidate()
            self._hits[key] = frozenset(w.name_of[b] for b in hits)
        return self._hits[key]
