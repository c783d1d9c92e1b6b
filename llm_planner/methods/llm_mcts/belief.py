"""The belief b(s) of LLM-MCTS (seed 000, §2.2 "Initial belief of state", §2.4, Appendix C.2).

What the agent does not observe is where the movable objects are. Following App. C.2, the belief
of one movable object is a probability vector over every container and surface of the apartment
("its dimension is the same as the total number of containers and surfaces"); entry ``j`` is the
probability that the object is INSIDE container ``j`` / ON surface ``j``. Containers and surfaces
stand in known rooms (the scene), so they need no belief.

* Prior (App. C.2): the language model is asked M times where each object type is; each entry is
  the share of the M answers naming it, unsampled entries get the floor 1e-3, and the vector is
  normalised. The LLM layer computes that table (``llm_planner.llm``); :meth:`Belief.from_prior`
  takes it as ``{object type: {furniture: probability}}`` and gives every instance of a type the
  type's vector. :meth:`Belief.uniform` is the ``uct`` / ``uniform_prior`` belief (§3.1 "We use
  uniform distribution as the initial belief"), :meth:`Belief.point` the ``fully_observable`` one.
  The floor mass is shared by room (:func:`floor_by_room`, ``room_floor_weight`` of
  ``config/llm_mcts.yaml``; 0 restores App. C.2's even floor): when the named places are seen
  empty, the object is looked for first in the rooms the answers put it in.
* Update after each real observation (App. C.2, last paragraph): "if the object is inside the
  current observation ... the other entries ... will be masked out by zero, and the entry of the
  relationships in observation will be replaced by the value of one. However, if a relationship is
  not inside the observation, the value of the corresponding entry will be replaced by zero, and
  the vector will be normalized again." Here: every place whose full contents are seen
  (``Observation.seen_places``: the room's surfaces and open containers) gets zero for every object
  not seen there; every seen object becomes one-hot at its place; rows are renormalised. The
  agent's own part (room, what it is close to, what it holds) is observed; which containers are
  open is remembered from the observations of each room (all closed before any is seen).
* Switchable things (App. C.2 extension: the paper's belief covers object positions only): which
  are on is remembered from the observations of each room (:attr:`Belief.switched_on`, and
  :attr:`Belief.switch_seen` those whose state was seen). A switchable thing a goal names and the
  robot has never seen is on or off with probability 0.5 in each sampled state
  (:meth:`Belief.sample_switched_on`); the search draws those numbers only for a goal that names
  such a thing, so a placement goal's samples are those of a belief without switches.
* A row that loses all its mass (every place the object could be was seen without it) stays at
  zero: :meth:`unsupported` names such objects, and the planner says so instead of searching for
  something its belief says is nowhere.

Sampling (Algorithm 1 line 4, "s ~ b(s)"; §2.4 "It independently samples one position for each
object") is vectorised: one uniform number per object against cumulative rows, a whole batch of
states per numpy call.
"""
from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence

import numpy as np

from llm_planner.domains.household.world.symbolic import Goal, Household, Observation, State
from llm_planner.methods.llm_mcts.tree import trusted

#: App. C.2: "a lower bound of the probability 1 x 10^-3" for unsampled entries.
DEFAULT_FLOOR = 1.0e-3


