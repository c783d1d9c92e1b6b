"""The PDDL encodings of Levy & Karpas (seed 001, "Translation System", Phase I): the goal as an
existentially quantified formula over object types, and the plan template as step predicates.

Goal ("Predicting Goals", "Domain Model"): :func:`llm_planner.domains.household.world.pddl.goal_pddl`, one
pairwise-distinct variable per counted object (the seed's ``two_task``)::

    (exists (?apple_1 - apple ?apple_2 - apple)
            (and (not (= ?apple_1 ?apple_2)) (inside ?apple_1 fridge) (inside ?apple_2 fridge)))

Plan template ("Predicting Plan Templates"): the household domain (``pddl.domain_pddl``, the one
domain) is *derived*, never rewritten by hand: every action gets two more parameters
``?step_from ?step_to - step`` and

* Length: ``(current_step ?step_from)``, ``(next ?step_from ?step_to)``; the effect moves
  ``current_step`` on. The problem starts with ``(current_step s0)`` and ``(next s_i s_i+1)`` for
  i < T, and the goal asks ``(current_step sT)``: plans have exactly T actions.
* Action allowance: ``(allowed_<verb> s_i)``, one per template step, e.g. ``(allowed_walk s0)``,
  ``(allowed_grab s1)`` (the verb of a PDDL action is its symbolic verb, ``pddl.ACTION_MAP``).
* Object allowance: ``(allowed_arg1 k_apple s1)`` - the seed's ``(allowed_arg_j objtype s_i)``;
  PDDL types cannot be arguments, so every kind (object type, furniture, room) is a constant
  ``k_<kind>`` of type ``argkind`` and ``(of_kind ?x ?k)`` ties objects to their kind. ``*``
  arguments are encoded as ``(any_arg<j> s_i)``.

Partial templates (the seed's future-work extension, see ``template.py``) add ``(stay s_i s_i)``
for 1 <= i <= T: an action may then leave the step counter where it is (a *free* action, no
allowance checked), so the plan starts with the template's first step and the others follow in
order, with other actions between and after them ("go to the bedroom through the kitchen and
bring the book to the sofa": first the kitchen, later the bedroom, then whatever the goal needs).

State goal items (open/closed, on/off; issue 44) are atoms of the goal formula like placements
(``pddl.goal_pddl``). When the goal or the template switches a thing (``switchon(tv)``), the domain is
derived from the household domain with switches, and the switchable things that are not furniture
get their kind constants and ``of_kind`` atoms; without them, the encoding says nothing about
switching.
"""
from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

from llm_planner.domains.household.world import pddl
from llm_planner.domains.household.world.symbolic import VERBS, Goal, GoalItem, Household, State
from llm_planner.errors import PlanningError
from llm_planner.methods.levy_karpas.template import WILDCARD, PlanTemplate, check_template, kind_of

STEP_TYPE = "step"
KIND_TYPE = "argkind"
FROM, TO = "?step_from", "?step_to"
MAX_ARGS = 2

SExpr = str | list


# ------------------------------------------------------------------------ s-expressions
def parse_sexpr(text: str) -> SExpr:
    """A PDDL text as nested lists of lower-case tokens (the domain export has no comments)."""
    tokens = text.replace("(", " ( ").replace(")", " ) ").split()
    stack: list[list] = [[]]
    for token in tokens:
        if token == "(":
            stack.append([])
        elif token == ")":
            if len(stack) < 2:
                raise PlanningError("unbalanced ')' in the PDDL text")
            done = stack.pop()
            stack[-1].append(done)
        else:
            stack[-1].append(token.lower())
    if len(stack) != 1 or len(stack[0]) != 1:
        raise PlanningError("unbalanced '(' in the PDDL text")
    return stack[0][0]


def to_text(expr: SExpr) -> str:
    """PDDL text of nested lists: one line per domain section, action field and predicate."""
    if isinstance(expr, str):
        return expr
    head = expr[0] if expr and isinstance(expr[0], str) else ""
    if head == "define":
        return "(define " + "\n  ".join(to_text(e) for e in expr[1:]) + ")"
    if head == ":action":
        fields = [f"{expr[i]} {to_text(expr[i + 1])}" for i in range(2, len(expr) - 1, 2)]
        return f"(:action {expr[1]}\n    " + "\n    ".join(fields) + ")"
    if head == ":predicates":
        return "(:predicates " + "\n    ".join(to_text(e) for e in expr[1:]) + ")"
    return "(" + " ".join(to_text(e) for e in expr) + ")"


