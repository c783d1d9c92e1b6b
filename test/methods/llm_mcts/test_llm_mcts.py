"""LLM-MCTS (seed 000, Algorithm 1, App. C.2): PUCT arithmetic, belief updates, rollout
discounting, determinism, bad input, one real episode with the offline backend, the benchmark."""
from __future__ import annotations

import dataclasses
import json
import math
import random
import threading
import time

import numpy as np
import pytest

from llm_planner.errors import ConfigError, LLMError
from llm_planner.domains.household.world.episode import SymbolicWorld, Task
from llm_planner.adapters.household import HouseholdDomain
from llm_planner.execution import run_episode
from llm_planner.planners.base import create
from llm_planner.methods.llm_mcts import Belief, LLMMCTS, Node, SearchConfig, load_config
from llm_planner.methods.llm_mcts.tree import SearchStats, argmax_ties, puct_scores, uct_scores
from llm_planner.domains.household.world.scene import load_scene
from llm_planner.domains.household.world.symbolic import Action, GoalItem, Household, Observation, State, state_goal
from llm_planner.domains.household.world.tasks import generate_tasks

APPLE_IN_FRIDGE = (GoalItem("inside", "apple", "fridge", 1),)


@pytest.fixture(autouse=True)
def _isolated_llm_cache(tmp_path_factory, monkeypatch):
    """Priors and embeddings the planners build go to a temporary directory, not ~/.cache."""
    monkeypatch.setenv("LLM_PLANNER_CACHE", str(tmp_path_factory.getbasetemp() / "llm_mcts_cache"))


@pytest.fixture(scope="module")
def hh() -> Household:
    return Household(load_scene("apartment_seen"))


def holding_apple_at_open_fridge(hh: Household) -> State:
    placement = hh.scene.sample_placement(0)
    placement["apple_1"] = placement["apple_2"] = "kitchen_table"
    s = hh.initial_state(placement, room="kitchen")
    s = hh.transition(s, Action("walk", ("apple_1",)))
    s = hh.transition(s, Action("grab", ("apple_1",)))
    s = hh.transition(s, Action("walk", ("fridge",)))
    return hh.transition(s, Action("open", ("fridge",)))


# ------------------------------------------------------------------------------ PUCT
def test_puct_arithmetic_on_a_hand_built_tree(hh):
    """Line 29: Q(h,a) + c pi(a|h) sqrt(N(h)) / (N(h,a) + 1), with c = 24 (authors' code)."""
    acts = [Action("walk", ("kitchen",)), Action("walk", ("bedroom",)), Action("walk", ("bathroom",))]
    node = Node(acts)
    node.pi = [0.6, 0.3, 0.1]
    node.n, node.na, node.q = 16, [10, 4, 2], [1.0, 2.0, 0.5]
    m = LLMMCTS(hh, APPLE_IN_FRIDGE, SearchConfig(c=24.0))
    # by hand: 1 + 24*.6*4/11 = 6.236; 2 + 24*.3*4/5 = 7.76; .5 + 24*.1*4/3 = 3.7
    assert puct_scores([1.0, 2.0, 0.5], [0.6, 0.3, 0.1], 16, [10, 4, 2], 24.0) == pytest.approx(
        [1.0 + 57.6 / 11, 7.76, 3.7])
    assert m.select(node, node.pi) == 1
    # without exploration (c = 0) the choice is argmax Q; a large Q gap beats the prior
    assert LLMMCTS(hh, APPLE_IN_FRIDGE, SearchConfig(c=0.0)).select(node, node.pi) == 1
    node.q = [9.0, 2.0, 0.5]
    assert m.select(node, node.pi) == 0
    # N(h) = 0 (the second visit of Alg. 1): every score is Q = 0, the tie goes to the largest pi
    fresh = Node(acts)
    fresh.pi = [0.2, 0.5, 0.3]
    assert m.select(fresh, fresh.pi) == 1


def test_uct_score_and_tie_breaks(hh):
    assert uct_scores([1.0, 0.0], 9, [3, 0], 2.0) == pytest.approx(
        [1.0 + 2.0 * math.sqrt(math.log(10) / 4), 2.0 * math.sqrt(math.log(10))])
    rng = random.Random(0)
    assert argmax_ties([1.0, 3.0, 3.0], [0.1, 0.2, 0.7], [5, 5, 5], rng) == 2   # larger pi
    assert argmax_ties([3.0, 3.0], [0.5, 0.5], [1, 7], rng) == 1                # then more visits
    node = Node([Action("walk", ("kitchen",)), Action("walk", ("bedroom",))])
    node.n, node.na, node.q = 10, [9, 1], [1.0, 0.5]
    uct = LLMMCTS(hh, APPLE_IN_FRIDGE, SearchConfig(c=2.0, selection="uct"))
    assert uct.select(node, [0.5, 0.5]) == 1  # 0.5 + 2*sqrt(ln 11 / 2) > 1 + 2*sqrt(ln 11 / 10)


def test_backup_is_the_incremental_mean_and_search_returns_argmax_q(hh):
    """At a state one put away from the goal every simulation through putin returns r = 10
    (lines 30-35), so Q(h, putin) is exactly 10 and SEARCH returns it (line 8)."""
    s = holding_apple_at_open_fridge(hh)
    belief = Belief.point(hh, s)
    m = LLMMCTS(hh, APPLE_IN_FRIDGE, SearchConfig(simulations=60), seed=3)
    result = m.search([], hh.observe(s), belief)
    assert result.action == Action("putin", ("apple_1", "fridge"))
    root = result.root
    i = root.actions.index(result.action)
    assert root.q[i] == pytest.approx(10.0)
    assert root.n == 59 == sum(root.na)  # the first simulation only adds the root (lines 23-26)
    others = [q for j, q in enumerate(root.q) if j != i]
    assert others and all(0.0 <= q <= 10.0 * 0.95 + 1e-9 for q in others)  # the goal is >= 1 step further


