"""The baselines of seed 003 §4.2 as :class:`~llm_planner.methods.stalm.stalm.Policy` objects.

=======================  =====================================================================
``uct``                  hybrid UCT without the LLM (N_budget 35, Rollout leaf values)
``uct_hcount``           the same with the modified Hcount of Appendix D as leaf value
``saycan``               empirical policy of N_batch responses to a prompt without state,
                         times the action's precondition as affordance (greedy)
``iterative_replanning`` one plan per query with up to two failed plans fed back, 5 attempts,
                         then the next action of the latest plan
``llm_mcts``             PUCT with the empirical policy of N_batch responses at every node
=======================  =====================================================================
"""
from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from llm_planner.domains.gtamp.domain import GState, TaskAction
from llm_planner.domains.gtamp.predicates import Literals
from llm_planner.methods.stalm.prompt import create_prompt, replanning_prompt, saycan_prompt
from llm_planner.methods.stalm.search import ConcretePlan, Deadline, DNode, HybridUCT, Step, concretize
from llm_planner.methods.stalm.stalm import Context, PlanResult, Policy


class UctPolicy(Policy):
    """UCT [seed ref 47] on the hybrid tree, no LLM; ``hcount=True``: UCT-with-Hcount."""

    name = "uct"

    def __init__(self, ctx: Context, n_budget: int = 35, hcount: bool = False) -> None:
        super().__init__(ctx)
        self.n_budget = int(n_budget)
        self.hcount = hcount

    def plan(self, s: GState, h: int, deadline: Deadline, history: Sequence[TaskAction]) -> PlanResult:
        leaf = self._hcount_value if self.hcount else None
        tree = HybridUCT(self.ctx.model, s, h, rng=self.ctx.rng, deadline=deadline, leaf_value=leaf)
        return self._tree_result(tree.run([], self.n_budget), [], [])

    def _hcount_value(self, state: GState, step: Step) -> float:
        """Appendix D: Q = 3 n(O_goal) - 3 Hcount."""
        goal_objects = {a.obj for a in self.ctx.problem.goal}
        return 3.0 * len(goal_objects) - 3.0 * hcount(self.ctx, state, step)


def hcount(ctx: Context, state: GState, step: Step | None) -> float:
    """Modified Hcount (seed Appendix D): ``|M| - |O_InGoal| + 1[o_target in O_InGoal]
    - 1[o_target not in O_InGoal and o_target in O_goal]``, where M are the occluders of the goal
    objects' picks and goal placements, and recursively of those occluders' picks."""
    model = ctx.model
    goal = ctx.problem.goal
    literals: Literals = ctx.predicates.literals(state)
    goal_objects = {a.obj for a in goal}
    in_goal = {o for o in goal_objects if all(model.holds(state, a) for a in goal if a.obj == o)}
    frontier: list[str] = []
    for o in goal_objects - in_goal:
        frontier += literals.pick_occluders(o)
        for a in goal:
            if a.obj == o:
                frontier += literals.place_occluders(o, a.direction, a.ref)
    occluders: set[str] = set()
    while frontier:
        x = frontier.pop()
        if x not in occluders:
            occluders.add(x)
            frontier += literals.pick_occluders(x)
    target = step.action.action.args[0] if step and step.action.action.op in ("pick", "place") else None
    value = len(occluders) - len(in_goal)
    if target in in_goal:
        value += 1
    elif target in goal_objects:
        value -= 1
    return float(value)


def empirical_policy(task_plans: Sequence[Sequence[TaskAction]], n: int) -> Counter:
    """Counts of the first action over the responses (the empirical distribution of LLM-MCTS)."""
    return Counter(p[0] for p in task_plans if p) if n else Counter()


def affordance(literals: Literals, action: TaskAction) -> float:
    """1 if the action's precondition holds in the predicate state, else 0 (SayCan's "can")."""
    held = literals.holding
    if action.op == "pick":
        return float(held is None and not literals.pick_occluders(action.args[0]))
    if action.op == "open":
        return float(held is None and action.args[0] in literals.closed_doors)
    o, d, ref = action.args
    return float(held == o and not literals.place_occluders(o, d, ref))


