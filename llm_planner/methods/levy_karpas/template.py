"""Plan templates of Levy & Karpas (seed 001, "Predicting Plan Templates"): the plan-template
channel's output, a sequence of *action types with parameter types*.

Humans rarely name specific objects, so a template step names the action type (a symbolic verb
of the household domain: ``walk``, ``grab``, ``open``, ``close``, ``putin``, ``puton``,
``switchon``, ``switchoff``) and, per argument, a *kind*: an object type (``apple``; any
``apple_k`` fits), a furniture name (``fridge``), a switchable thing (``tv``) or a room
(``kitchen``). ``*`` leaves an argument free. The seed's example "go to table, pick up apple
table" reads here ``walk(kitchen_table), grab(apple)`` (our ``grab`` takes the object only; where
it is taken from is fixed by the preceding ``walk``).

A template is *exact* (the seed: the plan has exactly these T steps) or *partial*, the seed's
future-work reading of mixed directives ("go to the bed room through the kitchen ... could be
translated into a partial plan template"): the plan starts with its first step and its other
steps follow in this order, with any actions between and after them. Text form::

    walk(kitchen), walk(fridge), open(fridge), grab(apple), putin(apple, fridge)
    partial: walk(kitchen), walk(bedroom)
"""
from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from llm_planner.domains.household.world.symbolic import VERB_ARITY, VERBS, Action, Household
from llm_planner.errors import PlanningError

WILDCARD = "*"
PARTIAL_PREFIX = "partial:"
_STEP = re.compile(r"([A-Za-z_]+)\s*\(([^()]*)\)")


class TemplateError(PlanningError):
    """A plan template names an unknown action, a wrong number of arguments or an unknown kind."""


@dataclass(frozen=True)
class TemplateStep:
    """One action occurrence: an action type and one kind (or ``*``) per argument."""

    verb: str
    args: tuple[str, ...]

    def __str__(self) -> str:
        return f"{self.verb}({', '.join(self.args)})"


@dataclass(frozen=True)
class PlanTemplate:
    """An ordered sequence of template steps; ``partial`` allows other actions around them."""

    steps: tuple[TemplateStep, ...] = ()
    partial: bool = False

    def __len__(self) -> int:
        return len(self.steps)

    def __str__(self) -> str:
        body = ", ".join(str(s) for s in self.steps)
        return f"{PARTIAL_PREFIX} {body}" if self.partial else body

    @property
    def empty(self) -> bool:
        return not self.steps


NO_TEMPLATE = PlanTemplate()


def parse_template(text: str) -> PlanTemplate:
    """The template of its text form (module docstring). Raises TemplateError naming the step
    that is not ``verb(kind, ...)`` with a known verb and its arity. Nothing is evaluated."""
    body = text.strip()
    partial = body.lower().startswith(PARTIAL_PREFIX)
    if partial:
        body = body[len(PARTIAL_PREFIX):].strip()
    if not body:
        return PlanTemplate((), partial)
    steps = []
    position = 0
    for number, match in enumerate(_STEP.finditer(body), start=1):
        gap = body[position:match.start()].strip(" ,;\n")
        if gap:
            raise TemplateError(f"plan template step {number}: '{gap}' is not of the form verb(kind, ...)")
        position = match.end()
        args = tuple(a.strip().lower().replace(" ", "_") for a in match.group(2).split(",") if a.strip())
        steps.append(make_step(match.group(1).lower(), args, number))
    rest = body[position:].strip(" ,;.\n")
    if rest:
        raise TemplateError(f"plan template step {len(steps) + 1}: '{rest}' is not of the form verb(kind, ...)")
    return PlanTemplate(tuple(steps), partial)


def make_step(verb: str, args: Sequence[str], number: int = 0) -> TemplateStep:
    """A step with a known verb and arity, else TemplateError naming the action and the step."""
    where = f"plan template step {number}" if number else "plan template"
    if verb not in VERB_ARITY:
        raise TemplateError(f"{where}: unknown action '{verb}' (the household domain's actions are "
                            f"{', '.join(VERBS)})")
    if len(args) != VERB_ARITY[verb]:
        raise TemplateError(f"{where}: {verb} takes {VERB_ARITY[verb]} argument(s), got "
                            f"{len(args)} ({', '.join(args)})")
    return TemplateStep(verb, tuple(args))


def kind_of(household: Household, name: str) -> str:
    """The kind of a ground argument: an object's type, else the furniture or room name itself."""
    return household.object_type.get(name, name)


def lift_plan(household: Household, actions: Iterable[Action], partial: bool = False) -> PlanTemplate:
    """The exact template of a ground plan (every argument replaced by its kind)."""
    return PlanTemplate(tuple(TemplateStep(a.verb, tuple(kind_of(household, x) for x in a.args)) for a in actions),
                        partial)


def kinds(household: Household) -> dict[str, str]:
    """Every kind of a scene and what it is: 'object type', 'container', 'surface', 'room' or
    'switchable thing' (a switchable appliance that is furniture keeps its furniture kind)."""
    out = {t: "object type" for t in household.scene.object_types}
    out.update({f: "container" if household.is_container[f] else "surface" for f in household.furniture})
    out.update({r: "room" for r in household.rooms})
    for d in household.switchables:
        out.setdefault(d, "switchable thing")
    return out


#: Which kinds an argument of a verb accepts (the symbolic actions' argument categories).
_ACCEPTS: dict[tuple[str, int], tuple[str, ...]] = {
    ("walk", 0): ("room", "container", "surface", "object type"),
    ("grab", 0): ("object type",),
    ("open", 0): ("container",), ("close", 0): ("container",),
    ("putin", 0): ("object type",), ("putin", 1): ("container",),
    ("puton", 0): ("object type",), ("puton", 1): ("surface",),
    ("switchon", 0): ("switchable thing",), ("switchoff", 0): ("switchable thing",),
}


def check_template(household: Household, template: PlanTemplate) -> PlanTemplate:
    """Validate every step against the scene; TemplateError names the first bad step and why."""
    known = kinds(household)
    for number, step in enumerate(template.steps, start=1):
        make_step(step.verb, step.args, number)
        for j, arg in enumerate(step.args):
            if arg == WILDCARD:
                continue
            if arg not in known:
                raise TemplateError(f"plan template step {number} {step}: this apartment has no '{arg}'")
            accepted = _ACCEPTS[(step.verb, j)]
            if accepted == ("switchable thing",) and arg in household.switch_at:
                continue  # an appliance is furniture and switches too
            if known[arg] not in accepted:
                raise TemplateError(f"plan template step {number} {step}: '{arg}' is a {known[arg]}; argument "
                                    f"{j + 1} of {step.verb} must be a {' or '.join(accepted)}")
    return template
