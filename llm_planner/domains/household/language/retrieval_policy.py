"""The offline retrieval policy: it answers the heuristic-policy question (LLM-MCTS §2.3) without a
generative model, from the expert data set D (:class:`~llm_planner.domains.household.language.retrieval.ExpertIndex`).

It answers the heuristic-policy question without a generative
model: every expert step is abstracted into a *situation* relative to the object the expert is
moving (fetching or delivering it; in the room of / near the place that matters; that place a
surface, an open or a closed container; the object in view) and an *abstract action* over roles
(walk to ROOM_OF_SOURCE, open SOURCE, grab TARGET, put TARGET in DEST ...). For the current
query the same situation is computed for the current sub-goal, the nearest matching expert
situations are retrieved (first among the top similar instructions, then anywhere in D), and
their abstract actions are adapted to the current objects. Where the object has not been seen
yet, the candidate SOURCE places are the places the experts of similar instructions took objects
of that type from (weighted by instruction similarity), minus the places the robot has already
looked into; common sense (commonsense.yaml) fills in when D has no unsearched place left.

State items (open/closed, on/off of a thing) come after the placements: D shows no such step, so
the policy's step for the first state item its observations do not show holding is the direct one
(:func:`state_step`): walk to the room of the thing, to the thing (a switchable thing: the furniture
it is switched at), then open, close or switch it; the things of the robot's room first. A
switchable thing never seen is visited.

The expert had full observation, the policy does not: it only uses the query's observations and
action history, and D.
"""
from __future__ import annotations

import dataclasses
import random
from collections import Counter, defaultdict
from dataclasses import dataclass
from typing import TYPE_CHECKING

from llm_planner.domains.household.language.model_resources import expert
from llm_planner.domains.household.language.retrieval import ExpertIndex, world_of_scene
from llm_planner.domains.household.language.text import WorldInfo, action_to_text
from llm_planner.domains.household.world.symbolic import (
    CLOSED,
    INSIDE,
    OPEN,
    SWITCHED_ON,
    Action,
    Goal,
    GoalItem,
    Observation,
)
from llm_planner.domains.household.world.words import name_to_text
from llm_planner.errors import LLMError

if TYPE_CHECKING:
    from llm_planner.domains.household.language.commonsense import SceneKnowledge
    from llm_planner.domains.household.language.policy_query import PolicyQuery
    from llm_planner.domains.household.world.expert import Trajectory
    from llm_planner.llm.resources import Resources

# Roles of an abstract action's arguments.
TARGET, SOURCE, DEST, ROOM_OF_SOURCE, ROOM_OF_DEST = "TARGET", "SOURCE", "DEST", "ROOM_OF_SOURCE", "ROOM_OF_DEST"
FETCH, DELIVER = "fetch", "deliver"


# ------------------------------------------------------------------------ situations
@dataclass(frozen=True)
class Situation:
    """What an expert step looks like relative to the object being moved (see module docstring)."""

    phase: str            # FETCH or DELIVER
    in_room: bool         # robot in the room of the place that matters (SOURCE or DEST)
    near: bool            # robot at that place
    place_state: str      # surface | open | closed
    target_visible: bool  # the object is in view (FETCH)

    def distance(self, other: Situation) -> int:
        if self.phase != other.phase:
            return 100
        return sum(a != b for a, b in zip((self.in_room, self.near, self.place_state, self.target_visible),
                                          (other.in_room, other.near, other.place_state, other.target_visible),
                                          strict=True))


@dataclass(frozen=True)
class ExpertStep:
    trajectory: int
    index: int
    situation: Situation
    verb: str
    roles: tuple[str, ...]    # abstract arguments (TARGET, SOURCE, ...)
    obj_type: str             # type of the object being moved
    source: str               # where the expert took it from
    destination: str


def _place_state(world: WorldInfo, obs: Observation, place: str) -> str:
    if place not in set(world.containers):
        return "surface"
    return "open" if place in obs.open_containers else "closed"