# ---------------------------------------------------------------------- the domain
def kind_constant(kind: str) -> str:
    return f"k_{kind}"


def step_name(i: int) -> str:
    return f"s{i}"


def _variables(params: list) -> list[str]:
    return [p for p in params if isinstance(p, str) and p.startswith("?")]


def _arg_condition(j: int, var: str) -> list:
    return ["or", [f"any_arg{j}", FROM],
            ["exists", ["?kind", "-", KIND_TYPE],
             ["and", ["of_kind", var, "?kind"], [f"allowed_arg{j}", "?kind", FROM]]]]


def _template_action(action: list) -> list:
    """One household action with the step parameters, preconditions and effects added."""
    name = action[1]
    if name not in pddl.ACTION_MAP:
        raise PlanningError(f"the household domain has an action '{name}' that pddl.ACTION_MAP does not map")
    verb, keep = pddl.ACTION_MAP[name]
    fields = {action[i]: action[i + 1] for i in range(2, len(action) - 1, 2)}
    params = list(fields[":parameters"])
    variables = _variables(params)
    follow = ["and", ["next", FROM, TO], [f"allowed_{verb}", FROM]]
    follow += [_arg_condition(j + 1, variables[p]) for j, p in enumerate(keep)]
    pre = ["and", ["current_step", FROM], ["or", follow, ["stay", FROM, TO]]]
    if ":precondition" in fields:
        pre.insert(1, fields[":precondition"])
    advance = ["when", ["not", ["=", FROM, TO]], ["and", ["not", ["current_step", FROM]], ["current_step", TO]]]
    effect = ["and", fields[":effect"], advance]
    return [":action", name, ":parameters", params + [FROM, "-", STEP_TYPE, TO, "-", STEP_TYPE],
            ":precondition", pre, ":effect", effect]


@lru_cache(maxsize=16)
def _derive(domain_text: str) -> str:
    tree = parse_sexpr(domain_text)
    out: list = []
    for part in tree:
        if isinstance(part, list) and part and part[0] == ":requirements":
            part = part + [":disjunctive-preconditions"]
        elif isinstance(part, list) and part and part[0] == ":types":
            part = part + [STEP_TYPE, KIND_TYPE, "-", "object"]
        elif isinstance(part, list) and part and part[0] == ":predicates":
            part = part + _step_predicates()
        elif isinstance(part, list) and part and part[0] == ":action":
            part = _template_action(part)
        out.append(part)
    return to_text(out) + "\n"


def _step_predicates() -> list:
    preds: list = [["current_step", "?s", "-", STEP_TYPE], ["next", "?a", "?b", "-", STEP_TYPE],
                   ["stay", "?a", "?b", "-", STEP_TYPE], ["of_kind", "?x", "-", "object", "?k", "-", KIND_TYPE]]
    preds += [[f"allowed_{v}", "?s", "-", STEP_TYPE] for v in VERBS]
    for j in range(1, MAX_ARGS + 1):
        preds += [[f"allowed_arg{j}", "?k", "-", KIND_TYPE, "?s", "-", STEP_TYPE],
                  [f"any_arg{j}", "?s", "-", STEP_TYPE]]
    return preds


def template_domain(household: Household, switches: bool = False) -> str:
    """The household domain with the seed's step predicates, derived from ``pddl.domain_pddl`` (with
    its switching actions when ``switches``)."""
    return _derive(pddl.domain_pddl(household, switches))


# ---------------------------------------------------------------------- the problem
def _named_things(household: Household, switchables: Sequence[str] = ()) -> tuple[str, ...]:
    """Everything a template argument may name: rooms, furniture, objects, and of ``switchables``
    those that are not furniture."""
    devices = tuple(d for d in switchables if d not in household.furniture_room)
    return (*household.rooms, *household.furniture, *household.objects, *devices)