def test_rollout_discounting_and_the_epsilon_cut(hh):
    """ROLLOUT returns sum gamma^j r_j; gamma^d < epsilon ends it (lines 10-18)."""
    script = [Action("close", ("fridge",)), Action("open", ("fridge",)), Action("putin", ("apple_1", "fridge"))]

    def scripted(actions, rng):  # pi_rollout replaced by a fixed plan: the goal on its third step
        action = scripted.plan.pop(0)
        assert action in actions
        return action

    s = holding_apple_at_open_fridge(hh)
    cfg = SearchConfig(gamma=0.95, epsilon=0.36, max_depth=50, goal_reward=10.0)
    assert cfg.depth_cut() == 20  # 0.95^19 = 0.377 >= 0.36 > 0.95^20 = 0.358
    m = LLMMCTS(hh, APPLE_IN_FRIDGE, cfg, rollout_policy=scripted)
    for depth, expected in ((0, 10 * 0.95 ** 2), (17, 10 * 0.95 ** 2), (18, 0.0)):
        scripted.plan = list(script)
        assert m.rollout(s, depth) == pytest.approx(expected), depth
    cfg1 = SearchConfig(gamma=0.5, epsilon=0.01, max_depth=50)  # 0.5^7 < 0.01 <= 0.5^6
    assert cfg1.depth_cut() == 7
    scripted.plan = list(script)
    assert LLMMCTS(hh, APPLE_IN_FRIDGE, cfg1, rollout_policy=scripted).rollout(s, 0) == pytest.approx(2.5)


def test_search_is_deterministic_for_a_seed(hh):
    task = generate_tasks(hh.scene, "comp", 1, 4)[0]
    state = hh.sample_initial_state(task.placement_seed)
    obs = hh.observe(state)

    def policy(history, past, observation, actions):  # a fixed, history-dependent stand-in for pi
        return [1.0 + (len(str(a)) * (len(history) + 3)) % 7 for a in actions]

    def run(seed):
        belief = Belief.from_prior(hh, {"apple": {"fridge": 3, "kitchen_table": 1}})
        belief.update(obs)
        m = LLMMCTS(hh, task.goal, SearchConfig(simulations=80), policy, seed=seed)
        r = m.search([], obs, belief)
        return r.action, r.root.na, r.root.q, r.stats.policy_queries

    assert run(7) == run(7)
    # the seed matters: near the goal random rollouts reach it, so Q estimates differ by seed
    near = holding_apple_at_open_fridge(hh)
    near_obs = hh.observe(near)

    def q_table(seed):
        belief = Belief.from_prior(hh, {"apple": {"fridge": 3, "kitchen_table": 1}})
        belief.update(near_obs)
        return LLMMCTS(hh, APPLE_IN_FRIDGE, SearchConfig(simulations=80), policy, seed=seed).search(
            [], near_obs, belief).root.q

    assert q_table(7) == q_table(7)
    assert q_table(7) != q_table(8)


# ------------------------------------------- concurrent questions, fewer questions, reuse
def _comp_root(hh):
    """A two-item goal whose objects are in view (the living room), one item already done (the
    magazine lies on the coffee table): random rollouts reach it, so trees grown in different
    orders differ."""
    task = generate_tasks(hh.scene, "comp", 1, 4)[0]
    obs = hh.observe(hh.sample_initial_state(task.placement_seed))
    belief = Belief.from_prior(hh, {"apple": {"fridge": 3, "kitchen_table": 1}})
    belief.update(obs)
    goal = (GoalItem("on", "remote_control", "sofa", 1), GoalItem("on", "magazine", "coffee_table", 1))
    assert {o for _, o, _ in obs.relations} >= {"remote_control_1", "magazine_1"}
    return goal, obs, belief


def _fixed_policy(history, past, observation, actions):
    """A deterministic, history-dependent stand-in for pi(a|h) (sums to 1)."""
    weights = [1.0 + (len(str(a)) * (len(history) + 3)) % 7 for a in actions]
    return [w / sum(weights) for w in weights]


def _search(hh, policy=_fixed_policy, seed=11, n=150, **config):
    goal, obs, belief = _comp_root(hh)
    m = LLMMCTS(hh, goal, SearchConfig(simulations=n, **config), policy, seed=seed)
    return m, m.search([], obs, belief)


def _summary(result):
    return (result.action, result.root.na, result.root.q, result.stats.policy_queries, result.stats.goal_hits,
            result.stats.nodes)


def _walk(node):
    yield node
    for child in node.children.values():
        yield from _walk(child)


def test_sequential_search_matches_the_recursive_reference(hh):
    """One question at a time the iterative SIMULATE gives the figures of Algorithm 1's recursive
    SIMULATE (pinned from a recursive implementation of the same search: it walks to and grabs only
    the goal's objects and draws its root samples conditioned on the unfinished goal)."""
    for config in ({}, {"max_in_flight": 1}):
        _, result = _search(hh, **config)
        assert result.action == Action("walk", ("coffee_table",))
        assert result.root.actions[-2:] == [Action("walk", ("magazine_1",)), Action("walk", ("remote_control_1",))]
        assert result.root.na == [20, 20, 3, 12, 29, 3, 16, 31, 15]  # 9 actions: no walk to the mug in view
        assert result.root.q[4] == pytest.approx(0.370927896) and result.root.q[7] == pytest.approx(0.225270096)
        assert sum(result.root.q) == pytest.approx(0.370927896 + 0.225270096)
        assert (result.stats.policy_queries, result.stats.goal_hits, result.stats.nodes) == (30, 3, 150)
        assert result.stats.waves == 0 and result.stats.peak_in_flight == 1


class CountingPolicy:
    """_fixed_policy answered after a random delay from several threads, counting questions in flight."""

    def __init__(self, seed=0, delay=0.004, fail_after=None):
        self.lock = threading.Lock()
        self.rng = random.Random(seed)
        self.delay, self.fail_after = delay, fail_after
        self.calls = self.in_flight = self.peak = 0

    def __call__(self, history, past, observation, actions):
        with self.lock:
            self.calls += 1
            self.in_flight += 1
            self.peak = max(self.peak, self.in_flight)
            call, pause = self.calls, self.rng.random() * self.delay
        try:
            time.sleep(pause)  # answers come back in an order that changes from run to run
            if self.fail_after is not None and call > self.fail_after:
                raise LLMError(f"question {call}: HTTP 500 three times")
            return _fixed_policy(history, past, observation, actions)
        finally:
            with self.lock:
                self.in_flight -= 1


def test_concurrent_search_is_bounded_and_deterministic(hh):
    """Questions in flight never exceed max_in_flight; the result depends on the seed and the
    answers, not on the order in which answers arrive; virtual losses are all taken back."""
    runs = []
    for delay_seed in (1, 2):
        policy = CountingPolicy(delay_seed)
        m, result = _search(hh, policy, max_in_flight=4)
        assert 1 < policy.peak <= 4 and result.stats.peak_in_flight == policy.peak
        assert result.stats.waves >= 2 and result.stats.simulations == 150
        assert result.stats.policy_queries == policy.calls
        assert all(node.loss_n == 0 and not any(node.loss or ()) for node in _walk(result.root))
        assert result.root.n == 149  # every simulation after the one that added the root went through it
        runs.append(_summary(result))
    assert runs[0] == runs[1]
    # two questions in flight are not four: a different (still seeded) search
    assert _summary(_search(hh, CountingPolicy(1), max_in_flight=2)[1]) != runs[0]