class SayCanPolicy(Policy):
    """SayCan [seed ref 14] as the seed runs it: LLM "say" from N_batch sampled plans, "can" from
    the preconditions; the best-scoring action whose kappa can be sampled (of the ``tries`` best)
    is executed."""

    name = "saycan"

    def __init__(self, ctx: Context, n_batch: int = 5, smoothing: float = 0.01, tries: int = 3) -> None:
        super().__init__(ctx)
        self.n_batch = int(n_batch)
        self.smoothing = float(smoothing)
        self.tries = int(tries)

    def plan(self, s: GState, h: int, deadline: Deadline, history: Sequence[TaskAction]) -> PlanResult:
        ctx = self.ctx
        task_plans, errors = ctx.ask(saycan_prompt(ctx.problem, history), self.n_batch)
        say = empirical_policy(task_plans, self.n_batch)
        literals = ctx.predicates.literals(s)
        scored = []
        for a in ctx.model.legal_actions(s):
            score = (say.get(a, 0) / self.n_batch + self.smoothing) * affordance(literals, a)
            if score > 0:
                scored.append((score, ctx.rng.random(), a))
        for _, _, a in sorted(scored, reverse=True)[:self.tries]:
            ca, s2, r = ctx.model.step(s, a)
            if ca.feasible:
                return PlanResult([Step(ca, s, s2, r)], ctx.model.is_goal(s2), task_plans, errors)
            errors.append(f"{a}: {ca.reason}")
        return PlanResult([], False, task_plans, errors)


class IterativeReplanningPolicy(Policy):
    """Iterative-Replanning [seed ref 40]: one plan per query from our prompt; a failed plan and
    its feedback go into the next prompt (the latest ``feedback_plans``); after ``attempts``
    failures the next action of the most recent plan is executed."""

    name = "iterative_replanning"

    def __init__(self, ctx: Context, attempts: int = 5, feedback_plans: int = 2) -> None:
        super().__init__(ctx)
        self.attempts = int(attempts)
        self.feedback_plans = int(feedback_plans)

    def plan(self, s: GState, h: int, deadline: Deadline, history: Sequence[TaskAction]) -> PlanResult:
        ctx = self.ctx
        literals = ctx.predicates.literals(s)
        failed: list[tuple[Sequence[TaskAction], str]] = []
        all_plans, errors = [], []
        latest: ConcretePlan | None = None
        for _ in range(self.attempts):
            shown = failed[-self.feedback_plans:] if self.feedback_plans else []
            prompt = replanning_prompt(ctx.problem, literals, shown)
            task_plans, errs = ctx.ask(prompt, 1)
            errors += errs
            if not task_plans:
                failed.append(((), "the response had no valid plan: " + "; ".join(errs)))
                continue
            all_plans += task_plans
            success, plans = concretize(task_plans[:1], s, h, ctx.model, deadline)
            latest = plans[0]
            if success:
                return PlanResult(latest.steps, True, all_plans, errors)
            failed.append((latest.task_plan, latest.failure))
        if latest is not None and latest.steps and latest.steps[0].action.feasible:
            return PlanResult(latest.steps[:1], False, all_plans, errors)
        return PlanResult([], False, all_plans, errors)


class LlmMctsPolicy(Policy):
    """LLM-MCTS [seed ref 9]: PUCT whose policy at every discrete node is the empirical
    distribution of the first actions of N_batch plans for that node's prompt (one query per
    node), mixed with a small uniform share; hybrid tree as STaLM's."""

    name = "llm_mcts"

    def __init__(self, ctx: Context, n_batch: int = 5, n_budget: int = 35, c_puct: float = 50.0,
                 smoothing: float = 0.05) -> None:
        super().__init__(ctx)
        self.n_batch = int(n_batch)
        self.n_budget = int(n_budget)
        self.c_puct = float(c_puct)
        self.smoothing = float(smoothing)
        self.errors: list[str] = []

    def plan(self, s: GState, h: int, deadline: Deadline, history: Sequence[TaskAction]) -> PlanResult:
        self.errors = []
        tree = HybridUCT(self.ctx.model, s, h, rng=self.ctx.rng, deadline=deadline, prior=self._prior,
                         c_puct=self.c_puct)
        return self._tree_result(tree.run([], self.n_budget), [], self.errors)

    def _prior(self, node: DNode) -> dict[TaskAction, float]:
        ctx = self.ctx
        prompt = create_prompt(ctx.problem, ctx.predicates.literals(node.state))
        task_plans, errs = ctx.ask(prompt, self.n_batch)
        self.errors += errs
        counts = empirical_policy(task_plans, self.n_batch)
        legal = node.legal or ctx.model.legal_actions(node.state)
        uniform = 1.0 / max(len(legal), 1)
        total = sum(counts.values()) or 1
        lam = self.smoothing if counts else 1.0
        return {a: (1 - lam) * counts.get(a, 0) / total + lam * uniform for a in legal}