def _check_constants(household: Household, n_steps: int) -> None:
    names = set(household.rooms) | set(household.furniture) | set(household.objects) | set(household.switchables)
    clash = sorted(n for n in names if n.startswith("k_") or n in {step_name(i) for i in range(n_steps + 1)})
    if clash:
        raise PlanningError(f"cannot encode a plan template: the scene name '{clash[0]}' clashes with the "
                            "encoding's constants (k_<kind>, s<i>); rename it in the scene file")


def template_objects(household: Household, template: PlanTemplate, switchables: Sequence[str] = ()) -> list[str]:
    """Object declarations of the step and kind constants (``switchables``: those the plan may switch)."""
    _check_constants(household, len(template))
    kinds = sorted({kind_of(household, x) for x in _named_things(household, switchables)})
    steps = " ".join(step_name(i) for i in range(len(template) + 1))
    return [f"{steps} - {STEP_TYPE}", f"{' '.join(kind_constant(k) for k in kinds)} - {KIND_TYPE}"]


def template_init(household: Household, template: PlanTemplate, switchables: Sequence[str] = ()) -> list[str]:
    """Init atoms of the encoding: step chain, allowances, kinds of every object (and of the
    switchable things of ``switchables``)."""
    atoms = [f"(current_step {step_name(0)})"]
    atoms += [f"(next {step_name(i)} {step_name(i + 1)})" for i in range(len(template))]
    if template.partial:
        atoms += [f"(stay {step_name(i)} {step_name(i)})" for i in range(1, len(template) + 1)]
    for i, step in enumerate(template.steps):
        atoms.append(f"(allowed_{step.verb} {step_name(i)})")
        for j, arg in enumerate(step.args, start=1):
            atoms.append(f"(any_arg{j} {step_name(i)})" if arg == WILDCARD
                         else f"(allowed_arg{j} {kind_constant(arg)} {step_name(i)})")
    for x in _named_things(household, switchables):
        atoms.append(f"(of_kind {x} {kind_constant(kind_of(household, x))})")
    return atoms


def template_switchables(household: Household, goal: Sequence[GoalItem], template: PlanTemplate) -> tuple[str, ...]:
    """The switchable things a plan for (goal, template) may switch, in scene order: those the
    goal's on/off items name and those the template's switch steps name."""
    named = set(household.goal_switchables(goal))
    named |= {a for s in template.steps if s.verb in ("switchon", "switchoff") for a in s.args if a != WILDCARD}
    if any(s.verb in ("switchon", "switchoff") and WILDCARD in s.args for s in template.steps):
        named |= set(household.switchables)
    return tuple(d for d in household.switchables if d in named)


def combined_goal(goal: Sequence[GoalItem], template: PlanTemplate) -> str:
    """The PDDL goal of a goal prediction and a template: the existential goal and ``(current_step sT)``."""
    parts = [pddl.goal_pddl(goal)] if goal else []
    if not template.empty:
        parts.append(f"(current_step {step_name(len(template))})")
    if not parts:
        raise PlanningError("nothing to plan for: the directive gave neither a goal nor a plan template")
    return parts[0] if len(parts) == 1 else "(and " + " ".join(parts) + ")"


def solve_combined(household: Household, state: State, goal: Goal, template: PlanTemplate,
                   timeout_s: float) -> pddl.PlanResult:
    """Phase II for one (goal, template) prediction: Fast Downward on the combined problem.

    Goal only: the plain household problem (the seed: "the planner is simply called with the goal").
    Template only: the goal is ``(current_step sT)`` alone. A solved plan is replayed in the
    symbolic model by ``pddl.solve`` and, when there is a goal, checked against it here too. The plan
    may switch the things the goal's on/off items and the template's switch steps name."""
    if template.empty:
        return pddl.solve(household, state, goal, timeout_s=timeout_s)
    check_template(household, template)
    switchables = template_switchables(household, goal, template)
    result = pddl.solve(household, state, combined_goal(goal, template), timeout_s=timeout_s,
                        domain=template_domain(household, bool(switchables)),
                        extra_objects=template_objects(household, template, switchables),
                        extra_init=template_init(household, template, switchables), switchables=switchables)
    if result.solved and goal:
        problem = pddl.replay_problem(household, state, result.actions or [], tuple(goal))
        if problem is not None:
            return pddl.PlanResult(None, pddl.ERROR, result.seconds, f"the plan does not reach the goal: {problem}")
    return result