def test_concurrent_search_equals_sequential_where_the_order_does_not_matter(hh):
    """When only the root asks (every other node stays unexpanded), the simulations never wait
    below it: the concurrent search is the sequential one, result for result."""
    sequential = _summary(_search(hh, expand_after=1000)[1])
    assert sequential[3] == 1
    assert _summary(_search(hh, CountingPolicy(3), expand_after=1000, max_in_flight=8)[1]) == sequential


def test_expand_after_asks_only_nodes_visited_more_often(hh):
    counts = {}
    for k in (1, 2, 3):
        _, result = _search(hh, expand_after=k)
        asked = [node for node in _walk(result.root) if node.pi is not None]
        counts[k] = len(asked)
        assert result.stats.policy_queries == len(asked)
        assert all(node.visits > k for node in asked if node is not result.root)
        assert result.stats.rollout_visits > 0 or k == 1
    assert counts[1] > counts[2] > counts[3] >= 1


def test_max_waves_bounds_the_rounds_of_questions(hh):
    _, unbounded = _search(hh, CountingPolicy(), max_in_flight=4)
    _, bounded = _search(hh, CountingPolicy(), max_in_flight=4, max_waves=2)
    assert unbounded.stats.waves > 2 and bounded.stats.waves == 2
    assert bounded.stats.policy_queries < unbounded.stats.policy_queries
    assert bounded.stats.simulations == 150 and bounded.root.pi is not None


@pytest.mark.parametrize("in_flight", [1, 4])
def test_decision_time_stops_questions_whose_answers_would_come_too_late(hh, in_flight):
    """decision_time_s: a question is asked only while, at the mean time questions took, its answer
    would come within the bound; the root's is always asked, and the search still runs N simulations."""
    slow = CountingPolicy(delay=0.0)

    def policy(*args):
        time.sleep(0.05)  # every answer takes 50 ms (plus CountingPolicy's bookkeeping)
        return slow(*args)

    _, unbounded = _search(hh, policy, max_in_flight=in_flight)
    _, bounded = _search(hh, policy, max_in_flight=in_flight, decision_time_s=0.2)
    assert unbounded.stats.out_of_time == 0 and bounded.stats.out_of_time == 1
    assert 1 <= bounded.stats.policy_queries < unbounded.stats.policy_queries
    assert bounded.stats.wait_seconds < min(unbounded.stats.wait_seconds, 0.6)  # about one round past the bound
    assert bounded.stats.simulations == 150 and bounded.root.pi is not None
    with pytest.raises(ConfigError, match="decision_time_s"):
        SearchConfig(decision_time_s=-1.0)


def test_a_failing_question_ends_the_search_without_deadlock(hh):
    policy = CountingPolicy(fail_after=3)
    started = time.monotonic()
    with pytest.raises(LLMError, match="HTTP 500"):
        _search(hh, policy, max_in_flight=4)
    assert time.monotonic() - started < 60  # bounded: a deadlock would hang the test (and its timeout)
    assert not [t for t in threading.enumerate() if t.name.startswith("llm-mcts-pi")]
    assert policy.in_flight == 0


def test_the_subtree_is_kept_when_the_observation_was_expected(hh):
    goal, obs, belief = _comp_root(hh)
    m = LLMMCTS(hh, goal, SearchConfig(simulations=150, reuse_tree=True), _fixed_policy, seed=11)
    first = m.search([], obs, belief)
    i = first.root.actions.index(first.action)
    expected = [(key, child) for key, child in first.root.children.items() if key[0] == i]
    (_, next_obs), child = max(expected, key=lambda kv: kv[1].n)
    visits = child.n
    m.advance(first.action, next_obs)
    belief.update(next_obs)
    second = m.search([first.action], next_obs, belief, past=[obs])
    assert second.root is child and second.stats.reused_nodes > 1
    assert child.n == visits + 150  # the kept visits plus this decision's N simulations
    # an observation the tree did not expect, a failed step, or no reuse: T starts empty
    m.advance(second.action, obs)
    assert m.search([first.action, second.action], obs, belief).stats.reused_nodes == 0
    m.advance(None, next_obs)
    assert m._root is None
    plain = LLMMCTS(hh, goal, SearchConfig(simulations=50), _fixed_policy, seed=11)
    plain.search([], obs, belief)
    plain.advance(first.action, next_obs)
    assert plain._root is None


# ---------------------------------------------------------------------------- belief
def test_prior_counts_floor_and_normalisation(hh):
    b = Belief.from_prior(hh, {"apple": {"fridge": 3, "kitchen_table": 1}}, floor=1e-3)
    row = b.row("apple_1")
    others = len(hh.furniture) - 2
    total = 1.0 + others * 1e-3
    assert row["fridge"] == pytest.approx(0.75 / total)
    assert row["kitchen_table"] == pytest.approx(0.25 / total)
    assert row["bed"] == pytest.approx(1e-3 / total)
    assert sum(row.values()) == pytest.approx(1.0)
    assert b.row("apple_2") == row  # instances share their type's vector
    assert b.row("book_1")["bed"] == pytest.approx(1.0 / len(hh.furniture))  # no answer: floor everywhere
    with pytest.raises(ValueError, match="no container or surface"):
        Belief.from_prior(hh, {"apple": {"garage": 1}})


