"""Offline STaLM task plans: a classical planner on the predicate abstraction of the prompt.

``plans_from_prompt(prompt, n, seed)`` reads only the prompt text (objects, ``(:init`` facts,
``(:goal``, and for the baselines the action history or previously failed plans), plans with a
weighted A* over an abstract state, and answers ``n`` texts in the seed's response format
(Appendix E): possible challenges first (when the prompt asks for them), then
``plan = [('pick', 'x'), ...]``. It never sees the simulator.

The abstraction is the prompt's PDDL domain plus the commonsense a language model brings:

* picking an object takes it away, so it stops occluding other picks and placements, unless
  it is put back on the region where it was in the way (when that makes the goal unreachable,
  it assumes a moved object finds room after all);
* opening a door clears the occlusions by that door;
* placing ``dir`` of an object also puts the placed object on that object's region.

It is honestly imperfect where the abstraction is: it does not know whether a region has room
for a placement (an object put back may block the ones placed before it), it trusts occlusion
literals computed for one sampled motion, and it has no idea of new occlusions its own
placements create. Without occlusion literals it plans as if nothing were in the way (and
opens closed doors first, out of habit); without a state (SayCan's prompt) it knows only the
goal and the history. Plans vary between samples by random tie-breaking, the order of the
goals and the choice of temporary places; a failed step reported in the prompt is avoided.
"""
from __future__ import annotations

import heapq
import itertools
import random
import re
from collections.abc import Iterable
from dataclasses import dataclass, field, replace

from llm_planner.methods.stalm.plan_parser import normalize, scan_tuples

MAX_EXPANSIONS = 20000
WEIGHT = 2.0

Atom = tuple[str, str, str]
Act = tuple[str, ...]


@dataclass(frozen=True)
class Abstraction:
    """What the prompt says: names, initial facts, goal, history and failed steps."""

    objects: tuple[str, ...]
    regions: tuple[str, ...]
    doors: tuple[str, ...]
    holding: str | None
    closed: frozenset[str]
    at: frozenset[Atom]
    pick_occ: dict[str, frozenset[str]]
    place_occ: dict[Atom, frozenset[str]]
    goal: tuple[Atom, ...]
    has_state: bool
    has_occlusion: bool
    ask_challenges: bool
    history: tuple[Act, ...] = ()
    forbidden: frozenset[Act] = frozenset()


@dataclass(frozen=True, order=True)
class AState:
    holding: str | None
    closed: frozenset[str]
    at: frozenset[Atom]
    moved: frozenset[str] = field(default_factory=frozenset)


# ---------------------------------------------------------------------------- prompt reading
def _section(prompt: str, start: str, stops: Iterable[str]) -> str:
    i = prompt.find(start)
    if i < 0:
        return ""
    j = min([k for k in (prompt.find(s, i + len(start)) for s in stops) if k >= 0] or [len(prompt)])
    return prompt[i + len(start):j]


def _facts(text: str) -> list[tuple[str, ...]]:
    out = []
    for body in re.findall(r"\(([^()]*)\)", text):
        parts = tuple(p.strip() for p in body.split(",") if p.strip())
        if parts:
            out.append(parts)
    return out


def _quoted_tuples(text: str) -> list[Act]:
    out: list[Act] = []
    for item in scan_tuples(text):
        if isinstance(item, list) and item:
            out.append(tuple(normalize(t) for t in item))
    return out


def read_prompt(prompt: str) -> Abstraction:
    """Parse the prompt's objects, init, goal, history and failed-plan feedback."""
    objects: list[str] = []
    regions: list[str] = []
    doors: list[str] = []
    for line in _section(prompt, "(:objects", (")",)).splitlines():
        m = re.match(r"\s*([\w\-]+)\s*-\s*(\w+)", line)
        if m:
            {"movable_object": objects, "region": regions, "door": doors}.get(m.group(2), []).append(m.group(1))
    init_text = _section(prompt, "(:init", ("(:goal", "Generate"))
    facts = _facts(init_text)
    holding = next((f[1] for f in facts if f[0] == "RobotHolding" and len(f) == 2), None)
    at = frozenset(f[1:] for f in facts if f[0] == "AtPosition" and len(f) == 4)
    pick_occ: dict[str, set[str]] = {}
    place_occ: dict[Atom, set[str]] = {}
    for f in facts:
        if f[0] == "PickOccludedBy" and len(f) == 3:
            pick_occ.setdefault(f[1], set()).add(f[2])
        elif f[0] == "PlaceOccludedBy" and len(f) == 5:
            place_occ.setdefault(f[1:4], set()).add(f[4])
    goal_text = _section(prompt, "(:goal", ("\n\n", "Generate", "##"))
    goal = tuple(f[1:] for f in _facts(goal_text) if f[0] == "AtPosition" and len(f) == 4)
    history = tuple(_quoted_tuples(_section(prompt, "## Actions done so far ##", ("\n\n",)).split("]")[0] + "]"))
    forbidden = set()
    for line in prompt.splitlines():
        if line.startswith("Feedback") and "infeasible" in line:
            forbidden.update(_quoted_tuples(line.split("infeasible")[0] + "]"))
    return Abstraction(
        tuple(objects), tuple(regions), tuple(doors), holding,
        frozenset(f[1] for f in facts if f[0] == "IsClosed" and len(f) == 2), at,
        {k: frozenset(v) for k, v in pick_occ.items()}, {k: frozenset(v) for k, v in place_occ.items()},
        goal, bool(init_text.strip()), bool(pick_occ or place_occ),
        "challenges" in prompt.split("Domain Description")[0].lower(), history, frozenset(forbidden))


