"""The symbolic household POMDP: the generative model G of LLM-MCTS (seed 000, §2.1, Alg. 1, App. A).

State: the robot's room, the furniture it stands at (``near``; it is CLOSE to that furniture and
to everything on or in it), what it holds, where every movable object is (INSIDE a container or
ON a surface), which containers are open and which switchable things are on.

Actions (Appendix A.4, our names):

=====================  ==============================================================
``walk(target)``       target is a room (always visible), a furniture of the robot's
                       room, or a visible object; afterwards the robot is in the
                       target's room and near its furniture.
``grab(o)``            o visible and at the furniture the robot is near; hand empty.
``open(c)``/``close``  near container c; c closed / open.
``putin(o, c)``        holding o, near container c, c open.
``puton(o, s)``        holding o, near surface s.
``switchon(d)``/       near the furniture d stands at (d itself for an appliance); d off /
``switchoff``          on. VirtualHome's SWITCHON/SWITCHOFF (SayCanPay seed, §7.2).
=====================  ==============================================================

Goals: placements ``(INSIDE|ON, object type, destination, count)`` and states ``(open|closed,
container)`` and ``(on|off, switchable thing)``, mixed freely; a state that already holds costs no
step.

Observation (App. A.5): the robot's room, what it holds, the open/closed state of the containers
of its room, the on/off state of its switchable things, and INSIDE/ON relations of objects on the
room's surfaces and in its open containers.

Transitions are deterministic and cheap (a tuple copy); ``step`` is the hot loop of tree search.
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, fields
from functools import lru_cache
from typing import Any, NamedTuple

from llm_planner.domains.household.world.scene import CONTAINER, Scene, load_scene
from llm_planner.errors import GoalError

INSIDE = "inside"
ON = "on"
OPEN = "open"
CLOSED = "closed"
SWITCHED_ON = "on"  # the relation of a state goal; the placement relation ON is also "on"
OFF = "off"
#: The relations of a state goal: (REL, thing). "on" is a state when the goal item has no destination.
STATE_RELATIONS = (OPEN, CLOSED, SWITCHED_ON, OFF)
VERBS = ("walk", "grab", "open", "close", "putin", "puton", "switchon", "switchoff")
VERB_ARITY = {"walk": 1, "grab": 1, "open": 1, "close": 1, "putin": 2, "puton": 2, "switchon": 1, "switchoff": 1}
_GOAL_CACHE_SIZE = 4096  # compiled goals kept by a Household (cleared when full)
_RELATIONS_CACHE_SIZE = 65536  # memoised visible-relation sets kept by a Household (cleared when full)


class Action(NamedTuple):
    """A ground action, e.g. ``Action('putin', ('apple_1', 'fridge'))``."""

    verb: str
    args: tuple[str, ...]

    def __str__(self) -> str:
        return f"{self.verb}({', '.join(self.args)})"

    @staticmethod
    def parse(text: str) -> Action:
        """Parse the canonical form ``verb(a, b)``; raises ValueError on anything else."""
        text = text.strip()
        verb, sep, rest = text.partition("(")
        if not sep or not rest.endswith(")"):
            raise ValueError(f"not an action: {text!r} (expected verb(arg, ...))")
        verb = verb.strip().lower()
        args = tuple(a.strip() for a in rest[:-1].split(",") if a.strip())
        if verb not in VERB_ARITY:
            raise ValueError(f"unknown action '{verb}' (actions: {', '.join(VERBS)})")
        if len(args) != VERB_ARITY[verb]:
            raise ValueError(f"{verb} takes {VERB_ARITY[verb]} argument(s), got {len(args)}")
        return Action(verb, args)


@dataclass(frozen=True, slots=True)
class State:
    room: str
    near: str | None
    holding: str | None
    placement: tuple[str | None, ...]  # furniture per object index; None while held
    opened: frozenset[str]
    switched_on: frozenset[str] = frozenset()  # switchable things that are on


@dataclass(frozen=True, slots=True)
class Observation:
    room: str
    near: str | None
    holding: str | None
    relations: frozenset[tuple[str, str, str]]  # (INSIDE|ON, object, furniture) of visible objects
    open_containers: frozenset[str]  # containers of the room that are open
    closed_containers: frozenset[str]  # containers of the room that are closed
    seen_places: frozenset[str]  # furniture whose full contents are shown (room surfaces, open containers)
    switched_on: frozenset[str] = frozenset()   # switchable things of the room that are on
    switched_off: frozenset[str] = frozenset()  # switchable things of the room that are off

    def to_dict(self) -> dict[str, Any]:
        """JSON form (sorted lists), e.g. for the expert data set's per-step observations."""
        data = {"room": self.room, "near": self.near, "holding": self.holding,
                "relations": sorted(list(r) for r in self.relations),
                "open_containers": sorted(self.open_containers), "closed_containers": sorted(self.closed_containers),
                "seen_places": sorted(self.seen_places)}
        if self.switched_on or self.switched_off:
            data.update(switched_on=sorted(self.switched_on), switched_off=sorted(self.switched_off))
        return data

    @staticmethod
    def from_dict(data: Mapping[str, Any]) -> Observation:
        """Inverse of :meth:`to_dict`; raises ValueError naming a malformed field."""
        try:
            relations = frozenset((str(r), str(o), str(f)) for r, o, f in data["relations"])
            return Observation(str(data["room"]), data.get("near"), data.get("holding"), relations,
                               frozenset(data["open_containers"]), frozenset(data["closed_containers"]),
                               frozenset(data["seen_places"]), frozenset(data.get("switched_on", ())),
                               frozenset(data.get("switched_off", ())))
        except (KeyError, TypeError, ValueError) as exc:
            raise ValueError(f"not an observation record ({exc!r}): expected room, near, holding, relations "
                             "[[rel, object, furniture], ...], open_containers, "
                             "closed_containers, seen_places") from None