def test_update_sets_observed_relations_to_one_and_seen_places_to_zero(hh):
    b = Belief.from_prior(hh, {"apple": {"fridge": 3, "kitchen_table": 1, "kitchen_counter": 1}})
    kitchen_surfaces = hh.room_surfaces["kitchen"]
    obs = Observation("kitchen", None, None, frozenset({("on", "apple_1", "kitchen_table")}),
                      frozenset(), frozenset(hh.room_containers["kitchen"]), frozenset(kitchen_surfaces))
    b.update(obs)
    assert b.row("apple_1") == {"kitchen_table": 1.0}
    row2 = b.row("apple_2")
    assert not set(row2) & set(kitchen_surfaces)          # seen without apple_2: zero
    assert row2["fridge"] == pytest.approx(0.6 / (0.6 + 1e-3 * (len(hh.furniture) - len(kitchen_surfaces) - 1)))
    assert sum(row2.values()) == pytest.approx(1.0)
    # opening the fridge shows it empty: apple_2's mass moves to the places not seen yet
    opened = Observation("kitchen", "fridge", None, frozenset({("on", "apple_1", "kitchen_table")}),
                         frozenset({"fridge"}), frozenset(hh.room_containers["kitchen"]) - {"fridge"},
                         frozenset(kitchen_surfaces | {"fridge"}))
    b.update(opened)
    assert "fridge" not in b.row("apple_2") and b.opened == {"fridge"}
    assert set(b.row("apple_2")) == {f for f in hh.furniture if f not in kitchen_surfaces and f != "fridge"}
    # samples follow the belief: apple_1 always on the table, apple_2 never in a seen place
    samples = b.sample_placements(np.random.default_rng(0), 200)
    i1, i2 = hh.index["apple_1"], hh.index["apple_2"]
    assert {p[i1] for p in samples} == {"kitchen_table"}
    assert not {p[i2] for p in samples} & (set(kitchen_surfaces) | {"fridge"})


def test_room_floor_keeps_the_answers_and_searches_their_rooms_first(hh):
    """room_floor_weight (config/llm_mcts.yaml): the places the answers named keep App.
    C.2's probabilities, the floor keeps its total, and once the named places are seen empty the
    object is looked for in their room before the rest of the apartment."""
    table = {"apple": {"fridge": 0.5, "kitchen_table": 0.5}}
    named = {"apple": ["fridge", "kitchen_table"]}
    even = Belief.from_prior(hh, table, floor=1e-3)
    by_room = Belief.from_prior(hh, table, floor=1e-3, named=named, room_floor_weight=20.0)
    assert np.array_equal(Belief.from_prior(hh, table, named=named, room_floor_weight=0.0).probs, even.probs)
    e, r = even.row("apple_1"), by_room.row("apple_1")
    assert r["fridge"] == pytest.approx(e["fridge"]) and r["kitchen_table"] == pytest.approx(e["kitchen_table"])
    kitchen = [f for f in hh.furniture if hh.furniture_room[f] == "kitchen" and f not in table["apple"]]
    elsewhere = [f for f in hh.furniture if hh.furniture_room[f] != "kitchen"]
    assert kitchen and elsewhere
    assert r[kitchen[0]] == pytest.approx(21 * r[elsewhere[0]])  # 1 + k * (all the named mass in the kitchen)
    # the fridge and the table seen without it: the kitchen's other places hold most of the belief
    by_room.probs[:, [by_room.col["fridge"], by_room.col["kitchen_table"]]] = 0.0
    even.probs[:, [even.col["fridge"], even.col["kitchen_table"]]] = 0.0
    share = lambda b: sum(b.probs[hh.index["apple_1"], b.col[f]] for f in kitchen) / b.probs[hh.index["apple_1"]].sum()  # noqa: E731
    assert share(even) == pytest.approx(len(kitchen) / (len(kitchen) + len(elsewhere)))
    assert share(by_room) > 0.75
    # a type the model said nothing about stays uniform
    assert by_room.row("book_1")["bed"] == pytest.approx(1.0 / len(hh.furniture))
    with pytest.raises(ConfigError, match="room_floor_weight must be a number >= 0"):
        load_config({"room_floor_weight": -1})


def test_held_object_and_lost_support(hh):
    s = holding_apple_at_open_fridge(hh)
    b = Belief.from_prior(hh, {"apple": {"fridge": 1}})
    b.update(hh.observe(s))
    assert b.holding == "apple_1"
    assert all(p[hh.index["apple_1"]] is None for p in b.sample_placements(np.random.default_rng(1), 5))
    goal = (GoalItem("inside", "apple", "fridge", 2),)
    assert b.goal_support_problem(goal) == ""
    b.probs[hh.index["apple_2"], :] = 0.0  # every place it could be was seen without it
    assert b.unsupported(["apple_1", "apple_2"]) == ["apple_2"]
    assert "no support for 'apple'" in b.goal_support_problem(goal)


# ----------------------------------------------------------------------- bad input
def test_config_defaults_and_unknown_keys():
    cfg = load_config()
    assert (cfg["simulations"], cfg["c"], cfg["gamma"], cfg["max_depth"]) == (100, 6.0, 0.95, 20)
    assert (cfg["final_action"], cfg["rollout_greed"]) == ("visits", 0.8)  # config/llm_mcts.yaml departs from the paper here
    with pytest.raises(ConfigError, match="unknown LLM-MCTS configuration key 'simulation'"):
        load_config({"simulation": 5})
    with pytest.raises(ConfigError, match="gamma"):
        create("llm_mcts", gamma=1.5)


def test_every_method_is_created_without_parameters():
    for name in ("llm_mcts", "uct", "l_policy", "no_heuristic_policy", "uniform_prior", "fully_observable"):
        planner = create(name)
        assert planner.needs_full_state == (name == "fully_observable")
        assert name in planner.describe()


def unsolved_state(hh, goal):
    """A start state of the apartment in which the goal does not hold yet."""
    return next(s for s in map(hh.sample_initial_state, range(50)) if not hh.satisfied(s, goal))


def _episode(hh, planner, goal, max_steps=30):
    world = SymbolicWorld(hh, unsolved_state(hh, APPLE_IN_FRIDGE))
    return run_episode(HouseholdDomain, planner, Task("test directive", goal, hh, max_steps), world)


def test_bad_input_is_said_at_once(hh):
    result = _episode(hh, create("uct"), (GoalItem("inside", "pizza", "fridge", 1),))
    assert not result.success and not result.steps and "cannot be achieved" in result.message
    assert "no object 'pizza'" in result.message
    result = _episode(hh, create("uct", simulations=0), APPLE_IN_FRIDGE)
    assert not result.success and not result.steps and "zero search budget" in result.message

    planner = create("uct")
    planner.start(Task("t", APPLE_IN_FRIDGE, hh), hh.observe(unsolved_state(hh, APPLE_IN_FRIDGE)))
    for obj in ("apple_1", "apple_2"):
        planner.belief.probs[hh.index[obj], :] = 0.0
    decision = planner.decide(planner.observations[-1])
    assert decision.action is None and "no support for 'apple'" in decision.message