def situation_of(world: WorldInfo, obs: Observation, phase: str, place: str, target: str | None) -> Situation:
    visible = target is not None and any(o == target for _r, o, _f in obs.relations)
    return Situation(phase, world.furniture_room.get(place) == obs.room, obs.near == place,
                     _place_state(world, obs, place), visible if phase == FETCH else True)


def abstract_steps(trajectory: Trajectory, index: int) -> list[ExpertStep]:
    """Every expert step of a trajectory as (situation, abstract action)."""
    world = world_of_scene(trajectory.task.scene)
    actions, observations = trajectory.actions, trajectory.observations
    # segments: one per object moved, from after the previous put to this put
    out: list[ExpertStep] = []
    start = 0
    for end, action in enumerate(actions):
        if action.verb not in ("putin", "puton"):
            continue
        obj, dest = action.args
        grab_at = next((i for i in range(start, end) if actions[i] == Action("grab", (obj,))), None)
        source = observations[grab_at].near if grab_at is not None else None
        obj_type = world.object_type.get(obj, obj)
        for i in range(start, end + 1):
            fetching = grab_at is not None and i <= grab_at
            if fetching and source is None:
                continue
            phase, place = (FETCH, source) if fetching and source is not None else (DELIVER, dest)
            roles = _roles(actions[i], obj, source, dest, world)
            if roles is None:
                continue
            out.append(ExpertStep(index, i, situation_of(world, observations[i], phase, place, obj),
                                  actions[i].verb, roles, obj_type, source or "", dest))
        start = end + 1
    return out


def _roles(action: Action, obj: str, source: str | None, dest: str, world: WorldInfo) -> tuple[str, ...] | None:
    mapping = {obj: TARGET, dest: DEST}
    if source:
        mapping.setdefault(source, SOURCE)
        mapping.setdefault(world.furniture_room[source], ROOM_OF_SOURCE)
    mapping.setdefault(world.furniture_room[dest], ROOM_OF_DEST)
    roles = tuple(r for a in action.args if (r := mapping.get(a)) is not None)
    return roles if len(roles) == len(action.args) else None


# --------------------------------------------------------------------------- knowledge
@dataclass
class Knowledge:
    """What the robot knows from its observations and its own actions (never the hidden state)."""

    location: dict[str, str]     # object -> furniture, last known
    holding: str | None
    searched: set[str]           # furniture whose whole contents have been seen


def knowledge_from(query: PolicyQuery) -> Knowledge:
    location: dict[str, str] = {}
    searched: set[str] = set()
    for obs in (*query.past_observations, query.observation):
        for place in obs.seen_places:  # objects no longer seen there have gone (the robot moved them)
            for o in [o for o, f in location.items() if f == place]:
                del location[o]
        for _rel, obj, place in obs.relations:
            location[obj] = place
        searched |= set(obs.seen_places)
    for action in query.history:  # the robot's own moves (observations may not show them any more)
        if action.verb == "grab":
            location.pop(action.args[0], None)
        elif action.verb in ("putin", "puton"):
            location[action.args[0]] = action.args[1]
    holding = query.observation.holding
    if holding:
        location.pop(holding, None)
    return Knowledge(location, holding, searched)


def imagined_observation(world: WorldInfo, first: Observation, plan: tuple[Action, ...]) -> Observation:
    """What the robot would see after ``plan`` if every step did what it says (SayCanPay §4: an LM
    planning offline keeps an internal world state T^int; o_t is empty for t > 0). Effects only, no
    precondition is checked: a grab far from the object is believed to hold it, so an infeasible
    step leaves the belief wrong (what the seed's Can model is for)."""
    place_of = {o: f for _r, o, f in first.relations}
    opened = set(first.open_containers)
    room, near, holding = first.room, first.near, first.holding
    for verb, args in plan:
        if verb == "walk":
            x = args[0]
            spot = x if x in world.furniture_room else place_of.get(x)
            if x in world.rooms:
                room, near = x, None
            elif spot is not None and spot in world.furniture_room:
                room, near = world.furniture_room[spot], spot
        elif verb == "grab":
            place_of.pop(args[0], None)
            holding = args[0]
        elif verb == "open":
            opened.add(args[0])
        elif verb == "close":
            opened.discard(args[0])
        elif verb in ("putin", "puton") and len(args) == 2:
            place_of[args[0]] = args[1]
            holding = None if holding == args[0] else holding
    here = [f for f in world.furniture if world.furniture_room.get(f) == room]
    containers = set(world.containers)
    open_here = frozenset(f for f in here if f in containers and f in opened)
    seen = frozenset(f for f in here if f not in containers) | open_here
    relations = frozenset((world.relation(f), o, f) for o, f in place_of.items() if f in seen)
    return Observation(room, near, holding, relations, open_here,
                       frozenset(f for f in here if f in containers) - open_here, seen)