@dataclass(frozen=True, slots=True)
class GoalItem:
    """A placement (REL, object type, destination, count): at least ``count`` objects of the type REL
    destination; or a state (REL, thing) with REL in :data:`STATE_RELATIONS`, no destination and count
    1: the container ``thing`` open/closed, the switchable ``thing`` on/off."""

    rel: str
    obj_type: str
    destination: str = ""
    count: int = 1

    @property
    def is_state(self) -> bool:
        """A state goal (open/closed/on/off of a thing), not a placement."""
        return not self.destination and self.rel in STATE_RELATIONS

    def __str__(self) -> str:
        if self.is_state:
            return f"({self.rel}, {self.obj_type})"
        return f"({self.rel}, {self.obj_type}, {self.destination}, {self.count})"


def state_goal(rel: str, thing: str) -> GoalItem:
    """The goal item that ``thing`` is open, closed, on or off."""
    if rel not in STATE_RELATIONS:
        raise ValueError(f"not a state relation: {rel!r} (expected one of {', '.join(STATE_RELATIONS)})")
    return GoalItem(rel, thing, "", 1)


Goal = tuple[GoalItem, ...]
#: A goal as :meth:`Household.satisfied` checks it: per placement item (indices of the type's
#: objects, destination, count); the things that must be (open, closed, on, off), None without states.
_CompiledGoal = tuple[tuple[tuple[tuple[int, ...], str, int], ...],
                      tuple[frozenset[str], frozenset[str], frozenset[str], frozenset[str]] | None]


# Positional constructors of State and Observation for the hot loop. They set the slots directly:
# the dataclass-generated __init__ of a frozen class calls object.__setattr__ per field and is
# about twice as slow. Same fields in the same order, hence equal objects with equal hashes.
_new = object.__new__
_STATE_SLOTS = tuple(getattr(State, f.name).__set__ for f in fields(State))
_OBS_SLOTS = tuple(getattr(Observation, f.name).__set__ for f in fields(Observation))
assert [f.name for f in fields(State)] == ["room", "near", "holding", "placement", "opened", "switched_on"]
assert [f.name for f in fields(Observation)] == ["room", "near", "holding", "relations", "open_containers",
                                                 "closed_containers", "seen_places", "switched_on", "switched_off"]