def test_llm_error_mid_search_names_the_step(hh, monkeypatch):
    import llm_planner.methods.llm_mcts.planner as module

    monkeypatch.setattr(module, "warm_up_actions", lambda runtime, household, goal: None)  # no embeddings needed
    planner = create("uniform_prior", simulations=40)
    calls = {"n": 0}

    def failing_policy(history, past, observation, actions):
        calls["n"] += 1
        if len(history) >= 1 and calls["n"] > 3:
            raise LLMError("server answered 500 three times")
        return [1.0 / len(actions)] * len(actions)

    planner._policy_fn = failing_policy
    state = unsolved_state(hh, APPLE_IN_FRIDGE)
    result = run_episode(HouseholdDomain, planner, Task("put an apple in the fridge", APPLE_IN_FRIDGE, hh),
                         SymbolicWorld(hh, state))
    assert not result.success
    assert "LLM error at step" in result.message and "during simulation" in result.message
    assert "server answered 500" in result.message
    assert len(result.steps) < 30


# ------------------------------------------------------------------- real episodes
def test_llm_mcts_solves_a_simple_task_with_the_offline_backend(hh):
    task = generate_tasks(hh.scene, "simple", 1, 0)[0]
    planner = create("llm_mcts", llm_config={"offline": {"dataset_n": 40}})
    world = SymbolicWorld(hh, hh.sample_initial_state(task.placement_seed))
    result = run_episode(HouseholdDomain, planner, Task(task.instruction, task.goal, hh), world)
    assert result.success, result.message
    assert hh.satisfied(world.state, task.goal)
    stats = planner.episode_stats()
    assert stats.search.simulations == stats.simulations == 100 * stats.decisions
    # pi is kept per node: far fewer questions than line-28 visits
    assert 0 < stats.search.policy_queries < stats.search.policy_visits / 2
    assert stats.decision_llm_requests <= stats.search.policy_queries


def test_bench_household_runs_and_writes_the_design_json(tmp_path, capsys):
    from llm_planner.cli import main

    out = tmp_path / "hh.json"
    code = main(["bench", "household", "--methods", "uct,no_heuristic_policy:history_key=action", "--suites", "simple",
                 "--episodes", "1", "--seeds", "2", "--simulations", "20", "--workers", "1", "--no-progress",
                 "--llm-set", "offline.dataset_n=40", "--json", str(out)])
    assert code == 0
    printed = capsys.readouterr().out
    assert "Success rate (%)" in printed and "uct" in printed and "backend offline" in printed
    data = json.loads(out.read_text())
    assert data["benchmark"] == "household" and data["backend"] == "offline"
    assert {r["method"] for r in data["rows"]} == {"uct", "no_heuristic_policy[history_key=action]"}
    for row in data["rows"]:
        assert row["episodes"] == 2 and 0.0 <= row["success_rate"] <= 1.0 and "seconds_per_decision" in row
    assert len(data["episodes"]) == 4 and all("success" in e and not e.get("error") for e in data["episodes"])
    streamed = [json.loads(line) for line in (tmp_path / "hh.episodes.jsonl").read_text().splitlines()]
    key = lambda e: (e["method"], e["seed"], e["index"])  # noqa: E731 - the order episodes ended in
    assert sorted(map(key, streamed)) == sorted(map(key, data["episodes"]))  # each as it ended
    assert all(e["decision_seconds"] and len(e["decision_seconds"]) == e["decisions"] for e in streamed)
    assert "median_seconds_per_decision" in data["rows"][0]


@pytest.mark.slow
def test_bench_household_latency_table_against_served_models(tmp_path, capsys):
    """--latencies starts one llm-planner serve per latency and runs the methods side by side against
    each (answer caches of their own); the latency table compares them."""
    from llm_planner.cli import main

    out = tmp_path / "latency.json"
    code = main(["bench", "household", "--latencies", "0,0.05", "--methods", "llm_mcts:max_in_flight=1,llm_mcts",
                 "--suites", "simple", "--episodes", "1", "--seeds", "1", "--simulations", "15", "--workers", "1",
                 "--no-progress", "--json", str(out)])
    assert code == 0
    printed = capsys.readouterr().out
    assert "LLM-MCTS against a served model" in printed and "concurrent (8 in flight)" in printed
    assert "0.05 s: llm_mcts takes" in printed and "success difference (points): simple" in printed
    data = json.loads(out.read_text())
    assert data["backend"] == "openai" and data["config"]["latencies"] == [0.0, 0.05]
    assert {(r["method_base"], r["latency_s"]) for r in data["rows"]} == {
        (m, x) for m in ("llm_mcts[max_in_flight=1]", "llm_mcts") for x in (0.0, 0.05)}
    episodes = data["episodes"]
    assert len(episodes) == 4 and not any(e.get("error") for e in episodes)
    assert all(e["llm_requests"] > 0 for e in episodes)  # every method paid for its own answers
    by_method = {e["method"]: e for e in episodes}
    assert by_method["llm_mcts @0.05s"]["waves"] > 0 and by_method["llm_mcts[max_in_flight=1] @0.05s"]["waves"] == 0


def test_bench_household_profile_names_the_search(tmp_path, capsys):
    from llm_planner.cli import main

    stats = tmp_path / "search.prof"
    assert main(["bench", "household", "--methods", "uct", "--suites", "simple", "--episodes", "1", "--seeds", "1",
                 "--simulations", "20", "--no-progress", "--profile", str(stats)]) == 0
    printed = capsys.readouterr().out
    assert "profile (this process" in printed and "legal_actions" in printed and "rollout" in printed
    assert stats.is_file()


def test_bench_household_latencies_are_checked_before_anything_starts(capsys):
    from llm_planner.cli import main

    base = ["bench", "household", "--methods", "llm_mcts", "--suites", "simple", "--episodes", "1", "--seeds", "1"]
    for bad, message in ((["--latencies", "0.5,fast"], "give seconds per request"),
                         (["--latencies", "0.5,0.5"], "distinct non-negative"),
                         (["--latencies", "0.5", "--serve-latency", "0.2"], "exclude each other")):
        assert main([*base, *bad]) == 1
        assert message in capsys.readouterr().err