# ------------------------------------------------------------------------------ policy
class RetrievalPolicy:
    """The expert steps of D abstracted into situations, and the policy that retrieves and adapts them."""

    def __init__(self, index: ExpertIndex, pool: int, locality: tuple[float, float], place_match: float) -> None:
        self.index = index
        self.grounder = index.grounder
        self.trajectories = index.trajectories
        self.pool = pool
        self.locality = locality
        self.place_match = place_match
        self.steps = [s for k, t in enumerate(self.trajectories) for s in abstract_steps(t, k)]
        self._by_trajectory: dict[int, list[ExpertStep]] = {}
        self._by_situation: dict[Situation, Counter[tuple[str, tuple[str, ...]]]] = {}
        for s in self.steps:
            self._by_trajectory.setdefault(s.trajectory, []).append(s)
            self._by_situation.setdefault(s.situation, Counter())[(s.verb, s.roles)] += 1
        self._memo: dict[tuple, tuple[str, tuple[str, ...]]] = {}

    def propose(self, query: PolicyQuery, goal: Goal, knowledge_of_scene: SceneKnowledge, m: int,
                seed: int) -> tuple[list[str], int]:
        """M next-action texts for the query, and how many of them say "done" (see module docstring)."""
        world = query.world
        if query.from_initial:  # an offline plan: the model's own belief along it (seed 004 §4, T^int)
            query = dataclasses.replace(query,
                                        observation=imagined_observation(world, query.observation, query.history),
                                        past_observations=(*query.past_observations, query.observation),
                                        from_initial=False)
        know = knowledge_from(query)
        placements = tuple(g for g in goal if not g.is_state)
        item, target = _current_item(world, placements, know, query.observation) if placements else (None, None)
        if item is None:
            step = state_step(world, goal, query) if len(placements) < len(goal) else None
            return ([step] * m, 0) if step else ([], m)
        rng = random.Random(f"{seed}|{query.instruction}|{len(query.history)}|{query.observation.room}")
        neighbours = self.index.similar(query.instruction, self.pool)
        obs = query.observation
        if know.holding and world.object_type.get(know.holding) == item.obj_type:
            situation = situation_of(world, obs, DELIVER, item.destination, know.holding)
            action = self._retrieve(situation, neighbours)
            return [self._adapt(action, world, know.holding, None, item.destination)] * m, 0
        if know.holding:  # holding something the goal does not need: put it down here if possible
            return [_put_down(world, obs, know.holding)] * m, 0
        if target is not None:  # an instance of the type is known somewhere
            source = know.location[target]
            situation = situation_of(world, obs, FETCH, source, target)
            action = self._retrieve(situation, neighbours)
            return [self._adapt(action, world, target, source, item.destination)] * m, 0
        sources = self._sources(item, world, know, neighbours, knowledge_of_scene, obs)
        if not sources:
            return [], 0
        if obs.near in dict(sources):  # at a closed place that may hold it: look inside, as the experts do
            situation = situation_of(world, obs, FETCH, obs.near, None)
            action = self._retrieve(situation, neighbours)
            return [self._adapt(action, world, None, obs.near, item.destination, item.obj_type)] * m, 0
        places, weights = zip(*sources, strict=True)
        texts = []
        for place in rng.choices(places, weights, k=m):
            situation = situation_of(world, obs, FETCH, place, None)
            action = self._retrieve(situation, neighbours)
            texts.append(self._adapt(action, world, None, place, item.destination, item.obj_type))
        return texts, 0

    def _retrieve(self, situation: Situation, neighbours: list[tuple[int, float]]) -> tuple[str, tuple[str, ...]]:
        """The abstract action the experts took in this situation: among the trajectories of the
        similar instructions (votes weighted by similarity) when one of them shows it exactly, else
        the most frequent one over D in the nearest situations D shows."""
        key = (situation, tuple(i for i, _ in neighbours))
        hit = self._memo.get(key)
        if hit is not None:
            return hit
        votes: dict[tuple[str, tuple[str, ...]], float] = {}  # weighted votes, in the order first seen
        for i, w in neighbours:
            for s in self._by_trajectory.get(i, []):
                if s.situation == situation:
                    votes[(s.verb, s.roles)] = votes.get((s.verb, s.roles), 0.0) + max(w, 1e-3)
        if not votes:
            best = min((known.distance(situation) for known in self._by_situation), default=100)
            if best >= 100:
                raise LLMError("the expert data set D has no step like the current situation")
            for known, counts in self._by_situation.items():
                if known.distance(situation) == best:
                    for verb_roles, count in counts.items():
                        votes[verb_roles] = votes.get(verb_roles, 0.0) + count
        action = max(votes, key=votes.__getitem__)  # the first of the most voted
        if len(self._memo) > 100_000:
            self._memo.clear()
        self._memo[key] = action
        return action

    @staticmethod
    def _adapt(action: tuple[str, tuple[str, ...]], world: WorldInfo, target: str | None, source: str | None,
               dest: str, obj_type: str | None = None) -> str:
        verb, roles = action
        values = {TARGET: target, SOURCE: source, DEST: dest,
                  ROOM_OF_SOURCE: world.furniture_room.get(source or ""), ROOM_OF_DEST: world.furniture_room.get(dest)}
        args = [values.get(r) for r in roles]
        if TARGET in roles and target is None:  # the object is not in view yet: say its type
            args = [a if r != TARGET else obj_type for a, r in zip(args, roles, strict=True)]
        if any(a is None for a in args):
            args = [a or source or dest for a in args]
        if verb in ("putin", "puton"):
            verb = "putin" if world.relation(dest) == INSIDE else "puton"
        return action_to_text(Action(verb, tuple(str(a) for a in args)))

    def _sources(self, item: GoalItem, world: WorldInfo, know: Knowledge, neighbours: list[tuple[int, float]],
                 scene_knowledge: SceneKnowledge, obs: Observation) -> list[tuple[str, float]]:
        """Unsearched candidate places for an object type: where experts of similar instructions found
        that type (weighted by instruction similarity), else common sense, else any unsearched place.
        Places in the robot's room weigh more (``offline.search_locality``), as a searcher checks the cupboards around
        it before crossing the flat; without this the samples send the robot back and forth."""
        furniture = set(world.furniture)
        excluded = know.searched | {item.destination}
        weights: defaultdict[str, float] = defaultdict(float)
        for pool in (neighbours, [(k, 1.0) for k in range(len(self.trajectories))]):
            votes = {(k, s.source): w for k, w in pool for s in self._by_trajectory.get(k, [])
                     if s.obj_type == item.obj_type and s.source}  # one vote per expert and object moved
            for (_k, source), w in votes.items():
                place = source if source in furniture else self._ground_place(source, world)
                if place and place not in excluded:
                    weights[place] += max(w, 1e-3)
            if weights:  # beyond the nearest instructions only when they name no unsearched place
                break
        if not weights:
            for place, w in scene_knowledge.place_weights(item.obj_type).items():
                if place not in excluded:
                    weights[place] += w
        if not weights:
            for place in world.furniture:
                if place not in excluded:
                    weights[place] += 1.0
        for place in weights:
            weights[place] *= self.locality[0] if world.furniture_room.get(place) == obs.room else self.locality[1]
        return sorted(weights.items(), key=lambda x: -x[1])

    def _ground_place(self, name: str, world: WorldInfo) -> str | None:
        match = self.grounder.ground_name(name_to_text(name), list(world.furniture), self.place_match)
        return match.name if match else None