class Belief:
    """Per-object probability rows over furniture, plus the agent's observed own state.

    ``probs[i, j]``: probability that object ``household.objects[i]`` is at ``furniture[j]``
    (``furniture`` is ``household.furniture``: containers and surfaces, scene order).
    """

    def __init__(self, household: Household, probs: np.ndarray) -> None:
        self.household = household
        self.furniture: tuple[str, ...] = tuple(household.furniture)
        self.col = {f: j for j, f in enumerate(self.furniture)}
        n_obj, n_furn = len(household.objects), len(self.furniture)
        probs = np.asarray(probs, dtype=np.float64)
        if probs.shape != (n_obj, n_furn):
            raise ValueError(f"belief rows must have shape {(n_obj, n_furn)} (objects x furniture), got {probs.shape}")
        if (probs < 0).any() or not np.isfinite(probs).all():
            raise ValueError("belief probabilities must be finite and non-negative")
        self.probs = _normalise(probs)
        self.room: str = household.scene.robot_room
        self.near: str | None = None
        self.holding: str | None = None
        self.opened: set[str] = set()
        self.switched_on: set[str] = set()   # switchable things last seen on
        self.switch_seen: set[str] = set()   # switchable things whose state has been seen
        self._names = np.array(self.furniture, dtype=object)
        self._cum: np.ndarray | None = None

    # ----------------------------------------------------------------- priors
    @classmethod
    def from_prior(cls, household: Household, table: Mapping[str, Mapping[str, float]],
                   floor: float = DEFAULT_FLOOR, named: Mapping[str, Collection[str]] | None = None,
                   room_floor_weight: float = 0.0, trust: Mapping[str, float] | None = None) -> Belief:
        """App. C.2 prior: each instance gets its type's vector; entries the table lacks get ``floor``.

        ``table`` maps an object type to ``{furniture: probability or count}``; a type missing from
        the table gets the floor everywhere (uniform: the model said nothing about it).

        With ``named`` (object type -> the places the model's answers named) and
        ``room_floor_weight`` k > 0, the floor mass of a type is shared by room instead of evenly
        (:func:`floor_by_room`): the answers' places keep exactly the probability App. C.2 gives
        them, and what is left goes mostly to the other furniture of the rooms they stand in.

        With ``trust`` (object type -> the share r of the model's samples for it that named a place),
        a type's row becomes r row + (1 - r) uniform: a model whose answers for a type never read
        leaves that type's belief uniform (:func:`~llm_planner.methods.llm_mcts.tree.trusted`)."""
        furniture = tuple(household.furniture)
        col = {f: j for j, f in enumerate(furniture)}
        rows = np.zeros((len(household.objects), len(furniture)))
        per_type: dict[str, np.ndarray] = {}
        for obj_type in household.scene.object_types:
            row = np.zeros(len(furniture))
            entries = table.get(obj_type) or {}
            for place, weight in entries.items():
                if place not in col:
                    raise ValueError(f"prior of '{obj_type}' names '{place}', which is no container or surface "
                                     f"of scene '{household.scene.name}'")
                row[col[place]] += float(weight)
            total = row.sum()
            if total > 0:
                row = row / total
            row[row == 0.0] = floor
            if room_floor_weight > 0.0 and named is not None and named.get(obj_type):
                row = floor_by_room(row, [col[p] for p in named[obj_type] if p in col],
                                    [household.furniture_room[f] for f in furniture], room_floor_weight)
            r = 1.0 if trust is None else float(trust.get(obj_type, 1.0))
            if r < 1.0:
                row = np.asarray(trusted(list(row / row.sum()), r), dtype=np.float64)
            per_type[obj_type] = row
        for i, obj in enumerate(household.objects):
            rows[i] = per_type[household.object_type[obj]]
        return cls(household, rows)

    @classmethod
    def uniform(cls, household: Household) -> Belief:
        """Every container and surface equally likely for every object (the UCT baseline's belief)."""
        return cls(household, np.ones((len(household.objects), len(household.furniture))))

    @classmethod
    def point(cls, household: Household, state: State) -> Belief:
        """All mass on the true placement (the ``fully_observable`` ablation only)."""
        belief = cls(household, np.ones((len(household.objects), len(household.furniture))))
        belief.probs[:] = 0.0
        for i, place in enumerate(state.placement):
            if place is not None:
                belief.probs[i, belief.col[place]] = 1.0
        belief.room, belief.near, belief.holding = state.room, state.near, state.holding
        belief.opened = set(state.opened)
        belief.switched_on = set(state.switched_on)
        belief.switch_seen = set(household.switchables)
        return belief

    # ----------------------------------------------------------------- update
    def update(self, observation: Observation) -> None:
        """Bayes-free update of App. C.2 from one real observation (see the module docstring)."""
        hh = self.household
        self.room, self.near, self.holding = observation.room, observation.near, observation.holding
        self.opened |= set(observation.open_containers)
        self.opened -= set(observation.closed_containers)
        self.switched_on |= set(observation.switched_on)
        self.switched_on -= set(observation.switched_off)
        self.switch_seen |= observation.switched_on | observation.switched_off
        seen_cols = [self.col[f] for f in observation.seen_places if f in self.col]
        if seen_cols:
            self.probs[:, seen_cols] = 0.0  # places seen without the object: zero
        for _rel, obj, place in observation.relations:
            i = hh.index.get(obj)
            if i is None or place not in self.col:
                continue
            self.probs[i, :] = 0.0  # the object's other entries: masked out by zero
            self.probs[i, self.col[place]] = 1.0  # the observed relation: one
        self.probs = _normalise(self.probs)
        self._cum = None

    # ------------------------------------------------------------------ query
    def row(self, obj: str) -> dict[str, float]:
        """The object's distribution over furniture (non-zero entries only)."""
        r = self.probs[self.household.index[obj]]
        return {f: float(p) for f, p in zip(self.furniture, r, strict=True) if p > 0.0}

    def top(self, obj: str, k: int = 3) -> list[tuple[str, float]]:
        return sorted(self.row(obj).items(), key=lambda kv: -kv[1])[:k]

    def unsupported(self, objects: Iterable[str]) -> list[str]:
        """Objects (not in hand) whose row has no mass left: the belief says they are nowhere."""
        idx = self.household.index
        return [o for o in objects if o != self.holding and self.probs[idx[o]].sum() <= 0.0]

    def goal_support_problem(self, goal: Goal) -> str:
        """'' when every goal item has enough instances the belief can place; else why not."""
        hh = self.household
        for item in goal:
            if item.is_state:
                continue
            instances = [o for o in hh.objects if hh.object_type[o] == item.obj_type]
            lost = self.unsupported(instances)
            if len(instances) - len(lost) < item.count:
                return (f"the belief has no support for '{item.obj_type}': "
                        f"{', '.join(lost)} {'was' if len(lost) == 1 else 'were'} not found in any place "
                        f"it could be (every container and surface it may be in was seen without it)")
        return ""

    # --------------------------------------------------------------- sampling
    def sample_placements(self, rng: np.random.Generator, n: int) -> list[tuple[str | None, ...]]:
        """``n`` placements, one furniture per object drawn independently from its row (§2.4).

        The held object has no placement (None). A row without mass (see :meth:`unsupported`)
        draws uniformly among the places not currently seen, so a sampled state stays a state."""
        if self._cum is None:
            probs = self.probs.copy()
            dead = probs.sum(axis=1) <= 0.0
            if dead.any():
                fallback = np.ones(len(self.furniture))
                unseen = [j for j, f in enumerate(self.furniture) if not self._place_seen(f)]
                if unseen:
                    fallback[:] = 0.0
                    fallback[unseen] = 1.0
                probs[dead] = fallback / fallback.sum()
            cum = np.cumsum(probs, axis=1)
            cum /= cum[:, -1:]
            self._cum = cum
        cum = self._cum
        u = rng.random((n, cum.shape[0]))
        idx = (cum[None, :, :] < u[:, :, None]).sum(axis=2)
        np.minimum(idx, cum.shape[1] - 1, out=idx)
        names = self._names[idx]
        held = self.household.index.get(self.holding) if self.holding else None
        if held is not None:
            names[:, held] = None
        return [tuple(row) for row in names.tolist()]

    def unfinished(self, placement: Sequence[str | None], goal: Goal,
                   rng: np.random.Generator) -> tuple[str | None, ...] | None:
        """A placement in which ``goal`` does not hold, made from one in which it does: for one goal
        item (drawn at random among those the belief allows to fail) enough of the instances at its
        destination move elsewhere, each to a place drawn from its row without that destination (the
        belief conditioned on "this object is not there"). None when the belief leaves no item a way
        to fail (every instance at a destination was seen there).

        The episode runs because its goal does not hold yet; a sampled world where it already holds
        rewards any put in the search (``grab(x)`` and ``puton(x, where x was)`` "reach the goal"),
        which is how a search ends up shuffling objects round in a loop."""
        hh = self.household
        out = list(placement)
        breakable = []
        for item in goal:
            if item.is_state:
                continue
            there = [i for i in _instances(hh, item.obj_type) if out[i] == item.destination]
            spare = len(there) - item.count + 1  # instances that must leave for the item to fail
            col = self.col.get(item.destination)
            movable = [i for i in there if col is not None and self.probs[i].sum() - self.probs[i, col] > 0.0]
            if spare > 0 and len(movable) >= spare:
                breakable.append((item, movable, spare, col))
        if not breakable:
            return None
        item, movable, spare, col = breakable[int(rng.integers(len(breakable)))]
        for i in rng.permutation(movable)[:spare]:
            row = self.probs[int(i)].copy()
            row[col] = 0.0
            out[int(i)] = self.furniture[int(rng.choice(len(row), p=row / row.sum()))]
        return tuple(out)

    def sample_switched_on(self, rng: np.random.Generator, n: int, things: Sequence[str]) -> list[frozenset[str]]:
        """``n`` sets of the switchable things that are on: those last seen on, and each of
        ``things`` never seen drawn on with probability 0.5 (one number per state and unseen thing,
        none when all of ``things`` were seen)."""
        known = frozenset(self.switched_on)
        unseen = [d for d in things if d not in self.switch_seen]
        if not unseen:
            return [known] * n
        draws = rng.random((n, len(unseen))) < 0.5
        return [known | {d for d, on in zip(unseen, row, strict=True) if on} for row in draws.tolist()]

    def state_with(self, placement: Sequence[str | None], switched_on: frozenset[str] | None = None) -> State:
        """The full state of a sampled placement with the agent's observed own state; the switchable
        things on are ``switched_on`` (None: those last seen on)."""
        on = frozenset(self.switched_on) if switched_on is None else switched_on
        return State(self.room, self.near, self.holding, tuple(placement), frozenset(self.opened), on)

    def _place_seen(self, furniture: str) -> bool:
        hh = self.household
        if hh.furniture_room[furniture] != self.room:
            return False
        return not hh.is_container[furniture] or furniture in self.opened