def test_root_samples_are_worlds_where_the_goal_does_not_hold_yet(hh):
    """A prior that puts the object where the task wants it (its usual place) makes most
    raw samples finished worlds, in which any put 'reaches the goal'. The root samples are
    conditioned on the unfinished goal, and the search never sees such a world."""
    goal = (GoalItem("inside", "milk", "fridge", 1),)
    belief = Belief.from_prior(hh, {"milk": {"fridge": 99, "kitchen_table": 1}})
    raw = belief.sample_placements(np.random.default_rng(0), 200)
    i = hh.index["milk_1"]
    assert sum(p[i] == "fridge" for p in raw) > 150
    m = LLMMCTS(hh, goal, SearchConfig(simulations=200, root_redraws=8), seed=0)
    m._stats = SearchStats()
    roots = m._root_placements(belief, 200)
    assert not any(m.goal_test(p) for p in roots) and m._stats.root_repairs > 0
    places = [p[i] for p in roots]  # the row without the fridge: the table 0.01, 15 others 0.001 each
    assert "fridge" not in places and max(set(places), key=places.count) == "kitchen_table"
    assert 0.3 < places.count("kitchen_table") / len(places) < 0.6
    # an instance seen at its destination stays there: the belief allows no other place for it
    seen = Belief.point(hh, hh.initial_state({o: "fridge" if o == "milk_1" else f
                                              for o, f in hh.scene.sample_placement(0).items()}))
    assert seen.unfinished(seen.sample_placements(np.random.default_rng(1), 1)[0], goal,
                           np.random.default_rng(1)) is None


def test_the_search_offers_only_the_goal_objects_to_walk_to_and_grab(hh):
    s = holding_apple_at_open_fridge(hh)
    s = hh.transition(s, Action("putin", ("apple_1", "fridge")))  # one apple in, near the open fridge
    m = LLMMCTS(hh, (GoalItem("inside", "apple", "fridge", 2),), SearchConfig(simulations=30), seed=0)
    objects = {a.args[0] for a in hh.legal_actions(s, m.movable) if a.verb in ("grab", "walk") and a.args[0] in hh.index}
    everything = {a.args[0] for a in hh.legal_actions(s) if a.verb in ("grab", "walk") and a.args[0] in hh.index}
    assert objects and {hh.object_type[o] for o in objects} == {"apple"} and len(everything) > len(objects)
    result = m.search([], hh.observe(s), Belief.point(hh, s))
    for node in _walk(result.root):
        assert all(hh.object_type[a.args[0]] == "apple" for a in node.actions if a.verb == "grab"), node.actions


def test_goal_directed_rollout_steps_reach_the_goal_in_the_sampled_world(hh):
    """rollout_greed: POMCP's preferred actions carry the goal's objects to their destinations in
    the sampled state (walk to the room, to the furniture, open, grab or put), always admissible."""
    goal = (GoalItem("inside", "apple", "fridge", 2), GoalItem("on", "book", "sofa", 1))
    state = next(s for s in map(hh.sample_initial_state, range(50)) if not hh.satisfied(s, goal))
    m = LLMMCTS(hh, goal, SearchConfig(rollout_greed=1.0), seed=0)
    steps = 0
    while not hh.satisfied(state, goal):
        action = m._preferred(state)
        assert action is not None and hh.why_not(state, action) is None, (action, state)
        state = hh.transition(state, action)
        steps += 1
        assert steps < 40
    assert m._preferred(state) is None  # nothing left to do
    assert m.rollout(hh.sample_initial_state(0), 0) > 0 or hh.satisfied(hh.sample_initial_state(0), goal)
    with pytest.raises(ConfigError, match="rollout_greed"):
        SearchConfig(rollout_greed=1.5)


# ------------------------------------------- reliability, anytime search (a weak, slow model)
def _peaked_wrong_policy(history, past, observation, actions):
    """A confident pi on one action, the one a model that misreads the scene would vote for."""
    probs = [0.01] * len(actions)
    probs[-1] = 1.0
    return [p / sum(probs) for p in probs]


def _tree(result):
    return [(node.n, tuple(node.na), tuple(round(q, 12) for q in node.q)) for node in _walk(result.root)]


def test_trusted_mixes_pi_with_uniform_by_reliability():
    from llm_planner.methods.llm_mcts.tree import trusted

    pi = [0.7, 0.2, 0.1]
    assert trusted(pi, 1.0) is pi
    assert trusted(pi, 0.0) == [pytest.approx(1 / 3)] * 3
    assert trusted(pi, 0.5) == [pytest.approx(0.5 * p + 0.5 / 3) for p in pi]
    assert sum(trusted(pi, 0.3)) == pytest.approx(1.0)


def test_trusted_scores_run_from_ucb1_at_reliability_0_to_puct_at_1():
    from llm_planner.methods.llm_mcts.tree import trusted_scores

    q, pi, na = [1.0, 2.0, 0.5], [0.6, 0.3, 0.1], [10, 4, 2]
    assert trusted_scores(q, pi, 16, na, 6.0, 1.0) == puct_scores(q, pi, 16, na, 6.0)
    assert trusted_scores(q, pi, 16, na, 6.0, 0.0) == uct_scores(q, 16, na, 6.0)
    half = trusted_scores(q, pi, 16, na, 6.0, 0.5)
    assert half == pytest.approx([(a + b) / 2 for a, b in zip(puct_scores(q, pi, 16, na, 6.0),
                                                             uct_scores(q, 16, na, 6.0), strict=True)])


def test_a_pi_that_says_nothing_is_searched_as_uct(hh):
    """PUCT with the uniform pi (no model, an answer none of whose samples read, a provisional pi)
    selects as UCB1 does: the same tree as the UCT baseline's selection for the same seed."""
    _, puct = _search(hh, policy=None)
    _, ucb1 = _search(hh, policy=None, selection="uct")
    assert _tree(puct) == _tree(ucb1) and puct.action == ucb1.action


def test_a_model_that_never_reads_searches_as_no_model(hh):
    """Reliability 0 (no sample of the model ever read) leaves line 29 with UCB1: the tree and the
    choice are those of the search without a model for the same seed, whatever pi the model's
    answers gave; trusted fully, the same answers grow another tree."""
    _, no_model = _search(hh, policy=None)
    goal, obs, belief = _comp_root(hh)
    never = LLMMCTS(hh, goal, SearchConfig(simulations=150), _peaked_wrong_policy, seed=11, trust=lambda: 0.0)
    result = never.search([], obs, belief)
    assert result.action == no_model.action and _tree(result) == _tree(no_model)
    _, trusting = _search(hh, policy=_peaked_wrong_policy)
    assert _tree(trusting) != _tree(no_model)
    half = LLMMCTS(hh, goal, SearchConfig(simulations=150), _peaked_wrong_policy, seed=11, trust=lambda: 0.5)
    assert _tree(half.search([], obs, belief)) not in (_tree(no_model), _tree(trusting))


def _slow(policy, seconds):
    def answer(*args):
        time.sleep(seconds)
        return policy(*args)
    return answer