def _current_item(world: WorldInfo, goal: Goal, know: Knowledge,
                  obs: Observation) -> tuple[GoalItem | None, str | None]:
    """The goal item to work on and a known instance to fetch for it (None: search for one).
    Items whose object is in hand come first, then items with a known instance, then goal order."""
    at_dest: dict[GoalItem, int] = {}
    for item in goal:
        at_dest[item] = sum(1 for o, f in know.location.items()
                            if f == item.destination and world.object_type.get(o) == item.obj_type)
    open_items = [g for g in goal if at_dest[g] < g.count]
    if not open_items:
        return None, None
    for item in open_items:
        if know.holding and world.object_type.get(know.holding) == item.obj_type:
            return item, know.holding
    locked = {o for g in goal for o, f in know.location.items()
              if f == g.destination and world.object_type.get(o) == g.obj_type}
    best: tuple[GoalItem, str] | None = None
    for item in open_items:
        candidates = sorted(o for o, f in know.location.items()
                            if world.object_type.get(o) == item.obj_type and o not in locked and f != item.destination)
        visible = [o for o in candidates if any(o == r[1] for r in obs.relations)]
        if visible:
            return item, visible[0]
        if candidates and best is None:
            best = (item, candidates[0])
    if best is not None:
        return best
    return open_items[0], None


