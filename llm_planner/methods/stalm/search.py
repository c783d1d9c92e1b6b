"""Concretize and warm-started hybrid UCT (seed 003 Appendix B, Algorithms 2-5).

The tree alternates *discrete* nodes T(s), where a task action a(delta) is chosen by UCT, and
*continuous* nodes T(s a(delta)), where parameters kappa are sampled by progressive widening
(a new kappa while ``|U| <= k * n^alpha``) and otherwise chosen by UCT. Every sampled kappa is
one edge to the next discrete node, with the reward of that transition. An infeasible sample is
an edge too (reward -6, terminal), so a continuous node can hold failed and successful samples.

Readings of the pseudocode, where it is ambiguous:

* a discrete node reached for the first time is valued by Rollout; afterwards Simulate
  descends into it (standard MCTS expansion);
* ``total = r + gamma * Rollout(s')`` at a leaf, ``total = r`` at a terminal edge (infeasible,
  goal, or horizon);
* Q values are incremental means over the visits of the edge that was taken (the visit count
  UCT's bonus uses), and AddToTree pops plan steps from the front.

Any simulation (or warm-up plan) that reaches the goal ends the search with that plan, as the
seed stops planning once a successful plan is found.
"""
from __future__ import annotations

import math
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from llm_planner.domains.gtamp.config import SearchParams
from llm_planner.domains.gtamp.domain import ConcreteAction, GState, TaskAction
from llm_planner.domains.gtamp.operators import GTampModel

CLOCKS: dict[str, Callable[[], float]] = {"wall": time.perf_counter, "cpu": time.process_time}


@dataclass(frozen=True)
class Deadline:
    """When planning must stop, on a clock: wall time, or this process's CPU time (a fair
    measure when other programs share the CPU); or at once when ``stop`` (the closed loop's
    cancel, :attr:`~llm_planner.planners.base.Planner.should_stop`) says so."""

    at: float = math.inf
    clock: Callable[[], float] = time.perf_counter
    stop: Callable[[], bool] | None = None

    @classmethod
    def after(cls, seconds: float, clock: str = "wall", stop: Callable[[], bool] | None = None) -> Deadline:
        fn = CLOCKS[clock]
        return cls(fn() + seconds, fn, stop)

    def expired(self) -> bool:
        return (self.at != math.inf and self.clock() > self.at) or (self.stop is not None and self.stop())

    def remaining(self) -> float:
        """Seconds left on the deadline's clock (0 when passed or stopped, ``inf`` without a deadline)."""
        if self.stop is not None and self.stop():
            return 0.0
        return math.inf if self.at == math.inf else max(0.0, self.at - self.clock())


def as_deadline(deadline: float | Deadline) -> Deadline:
    """A :class:`Deadline`; a number is a ``time.perf_counter`` instant."""
    return deadline if isinstance(deadline, Deadline) else Deadline(float(deadline))


@dataclass
class Step:
    """One executed (or simulated) concrete action with its states and reward."""

    action: ConcreteAction
    before: GState
    after: GState
    reward: float


@dataclass
class ConcretePlan:
    """Algorithm 2's output for one task plan: the steps sampled until success, infeasibility,
    the horizon, or the end of the task plan."""

    task_plan: tuple[TaskAction, ...]
    steps: list[Step] = field(default_factory=list)
    success: bool = False

    @property
    def failure(self) -> str:
        """Feedback for replanning: the step that failed and why ('' if none failed)."""
        for k, st in enumerate(self.steps, 1):
            if not st.action.feasible:
                return f"step {k} {st.action.action.literal()} was infeasible: {st.action.reason}"
        if not self.success:
            return "the plan ended without achieving the goal"
        return ""


def concretize(task_plans: Sequence[Sequence[TaskAction]], s0: GState, h: int, model: GTampModel,
               deadline: float | Deadline = math.inf) -> tuple[bool, list[ConcretePlan]]:
    """Algorithm 2, Concretize(TaskPlans, s, h): sample kappa for each step of each plan, stop a
    plan at its first infeasible step or at the horizon, stop everything at the first plan that
    reaches the goal."""
    H = model.config.search.horizon
    deadline = as_deadline(deadline)
    plans: list[ConcretePlan] = []
    for task_plan in task_plans:
        plan = ConcretePlan(tuple(task_plan))
        plans.append(plan)
        s, depth = s0, h
        for a in task_plan:
            if deadline.expired() or depth >= H:
                break
            ca, s2, r = model.step(s, a)
            plan.steps.append(Step(ca, s, s2, r))
            if not ca.feasible:
                break
            if model.is_goal(s2):
                plan.success = True
                return True, plans
            s, depth = s2, depth + 1
    return False, plans