@pytest.mark.parametrize("in_flight", [1, 4])
def test_anytime_grows_the_tree_past_the_time_budget_and_takes_late_answers(hh, in_flight):
    """Past decision_time_s the rollout bound leaves a one-level tree; anytime gives the nodes a
    provisional uniform pi, the root too (its question takes longer than root_wait_share of the
    budget), so the tree grows as deep as the search without a model, and the answers that come
    later replace the provisional pi (here at the next decision, on the kept subtree)."""
    policy = _slow(_fixed_policy, 0.15)
    _, no_model = _search(hh, policy=None, expand_after=2)
    config = dict(max_in_flight=in_flight, decision_time_s=0.1, expand_after=2, reuse_tree=True)
    _, rollout = _search(hh, policy, **config)
    m, anytime = _search(hh, policy, anytime=True, **config)
    assert rollout.stats.out_of_time == anytime.stats.out_of_time == 1
    assert rollout.stats.max_depth == 1 and rollout.stats.provisional == 0
    assert anytime.stats.max_depth >= no_model.stats.max_depth > 1
    provisional = [node for node in _walk(anytime.root) if node.provisional]  # those not answered during the search
    assert anytime.stats.provisional > 0 and anytime.stats.root_provisional == 1
    assert rollout.stats.root_provisional == 0  # without anytime the root's question is waited for
    given = anytime.stats.provisional + anytime.stats.root_provisional
    assert len(provisional) == given - anytime.stats.late_answers
    assert 0 < anytime.stats.late_questions <= given
    assert all(node.pi == [pytest.approx(1 / len(node.actions))] * len(node.actions) for node in provisional)
    time.sleep(0.15 * (anytime.stats.late_questions + 2))  # the late questions end (at most in_flight at once)
    i = anytime.root.actions.index(anytime.action)
    (_, next_obs), child = max(((k, c) for k, c in anytime.root.children.items() if k[0] == i),
                               key=lambda kv: kv[1].n)
    m.advance(anytime.action, next_obs)
    goal, obs, belief = _comp_root(hh)
    belief.update(next_obs)
    later = m.search([anytime.action], next_obs, belief, past=[obs])
    assert later.root is child and anytime.stats.late_answers + later.stats.late_answers > 0
    answered = [node for node in provisional if not node.provisional]
    assert all(node.pi != [1 / len(node.actions)] * len(node.actions) for node in answered
                            if len(set(_fixed_policy((), (), obs, node.actions))) > 1)
    m.close()
    with pytest.raises(ConfigError, match="root_wait_share"):
        SearchConfig(root_wait_share=1.5)


def test_a_late_question_that_fails_leaves_the_uniform_pi(hh):
    calls = []

    def failing(*args):
        calls.append(1)
        if len(calls) > 1:
            raise LLMError("HTTP 500 three times")
        time.sleep(0.15)
        return _fixed_policy(*args)

    # the root's question (0.15 s) is answered within its bound (0.25 s); the next would end past it
    m, result = _search(hh, failing, decision_time_s=0.25, root_wait_share=1.0, expand_after=2, anytime=True,
                        reuse_tree=True)
    assert result.stats.provisional > 0 and result.stats.late_questions > 0 and result.stats.root_provisional == 0
    deadline = time.monotonic() + 10
    late = m.scheduler.late
    assert late is not None
    while late._pending and time.monotonic() < deadline:
        time.sleep(0.05)
        late.harvest()
    assert late.counts.failed > 0 and late.counts.answered == 0
    assert all(node.provisional for node in _walk(result.root) if node.pi and node is not result.root
               and node.pi == [1 / len(node.actions)] * len(node.actions))
    m.close()


def test_the_prior_is_trusted_by_the_share_of_its_samples_that_read(hh):
    from llm_planner.methods.llm_mcts.prior import PriorBelief

    table = {"apple": {"fridge": 3, "kitchen_table": 1}}
    full = Belief.from_prior(hh, table).row("apple_1")
    assert Belief.from_prior(hh, table, trust={"apple": 1.0}).row("apple_1") == full
    none = Belief.from_prior(hh, table, trust={"apple": 0.0}).row("apple_1")
    assert list(none.values()) == pytest.approx([1 / len(hh.furniture)] * len(hh.furniture))
    half = Belief.from_prior(hh, table, trust={"apple": 0.5}).row("apple_1")
    assert half["fridge"] == pytest.approx(0.5 * full["fridge"] + 0.5 / len(hh.furniture))
    prior = PriorBelief("s", "f", "openai", "m", 5, 1e-3, ("fridge",), {"fridge": "inside"}, {"fridge": "kitchen"},
                        {"apple": (1.0,), "plate": (1.0,)}, {"apple": {"fridge": 2}, "plate": {}},
                        read={"apple": (2, 5), "plate": (0, 5)})
    assert prior.reliability() == 0.2 and prior.reliability("apple") == 0.4 and prior.reliability("plate") == 0.0
    old = PriorBelief.from_dict({**prior.to_dict(), "read": None})  # a file written before the count was kept
    assert old.reliability("apple") == 1.0 and old.reliability("plate") == 0.0
    assert PriorBelief.from_dict(prior.to_dict()).read == prior.read


def test_the_switches_are_validated():
    with pytest.raises(ConfigError, match="anytime"):
        SearchConfig(anytime="yes")
    with pytest.raises(ConfigError, match="reliability_mix"):
        load_config(reliability_mix="sometimes")
    cfg = load_config()
    assert cfg["anytime"] is True and cfg["reliability_mix"] is True


def _answer_times_of(latencies: list[float]):
    """The policy's answer times at a server whose last questions took ``latencies`` seconds."""
    from llm_planner.llm.waits import AnswerTimes, WaitSettings

    times = AnswerTimes(WaitSettings(), "http://127.0.0.1:1/v1", "policy")
    for seconds in latencies:
        ticket = times.send()
        ticket.sent -= seconds
        times.land(ticket)
    return times


@pytest.mark.parametrize(("latency", "running", "waited"), [
    (0.5, 0.2, True),    # a served model answering in 0.5 s: behind a late question about 0.8 s, within 5 s
    (8.0, 2.0, False),   # SmolLM2-like: 6 s left of the late question + 8 s for the root's, after 5 s
    (None, 6.0, False),  # nothing measured: the running question did not come within its wait
    (None, 0.2, False),  # the same after a short wait (the root's wait counts from the search's start)
])
def test_a_root_question_waits_behind_a_late_one_only_when_a_serial_server_answers_it_in_time(latency, running, waited):
    """The root's question is not waited for behind the search's own late question only when it would
    come after the root's wait (decision_time_s 10, root_wait_share 0.5: 5 s) at a server answering
    one question after another; a fast server is asked at once."""
    from concurrent.futures import Future

    from llm_planner.methods.llm_mcts.scheduler import Scheduler

    config = SearchConfig(decision_time_s=10.0, root_wait_share=0.5, late_questions=1, anytime=True)
    scheduler = Scheduler(config, lambda *_: [1.0], answer_clock=_answer_times_of([] if latency is None else [latency] * 4))
    scheduler.begin(SearchStats())
    question: Future = Future()
    question.set_running_or_notify_cancel()  # at the server, not answered
    scheduler.late.adopt(Node([]), question, sent=time.monotonic() - running)
    assert scheduler.late.full()
    why = scheduler._late_full()
    assert (why == "") is waited, why
    assert waited or "earlier question(s) still run at the server" in why