def state_step(world: WorldInfo, goal: Goal, query: PolicyQuery) -> str | None:
    """The next action text for the first state item of ``goal`` that the query's observations do
    not show holding (a container never seen is closed, as every container starts; a switchable
    thing never seen is unknown and visited); None when every state item is seen to hold."""
    opened: set[str] = set()
    on: set[str] = set()
    seen: set[str] = set()
    for obs in (*query.past_observations, query.observation):
        opened = (opened | obs.open_containers) - obs.closed_containers
        on = (on | obs.switched_on) - obs.switched_off
        seen |= obs.switched_on | obs.switched_off
    obs = query.observation
    todo: list[tuple[str, str, str]] = []  # (thing, where it is worked on, verb)
    for item in goal:
        if not item.is_state:
            continue
        thing, rel = item.obj_type, item.rel
        if rel in (OPEN, CLOSED):
            if (thing in opened) != (rel == OPEN):
                todo.append((thing, thing, "open" if rel == OPEN else "close"))
        elif thing not in seen or (thing in on) != (rel == SWITCHED_ON):
            todo.append((thing, world.switch_at.get(thing, thing), "switchon" if rel == SWITCHED_ON else "switchoff"))
    if not todo:
        return None
    here = [t for t in todo if world.furniture_room.get(t[1]) == obs.room]  # the robot's room first
    thing, at, verb = (here or todo)[0]
    room = world.furniture_room.get(at, obs.room)
    if room != obs.room:
        return action_to_text(Action("walk", (room,)))
    if obs.near != at:
        return action_to_text(Action("walk", (at,)))
    return action_to_text(Action(verb, (thing,)))


def _put_down(world: WorldInfo, obs: Observation, obj: str) -> str:
    near = obs.near
    if near and near in set(world.surfaces):
        return action_to_text(Action("puton", (obj, near)))
    if near and near in obs.open_containers:
        return action_to_text(Action("putin", (obj, near)))
    surfaces = [f for f in world.surfaces if world.furniture_room.get(f) == obs.room]
    if surfaces:
        return action_to_text(Action("walk", (surfaces[0],)))
    return action_to_text(Action("walk", (world.surfaces[0],)))


def retrieval_policy(resources: Resources) -> RetrievalPolicy:
    """The policy over the backend's data set D, built once per backend resources (its settings:
    ``offline.policy_pool``, ``offline.search_locality``, ``offline.place_match`` of config/llm.yaml)."""
    def build() -> RetrievalPolicy:
        opts = resources.config.section("offline")
        locality = tuple(float(w) for w in opts["search_locality"])
        if len(locality) != 2:
            raise LLMError(f"offline.search_locality must be two weights (robot's room, elsewhere), got {locality!r}")
        return RetrievalPolicy(expert(resources), int(opts["policy_pool"]), locality, float(opts["place_match"]))

    return resources.shared("retrieval_policy", build)
