"""The seed's accuracy measures (seed 001, "Results").

Goal prediction (Table 2). A goal is a set of facts ``(predicate, arg1, arg2)``; a count c gives c
facts (the seed's ``two_task`` makes "two" part of the goal). Predicted facts are matched to gold
facts (exact matches first, then the best partial ones); per matched position the *predicate*,
*arg1* and *arg2* are each right or wrong, the *fact* is right when all three are; unmatched facts
on either side count as wrong (denominator: the larger of the two sets). *goal*: the predicted
multiset of facts equals the gold one. Permissive scoring (Jansen 2020, subscript p) accepts an
object that shares the head noun ("lamp - floor lamp", "knife - butter knife"; here "kitchen table
- coffee table", "kitchen cabinet - bathroom cabinet").

Plan templates (Table 4). Steps are compared by position: *op* (the action type), *arg1*, *arg2*
(over steps where either side has a second argument), *action* (the whole step); *plan*: the whole
template, in order (and partial or exact alike). Table 5: *action* accuracy per gold action type.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from llm_planner.domains.household.world.symbolic import Goal
from llm_planner.domains.household.world.words import name_to_text
from llm_planner.methods.levy_karpas.template import PlanTemplate, TemplateStep

Fact = tuple[str, str, str]


def goal_facts(goal: Goal) -> list[Fact]:
    return [(g.rel, g.obj_type, g.destination) for g in goal for _ in range(g.count)]


def head(name: str) -> str:
    words = name_to_text(name).split()
    return words[-1] if words else name


def permissive(a: str | None, b: str | None) -> bool:
    return a is not None and b is not None and (a == b or head(a) == head(b))


def _overlap(p: Fact, g: Fact) -> int:
    return sum(x == y for x, y in zip(p, g, strict=False))


def align_facts(pred: Sequence[Fact], gold: Sequence[Fact]) -> list[tuple[Fact | None, Fact | None]]:
    """Pairs of predicted and gold facts: exact matches, then greedily the most overlapping."""
    pred, gold = list(pred), list(gold)
    pairs: list[tuple[Fact | None, Fact | None]] = []
    for p in list(pred):
        if p in gold:
            gold.remove(p)
            pred.remove(p)
            pairs.append((p, p))
    while pred and gold:
        p, g = max(((p, g) for p in pred for g in gold), key=lambda x: _overlap(*x))
        pred.remove(p)
        gold.remove(g)
        pairs.append((p, g))
    pairs += [(p, None) for p in pred] + [(None, g) for g in gold]
    return pairs


@dataclass
class Tally:
    """Right out of total, per measure."""

    right: dict[str, int] = field(default_factory=dict)
    total: dict[str, int] = field(default_factory=dict)

    def add(self, measure: str, ok: bool, count: bool = True) -> None:
        if count:
            self.right[measure] = self.right.get(measure, 0) + int(ok)
            self.total[measure] = self.total.get(measure, 0) + 1

    def merge(self, other: Tally) -> None:
        for k, v in other.total.items():
            self.total[k] = self.total.get(k, 0) + v
            self.right[k] = self.right.get(k, 0) + other.right.get(k, 0)

    def rate(self, measure: str) -> float:
        total = self.total.get(measure, 0)
        return self.right.get(measure, 0) / total if total else float("nan")


GOAL_MEASURES = ("predicate", "arg1", "arg1_p", "arg2", "arg2_p", "fact", "fact_p", "goal", "goal_p")
TEMPLATE_MEASURES = ("op", "arg1", "arg2", "action", "plan")


def score_goal(pred: Goal | None, gold: Goal) -> Tally:
    """Table 2 measures of one predicted goal (None or () for no prediction)."""
    tally = Tally()
    pairs = align_facts(goal_facts(pred or ()), goal_facts(gold))
    for p, g in pairs:
        tally.add("predicate", p is not None and g is not None and p[0] == g[0])
        tally.add("arg1", p is not None and g is not None and p[1] == g[1])
        tally.add("arg1_p", p is not None and g is not None and permissive(p[1], g[1]))
        tally.add("arg2", p is not None and g is not None and p[2] == g[2])
        tally.add("arg2_p", p is not None and g is not None and permissive(p[2], g[2]))
        tally.add("fact", p is not None and p == g)
        tally.add("fact_p", p is not None and g is not None and p[0] == g[0] and permissive(p[1], g[1])
                  and permissive(p[2], g[2]))
    tally.add("goal", all(p is not None and p == g for p, g in pairs))
    tally.add("goal_p", all(p is not None and g is not None and p[0] == g[0] and permissive(p[1], g[1])
                            and permissive(p[2], g[2]) for p, g in pairs))
    return tally


def _arg(step: TemplateStep | None, j: int) -> str | None:
    return step.args[j] if step is not None and len(step.args) > j else None


def score_template(pred: PlanTemplate | None, gold: PlanTemplate) -> Tally:
    """Table 4 measures of one predicted template, and Table 5's per-operator action accuracy
    (measures ``action:<verb>`` by the gold step's verb)."""
    tally = Tally()
    p_steps = list(pred.steps) if pred is not None else []
    g_steps = list(gold.steps)
    for i in range(max(len(p_steps), len(g_steps))):
        p = p_steps[i] if i < len(p_steps) else None
        g = g_steps[i] if i < len(g_steps) else None
        tally.add("op", p is not None and g is not None and p.verb == g.verb)
        tally.add("arg1", _arg(p, 0) is not None and _arg(p, 0) == _arg(g, 0))
        tally.add("arg2", _arg(p, 1) is not None and _arg(p, 1) == _arg(g, 1),
                  count=_arg(p, 1) is not None or _arg(g, 1) is not None)
        tally.add("action", p is not None and p == g)
        if g is not None:
            tally.add(f"action:{g.verb}", p == g)
    tally.add("plan", pred is not None and pred == gold)
    return tally