def _state(room: str, near: str | None, holding: str | None, placement: tuple[str | None, ...],
           opened: frozenset[str], switched_on: frozenset[str]) -> State:
    s = _new(State)
    a, b, c, d, e, f = _STATE_SLOTS
    a(s, room), b(s, near), c(s, holding), d(s, placement), e(s, opened), f(s, switched_on)
    return s


def _observation(room: str, near: str | None, holding: str | None, relations: frozenset[tuple[str, str, str]],
                 open_containers: frozenset[str], closed_containers: frozenset[str],
                 seen_places: frozenset[str], switched_on: frozenset[str],
                 switched_off: frozenset[str]) -> Observation:
    o = _new(Observation)
    a, b, c, d, e, f, g, h, i = _OBS_SLOTS
    a(o, room), b(o, near), c(o, holding), d(o, relations), e(o, open_containers), f(o, closed_containers)
    g(o, seen_places), h(o, switched_on), i(o, switched_off)
    return o


class StepResult(NamedTuple):
    state: State
    observation: Observation
    reward: float
    done: bool


class Household:
    """The symbolic model of one scene. Immutable; share one instance across searches."""

    def __init__(self, scene: Scene, goal_reward: float = 1.0) -> None:
        self.scene = scene
        self.goal_reward = goal_reward
        self.objects: tuple[str, ...] = tuple(scene.object_names)
        self.index = {name: i for i, name in enumerate(self.objects)}
        self.object_type = {name: scene.type_of(name) for name in self.objects}
        self.rooms: tuple[str, ...] = tuple(scene.rooms)
        self.furniture: tuple[str, ...] = tuple(scene.furniture)
        self.furniture_room = {f.name: f.room for f in scene.furniture.values()}
        self.is_container = {f.name: f.kind == CONTAINER for f in scene.furniture.values()}
        self.room_furniture = {r: tuple(f for f in self.furniture if self.furniture_room[f] == r) for r in self.rooms}
        self.room_surfaces = {r: frozenset(f for f in fs if not self.is_container[f])
                              for r, fs in self.room_furniture.items()}
        self.room_containers = {r: frozenset(f for f in fs if self.is_container[f])
                                for r, fs in self.room_furniture.items()}
        #: switchable thing -> the furniture the robot stands at to switch it (itself for an appliance)
        self.switch_at = {d.name: d.at for d in scene.switchables.values()}
        self.switchables: tuple[str, ...] = tuple(self.switch_at)
        self.room_switchables = {r: frozenset(d for d, at in self.switch_at.items() if self.furniture_room[at] == r)
                                 for r in self.rooms}
        self._precompute()

    def _precompute(self) -> None:
        """Indices and interned tuples that keep the hot loop (step, observe, legal_actions) free of
        allocation and method calls; results are identical to the plain definitions."""
        rel = {f: INSIDE if self.is_container[f] else ON for f in self.furniture}
        self._rel = rel
        #: per object index: furniture -> the interned (REL, object, furniture) fact
        self._facts = tuple({f: (rel[f], o, f) for f in self.furniture} for o in self.objects)
        self._type_indices = {t: tuple(i for i, o in enumerate(self.objects) if self.object_type[o] == t)
                              for t in self.scene.object_types}
        self._walk_actions = {t: Action("walk", (t,)) for t in self.rooms + self.furniture + self.objects}
        self._obj_walk = tuple(self._walk_actions[o] for o in self.objects)
        self._obj_grab = tuple(Action("grab", (o,)) for o in self.objects)
        self._open_actions = {f: Action("open", (f,)) for f in self.furniture}
        self._close_actions = {f: Action("close", (f,)) for f in self.furniture}
        self._put_actions = {(o, f): Action("putin" if self.is_container[f] else "puton", (o, f))
                             for o in self.objects for f in self.furniture}
        self._switch_actions = {(d, on): Action("switchon" if on else "switchoff", (d,))
                                for d in self.switchables for on in (True, False)}
        self._room_walks = {r: tuple(self._walk_actions[x] for x in self.rooms if x != r) for r in self.rooms}
        self._furniture_walks = {r: tuple((f, self._walk_actions[f]) for f in fs)
                                 for r, fs in self.room_furniture.items()}
        self._views: dict[tuple[str, frozenset[str]], tuple[frozenset[str], frozenset[str], frozenset[str]]] = {}
        #: (placement, seen places) -> visible relations; search revisits placements very often
        self._seen_relations: dict[tuple[tuple[str | None, ...], frozenset[str]], frozenset[tuple[str, str, str]]] = {}
        self._goals: dict[int, tuple[Sequence[GoalItem], _CompiledGoal]] = {}

    def __getstate__(self) -> dict[str, Any]:
        """Pickle without the memo caches (worker processes rebuild them)."""
        return {"scene": self.scene, "goal_reward": self.goal_reward}

    def __setstate__(self, state: dict[str, Any]) -> None:
        type(self).__init__(self, state["scene"], state["goal_reward"])

    def _view(self, room: str, opened: frozenset[str]) -> tuple[frozenset[str], frozenset[str], frozenset[str]]:
        """(seen places, open containers, closed containers) of a room, memoised per opened set."""
        view = self._views.get((room, opened))
        if view is None:
            containers = self.room_containers[room]
            open_here = containers & opened
            view = (self.room_surfaces[room] | open_here, open_here, containers - open_here)
            self._views[(room, opened)] = view
        return view

    def _compiled_goal(self, goal: Sequence[GoalItem]) -> _CompiledGoal:
        """(indices of the type's objects, destination, count) per placement item, and (things that must
        be open, closed, on, off) of the state items, memoised per goal object."""
        entry = self._goals.get(id(goal))
        if entry is not None and entry[0] is goal:
            return entry[1]
        placements = tuple((self._type_indices.get(g.obj_type, ()), g.destination, g.count)
                           for g in goal if not g.is_state)
        must = [frozenset(g.obj_type for g in goal if g.is_state and g.rel == rel) for rel in STATE_RELATIONS]
        states = (must[0], must[1], must[2], must[3]) if any(must) else None
        compiled = (placements, states)
        if len(self._goals) >= _GOAL_CACHE_SIZE:
            self._goals.clear()
        self._goals[id(goal)] = (goal, compiled)  # holding the goal keeps its id from being reused
        return compiled

    # ----------------------------------------------------------------- states
    def initial_state(self, placement: dict[str, str], room: str | None = None,
                      switched_on: frozenset[str] = frozenset()) -> State:
        missing = [o for o in self.objects if o not in placement]
        if missing:
            raise ValueError(f"placement lacks objects: {', '.join(missing[:5])}")
        unknown = sorted(switched_on - set(self.switchables))
        if unknown:
            raise ValueError(f"not switchable in this scene: {', '.join(unknown)}")
        return State(
            room=room or self.scene.robot_room,
            near=None,
            holding=None,
            placement=tuple(placement[o] for o in self.objects),
            opened=frozenset(),
            switched_on=frozenset(switched_on),
        )

    def sample_initial_state(self, seed: int) -> State:
        """The episode of ``seed``: placements and what is on drawn from the scene (every container closed)."""
        return self.initial_state(self.scene.sample_placement(seed), switched_on=self.scene.sample_switched_on(seed))

    def relation(self, furniture: str) -> str:
        return self._rel[furniture]

    def location(self, state: State, obj: str) -> str | None:
        return state.placement[self.index[obj]]

    def facts(self, state: State) -> frozenset[tuple[str, str, str]]:
        """Every INSIDE/ON relation of the state (full observation)."""
        facts = self._facts
        return frozenset([facts[i][f] for i, f in enumerate(state.placement) if f is not None])

    # ------------------------------------------------------------- visibility
    def place_visible(self, state: State, furniture: str) -> bool:
        """Objects at this furniture can be seen: it is in the robot's room and not a closed container."""
        if self.furniture_room[furniture] != state.room:
            return False
        return not self.is_container[furniture] or furniture in state.opened

    def visible(self, state: State, target: str) -> bool:
        if target in self.furniture_room:
            return self.furniture_room[target] == state.room
        if target in self.index:
            place = state.placement[self.index[target]]
            return place is not None and self.place_visible(state, place)
        return target in self.scene.rooms

    def seen_places(self, state: State) -> frozenset[str]:
        """Places whose full contents the robot currently sees."""
        return self._view(state.room, state.opened)[0]

    def observe(self, state: State) -> Observation:
        seen, open_here, closed_here = self._view(state.room, state.opened)
        switches = self.room_switchables[state.room]
        on_here = switches & state.switched_on if switches else switches
        key = (state.placement, seen)
        relations = self._seen_relations.get(key)
        if relations is None:
            facts = self._facts
            relations = frozenset([facts[i][f] for i, f in enumerate(state.placement) if f in seen])
            if len(self._seen_relations) >= _RELATIONS_CACHE_SIZE:
                self._seen_relations.clear()
            self._seen_relations[key] = relations
        return _observation(state.room, state.near, state.holding, relations, open_here, closed_here, seen,
                            on_here, switches - on_here if switches else switches)

    # ---------------------------------------------------------------- actions
    def why_not(self, state: State, action: Action) -> str | None:
        """None when the action's preconditions hold, else the reason it cannot be done."""
        verb, args = action
        if VERB_ARITY.get(verb) != len(args):
            return f"unknown action {action}"
        target = args[-1] if verb in ("putin", "puton") else args[0]
        if verb == "walk":
            if target not in self.scene.rooms and target not in self.furniture_room and target not in self.index:
                return f"unknown target '{target}'"
            if target == state.holding:
                return f"already holding {target}"
            return None if self.visible(state, target) else f"{target} is not visible"
        if verb in ("switchon", "switchoff"):
            at = self.switch_at.get(target)
            if at is None:
                return f"{target} cannot be switched on or off"
            if state.near != at:
                return f"not close to {target}" if at == target else f"not close to {at}, where {target} is"
            is_on = target in state.switched_on
            if verb == "switchon" and is_on:
                return f"{target} is already on"
            if verb == "switchoff" and not is_on:
                return f"{target} is already off"
            return None
        if verb == "grab":
            if target not in self.index:
                return f"{target} is not a movable object"
            if state.holding is not None:
                return f"hand is full (holding {state.holding})"
            if not self.visible(state, target):
                return f"{target} is not visible"
            if state.placement[self.index[target]] != state.near:
                return f"not close to {target}"
            return None
        if target not in self.furniture_room:
            return f"unknown furniture '{target}'"
        if state.near != target:
            return f"not close to {target}"
        if verb in ("open", "close"):
            if not self.is_container[target]:
                return f"{target} cannot be opened or closed"
            is_open = target in state.opened
            if verb == "open" and is_open:
                return f"{target} is already open"
            if verb == "close" and not is_open:
                return f"{target} is already closed"
            return None
        obj = args[0]
        if state.holding != obj:
            return f"not holding {obj}"
        if verb == "putin":
            if not self.is_container[target]:
                return f"{target} is a surface; use puton"
            if target not in state.opened:
                return f"{target} is closed"
            return None
        if self.is_container[target]:
            return f"{target} is a container; use putin"
        return None

    def transition(self, state: State, action: Action) -> State:
        """Successor of an applicable action (call :meth:`why_not` first)."""
        verb, args = action
        if verb == "walk":
            target = args[0]
            if target in self.scene.rooms:
                return _state(target, None, state.holding, state.placement, state.opened, state.switched_on)
            near = target if target in self.furniture_room else state.placement[self.index[target]]
            assert near is not None  # why_not: a held object is no walk target
            return _state(self.furniture_room[near], near, state.holding, state.placement, state.opened,
                          state.switched_on)
        if verb == "grab":
            i = self.index[args[0]]
            placement = state.placement[:i] + (None,) + state.placement[i + 1:]
            return _state(state.room, state.near, args[0], placement, state.opened, state.switched_on)
        if verb == "open":
            return _state(state.room, state.near, state.holding, state.placement, state.opened | {args[0]},
                          state.switched_on)
        if verb == "close":
            return _state(state.room, state.near, state.holding, state.placement, state.opened - {args[0]},
                          state.switched_on)
        if verb == "switchon":
            return _state(state.room, state.near, state.holding, state.placement, state.opened,
                          state.switched_on | {args[0]})
        if verb == "switchoff":
            return _state(state.room, state.near, state.holding, state.placement, state.opened,
                          state.switched_on - {args[0]})
        i = self.index[args[0]]
        placement = state.placement[:i] + (args[1],) + state.placement[i + 1:]
        return _state(state.room, state.near, None, placement, state.opened, state.switched_on)

    def step(self, state: State, action: Action, goal: Goal) -> StepResult:
        """G(s, a): next state, observation, reward and done. Inapplicable actions change nothing."""
        if self.why_not(state, action) is not None:
            return StepResult(state, self.observe(state), 0.0, False)
        nxt = self.transition(state, action)
        done = self.satisfied(nxt, goal)
        return StepResult(nxt, self.observe(nxt), self.goal_reward if done else 0.0, done)

    def goal_objects(self, goal: Iterable[GoalItem]) -> tuple[int, ...]:
        """Indices of the instances of the goal's object types: the only objects a task needs to
        walk to or grab (``legal_actions(state, objects)``), in scene order."""
        types = {g.obj_type for g in goal if not g.is_state}
        return tuple(i for i, o in enumerate(self.objects) if self.object_type[o] in types)

    def goal_switchables(self, goal: Iterable[GoalItem]) -> tuple[str, ...]:
        """The switchable things an on/off goal item names: the only ones a task switches
        (``legal_actions(state, objects, switchables)``), in scene order."""
        named = {g.obj_type for g in goal if g.is_state and g.rel in (SWITCHED_ON, OFF)}
        return tuple(d for d in self.switchables if d in named)

    def legal_actions(self, state: State, objects: Sequence[int] | None = None,
                      switchables: Sequence[str] = ()) -> list[Action]:
        """The admissible actions of a state (what a policy may choose from). ``objects``: indices
        of the objects that may be walked to and grabbed (:meth:`goal_objects`; None: every object);
        the planners pass the goal's, so they never move a thing the task does not name.
        ``switchables``: the things that may be switched (:meth:`goal_switchables`), switched when
        the robot stands at them; none by default."""
        near, holding = state.near, state.holding
        actions = list(self._room_walks[state.room])
        actions += [a for f, a in self._furniture_walks[state.room] if f != near]
        seen = self._view(state.room, state.opened)[0]
        obj_walk, obj_grab = self._obj_walk, self._obj_grab
        placement = state.placement
        for i in range(len(placement)) if objects is None else objects:
            f = placement[i]
            if f in seen:
                if f != near:
                    actions.append(obj_walk[i])
                elif holding is None:
                    actions.append(obj_grab[i])
        if near is not None:
            if self.is_container[near]:
                if near in state.opened:
                    actions.append(self._close_actions[near])
                    if holding is not None:
                        actions.append(self._put_actions[(holding, near)])
                else:
                    actions.append(self._open_actions[near])
            elif holding is not None:
                actions.append(self._put_actions[(holding, near)])
            for thing in switchables:
                if self.switch_at[thing] == near:
                    actions.append(self._switch_actions[(thing, thing not in state.switched_on)])
        return actions

    # ------------------------------------------------------------------ goals
    def count_satisfied(self, state: State, item: GoalItem) -> int:
        """Objects of a placement item at its destination; 1 or 0 for a state item."""
        if item.is_state:
            return int(self.state_holds(state, item))
        placement, dest = state.placement, item.destination
        return sum(1 for i in self._type_indices.get(item.obj_type, ()) if placement[i] == dest)

    @staticmethod
    def state_holds(state: State, item: GoalItem) -> bool:
        """A state item (open/closed/on/off of a thing) holds in ``state``."""
        rel, thing = item.rel, item.obj_type
        if rel == OPEN:
            return thing in state.opened
        if rel == CLOSED:
            return thing not in state.opened
        if rel == SWITCHED_ON:
            return thing in state.switched_on
        return thing not in state.switched_on

    def satisfied(self, state: State, goal: Goal) -> bool:
        placement = state.placement
        placements, states = self._compiled_goal(goal)
        for indices, dest, count in placements:
            if sum(1 for i in indices if placement[i] == dest) < count:
                return False
        if states is not None:
            must_open, must_close, must_on, must_off = states
            return (must_open <= state.opened and not must_close & state.opened
                    and must_on <= state.switched_on and not must_off & state.switched_on)
        return True

    def check_goal(self, goal: Iterable[GoalItem]) -> Goal:
        """Validate a goal against the scene; raises GoalError saying what is impossible."""
        items = tuple(goal)
        if not items:
            raise GoalError("the goal is empty")
        needed: dict[str, int] = {}
        asked: dict[tuple[str, bool], str] = {}  # (thing, a switch state?) -> the state asked
        for item in items:
            if item.is_state:
                self._check_state_item(item, asked)
                continue
            if item.obj_type not in self.scene.object_types:
                if item.obj_type in self.furniture_room:
                    raise GoalError(f"'{item.obj_type}' is furniture and cannot be moved")
                raise GoalError(f"the scene has no object '{item.obj_type}'")
            if item.destination not in self.furniture_room:
                raise GoalError(f"the scene has no container or surface '{item.destination}'")
            expected = self.relation(item.destination)
            if item.rel != expected:
                raise GoalError(f"'{item.destination}' is a {'container' if expected == INSIDE else 'surface'}: "
                                f"objects go {expected} it, not {item.rel}")
            if item.count < 1:
                raise GoalError(f"count must be at least 1 in {item}")
            needed[item.obj_type] = needed.get(item.obj_type, 0) + item.count
        for obj_type, n in needed.items():
            have = self.scene.object_types[obj_type].count
            if n > have:
                raise GoalError(f"the goal needs {n} {obj_type}(s) but the scene has {have}")
        return items

    def _check_state_item(self, item: GoalItem, asked: dict[tuple[str, bool], str]) -> None:
        """An open/closed item names a container, an on/off item a switchable thing, and no thing is
        asked in two states; raises GoalError naming what can."""
        thing, switch = item.obj_type, item.rel in (SWITCHED_ON, OFF)
        if item.count != 1:
            raise GoalError(f"a state goal has no count: {item.rel} {thing} holds or not")
        if switch and thing not in self.switch_at:
            can = ", ".join(self.switchables) or "nothing in this scene"
            raise GoalError(f"'{thing}' cannot be switched on or off (things that switch: {can})")
        if not switch and not self.is_container.get(thing, False):
            can = ", ".join(self.scene.containers) or "nothing in this scene"
            raise GoalError(f"'{thing}' cannot be opened or closed (things that open: {can})")
        earlier = asked.setdefault((thing, switch), item.rel)
        if earlier != item.rel:
            raise GoalError(f"the goal asks {thing} to be both {earlier} and {item.rel}")


@lru_cache(maxsize=8)
def household_of(scene: str) -> Household:
    """The household of the scene named ``scene``, built once per process (benchmark workers share it
    across episodes: a Household is not changed by planning or stepping, which take states)."""
    return Household(load_scene(scene))


def goal_to_lists(goal: Sequence[GoalItem]) -> list[list]:
    """JSON form of a goal: ``[[REL, object, destination, count], ...]`` (DESIGN.md); a state item
    has an empty destination and count 1 (``["closed", "fridge", "", 1]``)."""
    return [[g.rel, g.obj_type, g.destination, g.count] for g in goal]


def goal_from_lists(items: Sequence[Sequence]) -> Goal:
    """Inverse of :func:`goal_to_lists`; a state item may also be given as ``[REL, thing]``."""
    return tuple(state_goal(str(i[0]), str(i[1])) if len(i) == 2
                 else GoalItem(str(i[0]), str(i[1]), str(i[2]), int(i[3])) for i in items)
