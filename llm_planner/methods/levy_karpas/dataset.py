"""The directive data set of the household domain with gold goals and plan templates, the
counterpart of the seed's ALFRED samples (seed 001, "Empirical Evaluation"): each sample has a
start state, a natural-language *task* (the goal directive) and *instructions* (the step-by-step
directive), the gold goal and the gold plan template; mixture samples say both in one sentence.

========  ======================================================================================
kind      what the sample holds
========  ======================================================================================
pair      a goal directive (``llm_planner.domains.household.world.tasks`` grammar, sometimes naming the object by a
          category and a place: "put the fruit from the kitchen counter in the fridge") and step
          instructions, one clause per action of the expert plan (``domains/household/world/expert.py``): "go to
          the kitchen, walk to the fridge, open it, pick up the apple, put it in the fridge".
          Gold template: the expert plan lifted to kinds (exact).
mixture   "go to the bedroom through the kitchen and bring the book to the sofa": gold goal
          (on, book, sofa, 1) and the *partial* template ``walk(kitchen), walk(bedroom)``.
========  ======================================================================================

References only the state resolves are part of the data, as the seed's argument for the
"directive + state" input: a category word ("the fruit from the kitchen table": which fruit is
there) or a head noun several pieces of furniture share ("go to the table": the one in the robot's
room). They are generated only where the state makes them unique.

Splits are generated from seeds (``config/nl2pddl.yaml``: train and test in the seen apartment,
test_unseen in the unseen one); train samples whose directive text occurs in a test split are
removed, as the seed removed duplicates. Every sample's clauses carry labels (training data of the
clause classifier). Files are JSON Lines, one sample per line.
"""
from __future__ import annotations

import random
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from llm_planner.domains.household.world.expert import expert_plan
from llm_planner.domains.household.world.scene import load_scene
from llm_planner.domains.household.world.symbolic import (
    Action,
    Goal,
    GoalItem,
    Household,
    State,
    goal_from_lists,
    goal_to_lists,
)
from llm_planner.domains.household.world.tasks import HouseholdTask, generate_tasks
from llm_planner.domains.household.world.words import name_to_text
from llm_planner.errors import ConfigError
from llm_planner.methods.levy_karpas.clauses import split_clauses
from llm_planner.methods.levy_karpas.template import PlanTemplate, TemplateStep, lift_plan, parse_template

PAIR, MIXTURE = "pair", "mixture"


@dataclass(frozen=True)
class Clause:
    text: str
    label: str