# ------------------------------------------------------------------------------ the tree
@dataclass(eq=False)
class Edge:
    """A sampled kappa of a continuous node and the discrete node it leads to."""

    step: Step
    child: DNode
    terminal: bool
    n: int = 0
    q: float = 0.0


@dataclass(eq=False)
class CNode:
    """Continuous node T(s a(delta)): the sampled kappas U and their values."""

    action: TaskAction
    n: int = 0
    edges: list[Edge] = field(default_factory=list)


@dataclass(eq=False)
class DNode:
    """Discrete node T(s): tried task actions U with their values Q(s, a(delta))."""

    state: GState
    depth: int
    n: int = 0
    children: dict[TaskAction, CNode] = field(default_factory=dict)
    q: dict[TaskAction, float] = field(default_factory=dict)
    legal: list[TaskAction] | None = None


ValueFn = Callable[[GState, Step], float]
PriorFn = Callable[[DNode], dict[TaskAction, float]]


class HybridUCT:
    """WarmStartedUCT (Algorithm 3) with WarmUpTree (Algorithm 4) and Simulate (Algorithm 5).

    ``leaf_value`` replaces Rollout (UCT-with-Hcount); ``prior`` turns UCT into PUCT with a
    policy per discrete node (LLM-MCTS)."""

    def __init__(self, model: GTampModel, s0: GState, h: int = 0, params: SearchParams | None = None,
                 rng: random.Random | None = None, deadline: float | Deadline = math.inf,
                 leaf_value: ValueFn | None = None, prior: PriorFn | None = None, c_puct: float = 50.0) -> None:
        self.model = model
        self.p = params or model.config.search
        self.rng = rng or random.Random(0)
        self.deadline = as_deadline(deadline)
        self.root = DNode(s0, h)
        self.leaf_value = leaf_value
        self.prior = prior
        self.c_puct = c_puct
        self._priors: dict[int, dict[TaskAction, float]] = {}
        self.solution: list[Step] | None = None
        self.simulations = 0

    # ------------------------------------------------------------------ Algorithm 3
    def run(self, plans: Sequence[ConcretePlan], n_budget: int) -> HybridUCT:
        """WarmStartedUCT(Plans, s, h, N_budget)."""
        self.warm_up(plans)
        return self.search(n_budget)

    def search(self, n_budget: int, until: Callable[[], bool] | None = None) -> HybridUCT:
        """Up to ``n_budget`` more simulations from the root, fewer once a solution is found, the
        deadline passes or ``until()`` is true (STaLM stops when its plans arrive)."""
        for _ in range(n_budget):
            if self.solution is not None or self.deadline.expired() or (until is not None and until()):
                break
            self.simulate(self.root, [])
            self.simulations += 1
        return self

    # ------------------------------------------------------------------ Algorithm 4
    def warm_up(self, plans: Sequence[ConcretePlan]) -> None:
        """WarmUpTree: add each concretized plan as a branch, value its leaf by Rollout, back up."""
        for plan in plans:
            if plan.steps and self.solution is None:
                self._add_to_tree(self.root, plan.steps, [])

    def _add_to_tree(self, node: DNode, steps: Sequence[Step], path: list[Step]) -> float:
        step = steps[0]
        a = step.action.action
        cnode = node.children.get(a)
        if cnode is None:
            cnode = node.children[a] = CNode(a)
        node.n += 1
        cnode.n += 1
        edge = next((e for e in cnode.edges if e.step.action is step.action), None)
        if edge is None:
            edge = self._edge(node, step)
            cnode.edges.append(edge)
        path = path + [step]
        if self._is_goal_edge(edge):
            self.solution = path
        if edge.terminal:
            total = step.reward
        elif len(steps) > 1:
            total = step.reward + self.p.gamma * self._add_to_tree(edge.child, steps[1:], path)
        else:
            edge.child.n += 1
            total = step.reward + self.p.gamma * self._leaf(edge)
        self._backup(node, cnode, edge, total)
        return total

    # ------------------------------------------------------------------ Algorithm 5
    def simulate(self, node: DNode, path: list[Step]) -> float:
        """Simulate(s, h, total, T): UCT over task actions, progressive widening over kappa."""
        node.n += 1
        a = self._select_action(node)
        cnode = node.children.get(a)
        if cnode is None:
            cnode = node.children[a] = CNode(a)
        cnode.n += 1
        if len(cnode.edges) <= self.p.pw_k * cnode.n ** self.p.pw_alpha:
            ca, s2, r = self.model.step(node.state, a)
            edge = self._edge(node, Step(ca, node.state, s2, r))
            cnode.edges.append(edge)
        else:
            edge = self._select_kappa(cnode)
        path = path + [edge.step]
        if self._is_goal_edge(edge):
            self.solution = path
        if edge.terminal:
            total = edge.step.reward
        elif edge.child.n == 0:
            edge.child.n += 1
            total = edge.step.reward + self.p.gamma * self._leaf(edge)
        else:
            total = edge.step.reward + self.p.gamma * self.simulate(edge.child, path)
        self._backup(node, cnode, edge, total)
        return total

    def _select_action(self, node: DNode) -> TaskAction:
        if node.legal is None:
            node.legal = self.model.legal_actions(node.state)
        log_n = math.log(max(node.n, 1))
        prior = self._prior(node) if self.prior else None
        best, best_score = [], -math.inf
        for a in node.legal:
            child = node.children.get(a)
            n_a = child.n if child else 0
            if prior is None:
                score = node.q.get(a, 0.0) + self.p.c * math.sqrt(log_n / (1 + n_a))
            else:
                score = node.q.get(a, 0.0) + self.c_puct * prior.get(a, 0.0) * math.sqrt(node.n) / (1 + n_a)
            if score > best_score + 1e-12:
                best, best_score = [a], score
            elif abs(score - best_score) <= 1e-12:
                best.append(a)
        return self.rng.choice(best)

    def _select_kappa(self, cnode: CNode) -> Edge:
        log_n = math.log(max(cnode.n, 1))
        scores = [e.q + self.p.c * math.sqrt(log_n / (1 + e.n)) for e in cnode.edges]
        top = max(scores)
        return self.rng.choice([e for e, s in zip(cnode.edges, scores, strict=True) if s >= top - 1e-12])

    def _prior(self, node: DNode) -> dict[TaskAction, float]:
        key = id(node)
        if key not in self._priors:
            assert self.prior is not None  # asked only when the search has a prior
            self._priors[key] = self.prior(node)
        return self._priors[key]

    # ------------------------------------------------------------------ helpers
    def _edge(self, node: DNode, step: Step) -> Edge:
        depth = node.depth + 1
        terminal = (not step.action.feasible) or self.model.is_goal(step.after) or depth >= self.p.horizon
        return Edge(step, DNode(step.after, depth), terminal)

    def _is_goal_edge(self, edge: Edge) -> bool:
        return edge.step.action.feasible and self.model.is_goal(edge.step.after)

    def _leaf(self, edge: Edge) -> float:
        if self.leaf_value is not None:
            return self.leaf_value(edge.child.state, edge.step)
        return self.rollout(edge.child.state, edge.child.depth)

    def rollout(self, s: GState, depth: int) -> float:
        """Rollout(s'): a uniformly random task policy with sampled kappa, ``rollout_depth`` steps."""
        total, discount = 0.0, 1.0
        for _ in range(self.p.rollout_depth):
            if depth >= self.p.horizon or self.model.is_goal(s) or self.deadline.expired():
                break
            actions = self.model.legal_actions(s)
            if not actions:
                break
            ca, s2, r = self.model.step(s, self.rng.choice(actions))
            total += discount * r
            if not ca.feasible:
                break
            s, depth, discount = s2, depth + 1, discount * self.p.gamma
        return total

    @staticmethod
    def _backup(node: DNode, cnode: CNode, edge: Edge, total: float) -> None:
        edge.n += 1
        edge.q += (total - edge.q) / edge.n
        q = node.q.get(cnode.action, 0.0)
        node.q[cnode.action] = q + (total - q) / cnode.n

    # ------------------------------------------------------------------ Algorithm 1, L7
    def best(self) -> Step | None:
        """argmax over a(delta, kappa) of Q(s, a(delta, kappa)) at the root, among feasible samples
        (ties: the better Q(s, a(delta)))."""
        best, best_key = None, (-math.inf, -math.inf)
        for a, cnode in self.root.children.items():
            for e in cnode.edges:
                key = (e.q, self.root.q.get(a, 0.0))
                if e.step.action.feasible and key > best_key:
                    best, best_key = e.step, key
        return best