# ------------------------------------------------------------------------------ state goals
TV_ON = (state_goal("on", "tv"),)


def _living_room_start(hh: Household, tv_on: bool) -> State:
    s = hh.initial_state(hh.scene.sample_placement(0), room="bedroom",
                         switched_on=frozenset({"tv"} if tv_on else ()))
    return s


def test_the_belief_remembers_switches_and_draws_only_unseen_goal_things(hh):
    belief = Belief.uniform(hh)
    rng = np.random.default_rng(0)
    draws = belief.sample_switched_on(rng, 400, ("tv",))
    assert 150 < sum("tv" in on for on in draws) < 250  # unseen: on with p = 0.5
    before = rng.bit_generator.state
    assert belief.sample_switched_on(rng, 5, ()) == [frozenset()] * 5
    assert rng.bit_generator.state == before  # nothing unseen asked: no number drawn
    living = hh.observe(hh.transition(_living_room_start(hh, True), Action("walk", ("living_room",))))
    assert "tv" in living.switched_on
    belief.update(living)
    assert belief.sample_switched_on(rng, 3, ("tv",)) == [frozenset({"tv"})] * 3
    assert rng.bit_generator.state == before
    assert belief.state_with(belief.sample_placements(rng, 1)[0]).switched_on == {"tv"}


def test_root_states_of_a_state_goal_never_hold_it(hh):
    m = LLMMCTS(hh, TV_ON, SearchConfig(simulations=50), seed=0)
    m._stats = SearchStats()
    states = m._root_states(Belief.uniform(hh), 100)  # the tv never seen: drawn, then conditioned
    assert not any(hh.satisfied(s, TV_ON) for s in states) and m._stats.root_repairs > 20


def test_the_search_switches_only_the_goals_things(hh):
    s = hh.transition(_living_room_start(hh, False), Action("walk", ("living_room",)))
    s = hh.transition(s, Action("walk", ("tv_stand",)))
    placement = LLMMCTS(hh, APPLE_IN_FRIDGE, SearchConfig(simulations=10), seed=0)
    assert not [a for a in placement.expand(s, hh.observe(s)).actions if a.verb.startswith("switch")]
    m = LLMMCTS(hh, TV_ON, SearchConfig(simulations=60), seed=0)
    assert Action("switchon", ("tv",)) in m.expand(s, hh.observe(s)).actions
    result = m.search([], hh.observe(s), Belief.point(hh, s))
    assert result.action == Action("switchon", ("tv",))
    assert m.G(s, result.action)[1]  # the reward's test is Household.satisfied


def test_a_placement_search_ignores_the_switches_it_sees(hh):
    """The observations of a placement goal's search tell no switch: the search from an observation
    showing the tv on is the one from the same observation without it (same numbers drawn)."""
    s = hh.transition(_living_room_start(hh, True), Action("walk", ("living_room",)))
    shown = hh.observe(s)
    hidden = dataclasses.replace(shown, switched_on=frozenset(), switched_off=frozenset())
    assert shown != hidden
    results = []
    for obs in (shown, hidden):
        belief = Belief.uniform(hh)
        belief.update(obs)
        m = LLMMCTS(hh, APPLE_IN_FRIDGE, SearchConfig(simulations=40), seed=3)
        r = m.search([], obs, belief)
        results.append((r.action, r.root.q, m.np_rng.bit_generator.state))
    assert results[0] == results[1]


@pytest.mark.parametrize("method", ["uct", "l_policy", "llm_mcts", "fully_observable"])
def test_methods_plan_state_goals(hh, method):
    goal = (state_goal("on", "tv"), GoalItem("on", "remote_control", "sofa", 1))
    start = next(s for s in map(hh.sample_initial_state, range(50))
                 if "tv" not in s.switched_on and not hh.satisfied(s, goal[1:]))
    planner = create(method, llm_config={"offline": {"dataset_n": 40}})
    world = SymbolicWorld(hh, start)
    result = run_episode(HouseholdDomain, planner, Task("turn on the tv and put a remote control on the sofa",
                                                        goal, hh), world)
    assert result.success, result.message
    assert hh.satisfied(world.state, goal) and "switchon(tv)" in result.plan
    if method != "uct":
        assert len(result.steps) <= 10, result.plan


@pytest.mark.parametrize("method", ["l_policy", "llm_mcts"])
def test_a_state_that_already_holds_costs_no_step(hh, method):
    goal = (state_goal("on", "tv"), GoalItem("on", "remote_control", "sofa", 1))
    start = next(s for s in map(hh.sample_initial_state, range(50)) if not hh.satisfied(s, goal[1:]))
    start = dataclasses.replace(start, switched_on=start.switched_on | {"tv"})
    world = SymbolicWorld(hh, start)
    result = run_episode(HouseholdDomain, create(method, llm_config={"offline": {"dataset_n": 40}}),
                         Task("", goal, hh), world)
    assert result.success and not [a for a in result.plan if a.startswith("switch")], result.plan
    done = SymbolicWorld(hh, hh.transition(start, Action("walk", ("living_room",))))
    assert run_episode(HouseholdDomain, create(method), Task("", TV_ON, hh), done).steps == []


def test_bench_household_lists_the_state_suites_and_refuses_unknown_ones(capsys):
    from llm_planner.cli import main

    assert main(["bench", "household", "--suites", "states,states_mixed", "--home", "seen,unseen", "--list-tasks",
                 "--episodes", "2", "--seeds", "1"]) == 0
    printed = capsys.readouterr().out
    for scene in ("apartment_seen", "apartment_unseen"):
        for task in (t for s in ("states", "states_mixed") for t in generate_tasks(scene, s, 2, 0)):
            assert task.instruction in printed
    assert main(["bench", "household", "--suites", "state"]) != 0
    assert "states_mixed" in capsys.readouterr().err