@dataclass(frozen=True)
class DirectiveSample:
    """One sample: start state (scene + placement seed), directives, gold goal and template."""

    sample_id: str
    split: str
    kind: str
    scene: str
    placement_seed: int
    goal_directive: str
    step_directive: str
    goal: Goal
    template: PlanTemplate
    clauses: tuple[Clause, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {"sample_id": self.sample_id, "split": self.split, "kind": self.kind, "scene": self.scene,
                "placement_seed": self.placement_seed, "goal_directive": self.goal_directive,
                "step_directive": self.step_directive, "goal": goal_to_lists(self.goal),
                "template": str(self.template), "clauses": [[c.text, c.label] for c in self.clauses]}

    @staticmethod
    def from_dict(data: Mapping[str, Any]) -> DirectiveSample:
        return DirectiveSample(str(data["sample_id"]), str(data["split"]), str(data["kind"]), str(data["scene"]),
                               int(data["placement_seed"]), str(data["goal_directive"]), str(data["step_directive"]),
                               goal_from_lists(data["goal"]), parse_template(str(data["template"])),
                               tuple(Clause(str(t), str(lab)) for t, lab in data.get("clauses", [])))


# ------------------------------------------------------------------------------- rendering
class _Renderer:
    """Clause-by-clause rendering with the phrasing of ``dataset.phrasing`` in the configuration."""

    def __init__(self, household: Household, config: Mapping[str, Any], rng: random.Random) -> None:
        self.h = household
        self.rng = rng
        self.phrasing = config["phrasing"]
        self.p_ref = float(config["reference_probability"])
        self.p_pron = float(config["pronoun_probability"])
        self.p_close = float(config["close_probability"])
        self.category_of: dict[str, str] = {}
        for word, types in config["categories"].items():
            present = [t for t in types if t in household.scene.object_types]
            if len(present) >= 2:
                self.category_of.update({t: word for t in present})
        self.heads: dict[str, list[str]] = {}
        for f in household.furniture:
            self.heads.setdefault(name_to_text(f).split()[-1], []).append(f)

    def pick(self, key: str) -> str:
        return self.rng.choice(self.phrasing[key])

    def rel_word(self, furniture: str) -> str:
        return self.rng.choice(self.phrasing["relation"][self.h.relation(furniture)])

    # ------------------------------------------------------------------ references
    def types_at(self, state: State, furniture: str) -> set[str]:
        return {self.h.object_type[o] for o in self.h.objects if self.h.location(state, o) == furniture}

    def category_ref(self, obj_type: str, state: State, place: str) -> str | None:
        """A category word for ``obj_type`` that no other type at ``place`` shares, or None."""
        word = self.category_of.get(obj_type)
        if word is None:
            return None
        others = {t for t in self.types_at(state, place) if t != obj_type and self.category_of.get(t) == word}
        return None if others else word

    def furniture_ref(self, furniture: str, room: str) -> str:
        """``the table`` when several pieces share the head noun but one stands in ``room``."""
        head = name_to_text(furniture).split()[-1]
        sharing = self.heads.get(head, [])
        in_room = [f for f in sharing if self.h.furniture_room[f] == room]
        if len(sharing) >= 2 and in_room == [furniture] and self.rng.random() < self.p_ref:
            return head
        return name_to_text(furniture)

    # ------------------------------------------------------------------------ steps
    def steps(self, plan: Sequence[Action], state: State) -> list[Clause]:
        clauses: list[Clause] = []
        last_obj: str | None = None
        last_furniture: str | None = None
        previous: Action | None = None
        for action in plan:
            clauses.append(self.step(action, state, previous, last_obj, last_furniture))
            verb, args = action
            if verb == "walk" and args[0] in self.h.furniture_room:
                last_furniture = args[0]
            if verb in ("grab", "putin", "puton") or (verb == "walk" and args[0] in self.h.index):
                last_obj = args[0]
            if verb in ("open", "close", "putin", "puton"):
                last_furniture = args[-1]
            state = self.h.transition(state, action)
            previous = action
        return clauses

    def step(self, action: Action, state: State, previous: Action | None, last_obj: str | None,
             last_furniture: str | None) -> Clause:
        verb, args = action
        pron = self.rng.random() < self.p_pron
        if verb == "walk":
            target = args[0]
            if target in self.h.rooms:
                return Clause(f"{self.pick('walk')} the {name_to_text(target)}", "walk")
            if target in self.h.furniture_room:
                return Clause(f"{self.pick('walk')} the {self.furniture_ref(target, state.room)}", "walk")
            return Clause(f"{self.pick('walk')} the {name_to_text(self.h.object_type[target])}", "walk")
        if verb == "grab":
            obj_text = name_to_text(self.h.object_type[args[0]])
            word = self.pick("grab")
            if previous == Action("walk", (args[0],)) and pron:
                return Clause("pick it up" if word == "pick up" else f"{word} it", "grab")
            near = state.near or ""
            category = self.category_ref(self.h.object_type[args[0]], state, near) if near else None
            if category is not None and self.rng.random() < self.p_ref:
                return Clause(f"{word} the {category} from the {name_to_text(near)}", "grab")
            if near and self.rng.random() < 0.5:
                return Clause(f"{word} the {obj_text} from the {name_to_text(near)}", "grab")
            return Clause(f"{word} the {obj_text}", "grab")
        if verb in ("open", "close"):
            target = "it" if pron and last_furniture == args[0] else f"the {name_to_text(args[0])}"
            return Clause(f"{self.pick(verb)} {target}", verb)
        obj, dest = args
        obj_text = "it" if pron and last_obj == obj else f"the {name_to_text(self.h.object_type[obj])}"
        return Clause(f"{self.pick('put')} {obj_text} {self.rel_word(dest)} the {name_to_text(dest)}", "put")

    # ------------------------------------------------------------------------ goals
    def goal_with_reference(self, goal: Goal, state: State) -> str | None:
        """"put the fruit from the kitchen counter in the fridge" for a one-object goal, if unique."""
        if len(goal) != 1 or goal[0].count != 1 or self.rng.random() >= self.p_ref:
            return None
        item = goal[0]
        places = sorted({p for o in self.h.objects if self.h.object_type[o] == item.obj_type
                         if (p := self.h.location(state, o)) is not None} - {item.destination})
        self.rng.shuffle(places)
        for place in places:
            word = self.category_ref(item.obj_type, state, place)
            if word is not None:
                return (f"{self.pick('put')} the {word} from the {name_to_text(place)} "
                        f"{self.rel_word(item.destination)} "
                        f"the {name_to_text(item.destination)}")
        return None

    def mixture(self, item: GoalItem) -> tuple[str, list[Clause], PlanTemplate]:
        r1, r2 = self.rng.sample(list(self.h.rooms), 2)
        obj = f"{self.rng.choice(['the', 'a'])} {name_to_text(item.obj_type)}"
        dest = f"the {name_to_text(item.destination)}"
        form = self.rng.randrange(3)
        if form == 0:
            clauses = [Clause(f"go to the {name_to_text(r2)} through the {name_to_text(r1)}", "walk"),
                       Clause(f"{self.pick('bring')} {obj} to {dest}", "bring")]
        elif form == 1:
            clauses = [Clause(f"walk through the {name_to_text(r1)} to the {name_to_text(r2)}", "walk"),
                       Clause(f"{self.pick('put')} {obj} {self.rel_word(item.destination)} {dest}", "put")]
        else:
            clauses = [Clause(f"go to the {name_to_text(r1)}", "walk"), Clause(f"go to the {name_to_text(r2)}", "walk"),
                       Clause(f"{self.pick('bring')} {obj} to {dest}", "bring")]
        joiners = [", then ", " and "] if form == 2 else [self.rng.choice([" and ", ", then "])]
        text = clauses[0].text
        for clause, joiner in zip(clauses[1:], joiners, strict=True):
            text += joiner + clause.text
        if form == 2:
            text = f"{self.pick('walk_first')}{text[len('go to'):]}"
        template = PlanTemplate((TemplateStep("walk", (r1,)), TemplateStep("walk", (r2,))), partial=True)
        return text, clauses, template

    def join(self, clauses: Sequence[Clause]) -> str:
        text = clauses[0].text
        for clause in clauses[1:]:
            text += self.pick("joiners") + clause.text
        return text


def _labelled(text: str, labels: Sequence[str] | str) -> tuple[Clause, ...]:
    """The clauses the splitter finds in ``text`` with their labels (one label for all, or one each)."""
    fragments = split_clauses(text)
    if isinstance(labels, str):
        labels = [labels] * len(fragments)
    if len(fragments) != len(labels):
        raise ConfigError(f"the directive generator and the clause splitter disagree on '{text}' "
                          f"({len(fragments)} clauses, {len(labels)} labels): check dataset.phrasing")
    return tuple(Clause(f, lab) for f, lab in zip(fragments, labels, strict=True))


# ------------------------------------------------------------------------------ generation
def generate_split(split: str, scene: str, n: int, seed: int, config: Mapping[str, Any]) -> list[DirectiveSample]:
    """``n`` samples of one split, reproducible from ``seed`` (``config``: the ``dataset`` section)."""
    if n < 0:
        raise ConfigError(f"dataset.splits.{split}.n must be >= 0, got {n}")
    household = Household(load_scene(scene))
    rng = random.Random(f"nl2pddl:{split}:{scene}:{seed}")
    renderer = _Renderer(household, config, rng)
    order = [rng.choice(list(config["suites"])) for _ in range(n)]
    pools = {s: iter(generate_tasks(household.scene, s, order.count(s), seed)) for s in set(order)}
    samples = []
    for i, suite in enumerate(order):
        task = next(pools[suite])
        sample_id = f"{split}-{i:04d}"
        if rng.random() < float(config["mixture_fraction"]):
            samples.append(_mixture(sample_id, split, task, household, renderer))
        else:
            samples.append(_pair(sample_id, split, task, household, renderer))
    return samples


def _pair(sample_id: str, split: str, task: HouseholdTask, household: Household, r: _Renderer) -> DirectiveSample:
    state = household.sample_initial_state(task.placement_seed)
    goal_text = r.goal_with_reference(task.goal, state) or task.instruction
    plan = expert_plan(household, state, task.goal, close_containers=r.rng.random() < r.p_close)
    steps = r.steps(plan, state)
    step_text = r.join(steps)
    clauses = _labelled(goal_text, "put") + _labelled(step_text, [c.label for c in steps])
    return DirectiveSample(sample_id, split, PAIR, task.scene, task.placement_seed, goal_text, step_text,
                           task.goal, lift_plan(household, plan), clauses)


def _mixture(sample_id: str, split: str, task: HouseholdTask, household: Household, r: _Renderer) -> DirectiveSample:
    item = GoalItem(task.goal[0].rel, task.goal[0].obj_type, task.goal[0].destination, 1)
    text, clauses, template = r.mixture(item)
    labelled = _labelled(text, [c.label for c in clauses])
    return DirectiveSample(sample_id, split, MIXTURE, task.scene, task.placement_seed, text, text, (item,),
                           template, labelled)


def build_splits(config: Mapping[str, Any], only: Iterable[str] | None = None) -> dict[str, list[DirectiveSample]]:
    """Every split of ``config`` (the ``dataset`` section), train de-duplicated against the tests."""
    specs = dict(config["splits"])
    wanted = list(only) if only is not None else list(specs)
    unknown = [s for s in wanted if s not in specs]
    if unknown:
        raise ConfigError(f"unknown data set split '{unknown[0]}' (splits: {', '.join(specs)})")
    out = {name: generate_split(name, str(specs[name]["scene"]), int(specs[name]["n"]), int(specs[name]["seed"]),
                                config)
           for name in wanted}
    if "train" in out:
        held_out = {t for name, samples in out.items() if name != "train"
                    for s in samples for t in (s.goal_directive, s.step_directive)}
        if not held_out and len(out) == 1:
            held_out = {t for name in specs if name != "train"
                        for s in generate_split(name, str(specs[name]["scene"]), int(specs[name]["n"]),
                                                int(specs[name]["seed"]), config)
                        for t in (s.goal_directive, s.step_directive)}
        out["train"] = [s for s in out["train"] if s.goal_directive not in held_out
                        and s.step_directive not in held_out]
    return out
