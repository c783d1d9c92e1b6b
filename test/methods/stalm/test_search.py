"""Concretize (Alg. 2) and the warm-started hybrid UCT (Algs. 3-5)."""
from __future__ import annotations

import math
import random

from llm_planner.domains.gtamp.config import SearchParams
from llm_planner.domains.gtamp.domain import ConcreteAction, GState, Kappa, Pose2D, TaskAction
from llm_planner.methods.stalm.search import ConcretePlan, HybridUCT, Step, concretize

act = TaskAction.of


class ChainModel:
    """A stand-in world model: states are integers on a chain, 'go' moves right (+3 reward at the
    end), 'stay' samples kappa that is infeasible with probability ``p_fail``. Counts psi calls."""

    def __init__(self, length: int = 3, p_fail: float = 0.0) -> None:
        self.length = length
        self.p_fail = p_fail
        self.calls = 0
        self.rng = random.Random(0)

    def _s(self, k: int) -> GState:
        return GState(Pose2D(float(k), 0.0, 0.0), ())

    def legal_actions(self, s: GState) -> list[TaskAction]:
        return [act("go"), act("stay")]

    def is_goal(self, s: GState) -> bool:
        return s.base.x >= self.length

    def step(self, s: GState, a: TaskAction):
        self.calls += 1
        if self.rng.random() < self.p_fail:
            return ConcreteAction(a, None, "failed"), s, -6.0
        nxt = self._s(int(s.base.x) + (a.op == "go"))
        return ConcreteAction(a, Kappa((nxt.base,), ())), nxt, 3.0 * (self.is_goal(nxt) and not self.is_goal(s))


def test_progressive_widening_adds_kappa_while_u_is_at_most_k_n_alpha():
    model = ChainModel(length=100)
    params = SearchParams(rollout_depth=0)
    tree = HybridUCT(model, model._s(0), params=params, rng=random.Random(1))  # type: ignore[arg-type]
    node = tree.root
    node.legal = [act("stay")]                      # a single task action: every visit widens or not
    counts = []
    for _ in range(110):
        tree.simulate(node, [])
        counts.append(len(node.children[act("stay")].edges))
    expected, u = [], 0
    for n in range(1, 111):
        if u <= 1.5 * n ** 0.15:
            u += 1
        expected.append(u)
    assert counts == expected
    assert (counts[0], counts[1], counts[5], counts[6], counts[100], counts[101]) == (1, 2, 2, 3, 3, 4)


def test_uct_finds_the_goal_and_stops_with_the_plan():
    model = ChainModel(length=3)
    tree = HybridUCT(model, model._s(0), params=SearchParams(rollout_depth=3), rng=random.Random(0)).run([], 200)  # type: ignore[arg-type]
    assert tree.solution is not None and model.is_goal(tree.solution[-1].after)
    assert [s.action.action.op for s in tree.solution].count("go") == 3
    assert tree.simulations < 200


def test_warm_up_adds_plans_and_backs_up_discounted_returns():
    model = ChainModel(length=10)
    s0 = model._s(0)
    steps, s = [], s0
    for a in (act("go"), act("go")):
        ca, s2, r = model.step(s, a)
        steps.append(Step(ca, s, s2, r))
        s = s2
    infeasible = Step(ConcreteAction(act("stay"), None, "x"), s0, s0, -6.0)
    tree = HybridUCT(model, s0, params=SearchParams(rollout_depth=0), rng=random.Random(0))  # type: ignore[arg-type]
    tree.warm_up([ConcretePlan((act("go"), act("go")), steps), ConcretePlan((act("stay"),), [infeasible])])
    root = tree.root
    assert root.n == 2 and set(root.children) == {act("go"), act("stay")}
    assert root.q[act("stay")] == -6.0 and root.q[act("go")] == 0.0
    child = root.children[act("go")].edges[0].child
    assert child.n == 1 and act("go") in child.children
    assert tree.best().action.action == act("go")                  # infeasible samples are never returned
    goal_model = ChainModel(length=2)
    goal_steps, s = [], s0
    for a in (act("go"), act("go")):
        ca, s2, r = goal_model.step(s, a)
        goal_steps.append(Step(ca, s, s2, r))
        s = s2
    goal_tree = HybridUCT(goal_model, s0, params=SearchParams(rollout_depth=0))  # type: ignore[arg-type]
    goal_tree.warm_up([ConcretePlan((act("go"), act("go")), goal_steps)])
    assert goal_tree.solution == goal_steps                        # a warm-up plan that reaches G is returned
    assert math.isclose(goal_tree.root.q[act("go")], 0.0 + 0.99 * 3.0)


def test_concretize_a_plan_known_to_be_feasible(model_p2, p2, p2_plan):
    model_p2.rng = random.Random(0)
    success, plans = concretize([p2_plan], p2.initial, 0, model_p2)
    assert success and len(plans) == 1 and len(plans[0].steps) == len(p2_plan)
    assert model_p2.is_goal(plans[0].steps[-1].after) and plans[0].failure == ""
    assert [st.action.action for st in plans[0].steps] == list(p2_plan)


def test_concretize_stops_a_plan_at_its_infeasible_step_and_tries_the_next(model_p2, p2, p2_plan):
    model_p2.rng = random.Random(0)
    naive = (act("pick", "salter"), act("place", "salter", "right_of", "bottle1"))
    success, plans = concretize([naive, p2_plan], p2.initial, 0, model_p2)
    assert success and len(plans) == 2
    assert len(plans[0].steps) == 1 and "infeasible" in plans[0].failure and "bottle" in plans[0].failure
    ok, cut = concretize([p2_plan], p2.initial, 16, model_p2)     # horizon H = 20 leaves 4 steps
    assert not ok and len(cut[0].steps) == 4


def test_deadlines_run_on_wall_or_cpu_clocks():
    import time

    from llm_planner.methods.stalm.search import Deadline, as_deadline
    cpu = Deadline.after(100.0, "cpu")
    assert cpu.clock is time.process_time and not cpu.expired()
    assert as_deadline(0.0).expired() and not as_deadline(math.inf).expired()