# ---------------------------------------------------------------------------- abstract model
class AbstractModel:
    """Successors and goal test on the predicate abstraction (see the module docstring)."""

    def __init__(self, ab: Abstraction, optimistic: bool = False) -> None:
        self.ab = ab
        self.optimistic = optimistic
        self.goal_objects = {g[0] for g in ab.goal}
        self.relevant = self._relevant()

    def _relevant(self) -> set[str]:
        """Goal objects, the objects goal atoms are relative to, and, transitively, the objects
        occluding their picks or goal placements."""
        rel = set(self.goal_objects) | {g[2] for g in self.ab.goal if g[1] != "on" and g[2] in self.ab.objects}
        frontier = list(rel)
        while frontier:
            o = frontier.pop()
            occ = set(self.ab.pick_occ.get(o, ()))
            for g in self.ab.goal:
                if g[0] == o:
                    occ |= self.ab.place_occ.get(g, frozenset())
            for x in occ:
                if x in self.ab.objects and x not in rel:
                    rel.add(x)
                    frontier.append(x)
        if self.ab.holding:
            rel.add(self.ab.holding)
        return rel

    def initial(self) -> AState:
        s = AState(self.ab.holding, self.ab.closed, self.ab.at)
        for act in self.ab.history:
            s = self.apply(s, act)
        return s

    @staticmethod
    def region_now(s: AState, o: str) -> str | None:
        return next((a[2] for a in s.at if a[0] == o and a[1] == "on"), None)

    def _active(self, s: AState, occ: str, target_region: str | None) -> bool:
        if occ in self.ab.doors:
            return occ in s.closed
        if occ == s.holding:
            return False
        if occ not in s.moved:
            return True
        if self.optimistic:
            return False
        return target_region is not None and self.region_now(s, occ) == target_region

    def can_pick(self, s: AState, o: str) -> bool:
        if s.holding is not None:
            return False
        if o in s.moved:  # the literals were about its old place
            return True
        region = self.region_now(s, o)
        return not any(self._active(s, occ, region) for occ in self.ab.pick_occ.get(o, ()))

    def can_place(self, s: AState, atom: Atom) -> bool:
        o, d, ref = atom
        if s.holding != o or ref == o or ref == s.holding:
            return False
        if d != "on" and ref in s.moved:  # literals about ref's old place are stale
            return True
        region = ref if d == "on" else self.region_now(s, ref)
        return not any(self._active(s, occ, region) for occ in self.ab.place_occ.get(atom, ()))

    def successors(self, s: AState, rng: random.Random) -> list[Act]:
        acts: list[Act] = []
        if s.holding is None:
            acts += [("open", d) for d in sorted(s.closed) if self._door_useful(d)]
            acts += [("pick", o) for o in sorted(self.relevant) if self.can_pick(s, o)]
        else:
            o = s.holding
            targets = [g for g in self.ab.goal if g[0] == o]
            regions = list(self.ab.regions)
            rng.shuffle(regions)
            targets += [(o, "on", r) for r in regions if (o, "on", r) not in targets]
            acts += [("place", *t) for t in targets if self.can_place(s, t)]
        acts = [a for a in acts if a not in self.ab.forbidden]
        rng.shuffle(acts)
        return acts

    def _door_useful(self, d: str) -> bool:
        if not self.ab.has_occlusion:
            return True
        occs = set().union(*self.ab.pick_occ.values(), *self.ab.place_occ.values()) if (
            self.ab.pick_occ or self.ab.place_occ) else set()
        return d in occs

    def apply(self, s: AState, act: Act) -> AState:
        op = act[0]
        if op == "open" and len(act) == 2:
            return replace(s, closed=s.closed - {act[1]})
        if op == "pick" and len(act) == 2:
            o = act[1]
            at = frozenset(a for a in s.at if o not in (a[0], a[2]))
            return replace(s, holding=o, at=at, moved=s.moved | {o})
        if op == "place" and len(act) == 4:
            o, d, ref = act[1:]
            new = {(o, d, ref)}
            if d != "on":
                region = self.region_now(s, ref) or self._assumed_region(o, ref)
                if region:
                    new.add((o, "on", region))
            return replace(s, holding=None, at=s.at | new)
        return s

    def _assumed_region(self, o: str, ref: str) -> str | None:
        """Where ``ref`` stands when the prompt does not say: the goal region of ``o`` (placing o
        next to ref is meant to happen there), else ref's own goal region."""
        for obj in (o, ref):
            for g in self.ab.goal:
                if g[0] == obj and g[1] == "on":
                    return g[2]
        return None

    def unsatisfied(self, s: AState) -> list[Atom]:
        return [g for g in self.ab.goal if g not in s.at]

    def h(self, s: AState) -> float:
        todo = self.unsatisfied(s)
        held = 1 if s.holding is not None and any(g[0] == s.holding for g in todo) else 0
        return 2 * len(todo) - held


