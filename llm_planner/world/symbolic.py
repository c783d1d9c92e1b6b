"""The symbolic household POMDP: the generative model G of LLM-MCTS (seed 000, §2.1, Alg. 1, App. A).

State: the robot's room, the furniture it stands at (``near``; it is CLOSE to that furniture and
to everything on or in it), what it holds, where every movable object is (INSIDE a container or
ON a surface), and which containers are open.

Actions (Appendix A.4, our names):

=====================  ==============================================================
``walk(target)``       target is a room (always visible), a furniture of the robot's
                       room, or a visible object; afterwards the robot is in the
                       target's room and near its furniture.
``grab(o)``            o visible and at the furniture the robot is near; hand empty.
``open(c)``/``close``  near container c; c closed / open.
``putin(o, c)``        holding o, near container c, c open.
``puton(o, s)``        holding o, near surface s.
=====================  ==============================================================

Observation (App. A.5): the robot's room, what it holds, the open/closed state of the containers
of its room, and INSIDE/ON relations of objects on the room's surfaces and in its open containers.

Transitions are deterministic and cheap (a tuple copy); ``step`` is the hot loop of tree search.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, NamedTuple, Sequence

from llm_planner.errors import GoalError
from llm_planner.world.scene import CONTAINER, Scene

INSIDE = "inside"
ON = "on"
VERBS = ("walk", "grab", "open", "close", "putin", "puton")
VERB_ARITY = {"walk": 1, "grab": 1, "open": 1, "close": 1, "putin": 2, "puton": 2}


class Action(NamedTuple):
    """A ground action, e.g. ``Action('putin', ('apple_1', 'fridge'))``."""

    verb: str
    args: tuple[str, ...]

    def __str__(self) -> str:
        return f"{self.verb}({', '.join(self.args)})"

    @staticmethod
    def parse(text: str) -> "Action":
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


@dataclass(frozen=True, slots=True)
class Observation:
    room: str
    near: str | None
    holding: str | None
    relations: frozenset[tuple[str, str, str]]  # (INSIDE|ON, object, furniture) of visible objects
    open_containers: frozenset[str]  # containers of the room that are open
    closed_containers: frozenset[str]  # containers of the room that are closed
    seen_places: frozenset[str]  # furniture whose full contents are shown (room surfaces, open containers)


@dataclass(frozen=True, slots=True)
class GoalItem:
    """(REL, object type, destination, count): at least ``count`` objects of the type REL destination."""

    rel: str
    obj_type: str
    destination: str
    count: int = 1

    def __str__(self) -> str:
        return f"({self.rel}, {self.obj_type}, {self.destination}, {self.count})"


Goal = tuple[GoalItem, ...]


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
        self.room_surfaces = {r: frozenset(f for f in fs if not self.is_container[f]) for r, fs in self.room_furniture.items()}
        self.room_containers = {r: frozenset(f for f in fs if self.is_container[f]) for r, fs in self.room_furniture.items()}

    # ----------------------------------------------------------------- states
    def initial_state(self, placement: dict[str, str], room: str | None = None) -> State:
        missing = [o for o in self.objects if o not in placement]
        if missing:
            raise ValueError(f"placement lacks objects: {', '.join(missing[:5])}")
        return State(
            room=room or self.scene.robot_room,
            near=None,
            holding=None,
            placement=tuple(placement[o] for o in self.objects),
            opened=frozenset(),
        )

    def sample_initial_state(self, seed: int) -> State:
        return self.initial_state(self.scene.sample_placement(seed))

    def relation(self, furniture: str) -> str:
        return INSIDE if self.is_container[furniture] else ON

    def location(self, state: State, obj: str) -> str | None:
        return state.placement[self.index[obj]]

    def facts(self, state: State) -> frozenset[tuple[str, str, str]]:
        """Every INSIDE/ON relation of the state (full observation)."""
        return frozenset(
            (self.relation(f), o, f) for o, f in zip(self.objects, state.placement) if f is not None
        )

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
        return self.room_surfaces[state.room] | (self.room_containers[state.room] & state.opened)

    def observe(self, state: State) -> Observation:
        seen = self.seen_places(state)
        relations = frozenset(
            (self.relation(f), o, f) for o, f in zip(self.objects, state.placement) if f is not None and f in seen
        )
        containers = self.room_containers[state.room]
        return Observation(
            room=state.room,
            near=state.near,
            holding=state.holding,
            relations=relations,
            open_containers=containers & state.opened,
            closed_containers=containers - state.opened,
            seen_places=seen,
        )

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
                return State(target, None, state.holding, state.placement, state.opened)
            near = target if target in self.furniture_room else state.placement[self.index[target]]
            return State(self.furniture_room[near], near, state.holding, state.placement, state.opened)
        if verb == "grab":
            i = self.index[args[0]]
            placement = state.placement[:i] + (None,) + state.placement[i + 1:]
            return State(state.room, state.near, args[0], placement, state.opened)
        if verb == "open":
            return State(state.room, state.near, state.holding, state.placement, state.opened | {args[0]})
        if verb == "close":
            return State(state.room, state.near, state.holding, state.placement, state.opened - {args[0]})
        i = self.index[args[0]]
        placement = state.placement[:i] + (args[1],) + state.placement[i + 1:]
        return State(state.room, state.near, None, placement, state.opened)

    def step(self, state: State, action: Action, goal: Goal) -> StepResult:
        """G(s, a): next state, observation, reward and done. Inapplicable actions change nothing."""
        if self.why_not(state, action) is not None:
            return StepResult(state, self.observe(state), 0.0, False)
        nxt = self.transition(state, action)
        done = self.satisfied(nxt, goal)
        return StepResult(nxt, self.observe(nxt), self.goal_reward if done else 0.0, done)

    def legal_actions(self, state: State) -> list[Action]:
        """The admissible actions of a state (what a policy may choose from)."""
        room = state.room
        actions = [Action("walk", (r,)) for r in self.rooms if r != room]
        actions += [Action("walk", (f,)) for f in self.room_furniture[room] if f != state.near]
        seen = self.seen_places(state)
        for o, f in zip(self.objects, state.placement):
            if f is not None and f in seen:
                if f != state.near:
                    actions.append(Action("walk", (o,)))
                elif state.holding is None:
                    actions.append(Action("grab", (o,)))
        near = state.near
        if near is not None:
            if self.is_container[near]:
                if near in state.opened:
                    actions.append(Action("close", (near,)))
                    if state.holding is not None:
                        actions.append(Action("putin", (state.holding, near)))
                else:
                    actions.append(Action("open", (near,)))
            elif state.holding is not None:
                actions.append(Action("puton", (state.holding, near)))
        return actions

    # ------------------------------------------------------------------ goals
    def count_satisfied(self, state: State, item: GoalItem) -> int:
        return sum(
            1 for o, f in zip(self.objects, state.placement) if f == item.destination and self.object_type[o] == item.obj_type
        )

    def satisfied(self, state: State, goal: Goal) -> bool:
        return all(self.count_satisfied(state, item) >= item.count for item in goal)

    def check_goal(self, goal: Iterable[GoalItem]) -> Goal:
        """Validate a goal against the scene; raises GoalError saying what is impossible."""
        items = tuple(goal)
        if not items:
            raise GoalError("the goal is empty")
        needed: dict[str, int] = {}
        for item in items:
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


def goal_to_lists(goal: Sequence[GoalItem]) -> list[list]:
    """JSON form of a goal: ``[[REL, object, destination, count], ...]`` (DESIGN.md)."""
    return [[g.rel, g.obj_type, g.destination, g.count] for g in goal]


def goal_from_lists(items: Sequence[Sequence]) -> Goal:
    return tuple(GoalItem(str(r), str(o), str(d), int(c)) for r, o, d, c in items)