def floor_by_room(row: np.ndarray, named_cols: Sequence[int], rooms: Sequence[str], weight: float) -> np.ndarray:
    """One prior row with its floor mass shared by room (the ``room_floor_weight`` of
    ``config/llm_mcts.yaml``).

    App. C.2 gives every place the model did not name the same floor (1e-3) "to ensure that the
    model will not eliminate other possibilities when the commonsense model is wrong"; once the
    named places are seen without the object (App. C.2's update zeroes them), that floor is the
    whole belief and it is uniform over the apartment, so the search for a carrot that is not in
    the fridge leaves the kitchen as readily as it opens the larder beside the fridge. §2.2 keeps
    the belief as an object-centric graph in which furniture stands inside rooms ("fridge is inside
    kitchen"); this reads the model's answers at that room level too: an unnamed place gets
    ``1 + weight * m`` shares of the floor mass, where ``m`` is the share of the named probability in
    its room. The named places keep their probabilities and the floor keeps its total (``n_unnamed
    * floor`` before normalisation), so sampled worlds change only where they drew a floor entry;
    ``weight`` 0 is App. C.2's even floor."""
    row = np.asarray(row, dtype=np.float64).copy()
    named = np.zeros(len(row), dtype=bool)
    named[list(named_cols)] = True
    if named.all() or not named.any():
        return row
    named_mass = row[named].sum()
    if named_mass <= 0.0:
        return row
    room_mass: dict[str, float] = {}
    for j in np.flatnonzero(named).tolist():
        room_mass[rooms[j]] = room_mass.get(rooms[j], 0.0) + float(row[j]) / named_mass
    unnamed = np.flatnonzero(~named)
    shares = np.array([1.0 + weight * room_mass.get(rooms[j], 0.0) for j in unnamed.tolist()])
    row[unnamed] = row[unnamed].sum() * shares / shares.sum()
    return row


def _instances(household: Household, obj_type: str) -> list[int]:
    return [i for i, o in enumerate(household.objects) if household.object_type[o] == obj_type]


def _normalise(probs: np.ndarray) -> np.ndarray:
    """Rows divided by their sums; all-zero rows stay zero (no support)."""
    sums = probs.sum(axis=1, keepdims=True)
    out = np.divide(probs, sums, out=np.zeros_like(probs), where=sums > 0)
    return out