def search(model: AbstractModel, rng: random.Random, max_expansions: int = MAX_EXPANSIONS) -> list[Act] | None:
    """Weighted A* with random tie-breaking; None when the abstraction has no plan."""
    start = model.initial()
    counter = itertools.count()
    frontier: list[tuple[float, float, int, AState, tuple[Act, ...]]] = [
        (WEIGHT * model.h(start), rng.random(), next(counter), start, ())]
    seen = {start: 0}
    expansions = 0
    while frontier and expansions < max_expansions:
        _, _, _, s, plan = heapq.heappop(frontier)
        if not model.unsatisfied(s):
            return list(plan)
        expansions += 1
        for act in model.successors(s, rng):
            nxt = model.apply(s, act)
            g = len(plan) + 1
            if seen.get(nxt, 1 << 30) <= g:
                continue
            seen[nxt] = g
            heapq.heappush(frontier, (g + WEIGHT * model.h(nxt), rng.random(), next(counter), nxt, plan + (act,)))
    return None


# ---------------------------------------------------------------------------- answer text
def challenges(ab: Abstraction, model: AbstractModel) -> list[str]:
    out = []
    for o in sorted(model.relevant):
        occ = sorted(ab.pick_occ.get(o, ()))
        if occ:
            out.append(f"Picking `{o}` is occluded by {', '.join(f'`{x}`' for x in occ)}; "
                       "they must be cleared (moved away or opened) first.")
    for g in ab.goal:
        occ = sorted(ab.place_occ.get(g, ()))
        if occ:
            out.append(f"Placing `{g[0]}` {g[1]} `{g[2]}` is occluded by {', '.join(f'`{x}`' for x in occ)}.")
    for d in sorted(ab.closed):
        out.append(f"`{d}` is closed; opening it needs an empty hand.")
    if ab.holding:
        out.append(f"The robot is holding `{ab.holding}`; it must be placed before anything else is picked.")
    return out


def render(ab: Abstraction, model: AbstractModel, plan: list[Act] | None) -> str:
    parts = []
    if ab.ask_challenges:
        items = challenges(ab, model) or ["No occlusion blocks the goal objects."]
        parts.append("## Possible challenges for unachieved goals based on current state ##\n"
                     + "\n".join(f"{k}. {c}" for k, c in enumerate(items, 1)))
    if plan is None:
        parts.append("## Plan ##\n# no plan reaches the goal under these constraints\nplan = []")
    elif not plan:
        parts.append("## Plan ##\n# all goals already hold\nplan = []")
    else:
        steps = ",\n        ".join("(" + ", ".join(repr(x) for x in act) + ")" for act in plan)
        parts.append("## Plan ##\nplan = [" + steps + "]")
    return "\n\n".join(parts)


def plans_from_prompt(prompt: str, n: int, seed: int) -> list[str]:
    """N plan texts for a STaLM prompt (or a baseline's prompt), deterministic for a seed."""
    ab = read_prompt(prompt)
    if not ab.goal:
        return ["## Plan ##\n# the prompt has no goal I can read\nplan = []"] * max(n, 0)
    texts = []
    for k in range(max(n, 0)):
        rng = random.Random(seed * 7919 + k)
        ab_k = replace(ab, goal=tuple(rng.sample(ab.goal, len(ab.goal))))
        model = AbstractModel(ab_k)
        plan = search(model, rng)
        if plan is None:  # put-back occluders make it cyclic: assume a moved object finds room
            model = AbstractModel(ab_k, optimistic=True)
            plan = search(model, rng)
        if plan is None and ab.forbidden:  # the feedback over-constrains: forget it, as a model would
            model = AbstractModel(replace(ab_k, forbidden=frozenset()), optimistic=True)
            plan = search(model, rng)
        texts.append(render(ab_k, model, plan))
    return texts
