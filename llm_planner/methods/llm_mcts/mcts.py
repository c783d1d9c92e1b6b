"""Algorithm 1 of LLM-MCTS (seed 000, §2.4): SEARCH, SIMULATE and ROLLOUT over the symbolic
household model G (``llm_planner.domains.household.world.symbolic.Household``), with states sampled
from the belief.

SEARCH runs N simulations from root states s ~ b(s) (line 4) and returns one action; SIMULATE
selects by PUCT with the LLM policy pi(a|h) (line 29), asked once per tree node (line 28); new
nodes are evaluated by ROLLOUT (lines 23-26). Each default of ``config/llm_mcts.yaml`` that departs
from Algorithm 1 has a value that restores it (``expand_after=1;reuse_tree=false;max_in_flight=1;
final_action=q;rollout_greed=0;c=24`` is the paper's search): concurrent questions with virtual
loss, bounded rounds of questions and decision time, a tree that grows on the uniform pi while a
slow model's answers are late (``anytime``, :mod:`~llm_planner.methods.llm_mcts.late_questions`),
pi mixed with the uniform distribution by the model's measured reliability, an expansion
threshold, the most visited action, goal-directed rollouts, the tree kept between decisions. The
design page (docs/design.md, "LLM-MCTS: Algorithm 1 and the choices around it") gives each choice,
its key and its source.
"""
from __future__ import annotations

import random
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import Future, ThreadPoolExecutor, wait

import numpy as np

from llm_planner.domains.household.world.symbolic import Action, Goal, Household, Observation, State
from llm_planner.methods.llm_mcts.late_questions import LateQuestions
from llm_planner.methods.llm_mcts.tree import (
    Node,
    PlacementSampler,
    PolicyFn,
    RolloutPolicy,
    SearchConfig,
    SearchResult,
    SearchStats,
    argmax_ties,
    puct_scores,
    trusted,
    uct_scores,
    uniform,
    uniform_rollout,
)


class GoalTest:
    """The goal check of G, compiled to object indices (cheap enough for the rollout loop)."""

    def __init__(self, household: Household, goal: Goal) -> None:
        self.items = [(tuple(i for i, o in enumerate(household.objects) if household.object_type[o] == g.obj_type),
                       g.destination, g.count) for g in goal]

    def __call__(self, placement: Sequence[str | None]) -> bool:
        for indices, dest, count in self.items:
            have = 0
            for i in indices:
                if placement[i] == dest:
                    have += 1
            if have < count:
                return False
        return True


class _Simulation:
    """One run of SIMULATE from the root that may wait for pi(a|h) at a node (concurrent search):
    where it is (node, state, depth, the history's actions and past observations) and the edges
    (node, action index, reward) it took, to back up once it ends."""

    __slots__ = ("index", "node", "s", "d", "history", "past", "path")

    def __init__(self, index: int, node: Node, s: State, history: tuple[Action, ...],
                 past: tuple[Observation, ...]) -> None:
        self.index = index
        self.node, self.s, self.d = node, s, 0
        self.history, self.past = history, past
        self.path: list[tuple[Node, int, float]] = []


class LLMMCTS:
    """Algorithm 1 for one episode: the generative model, the goal, pi and the random streams.

    ``policy`` None means pi uniform over the admissible actions (no LLM heuristic). The policy is
    called from ``config.max_in_flight`` threads at once when that is above 1 (and from the late
    questions' threads with ``config.anytime``), so it must be safe to call concurrently.
    ``trust`` (None: 1) gives the model's measured reliability in [0, 1], by which line 29 mixes pi
    with the uniform distribution. :meth:`advance` after each real step keeps the subtree of the next
    decision (``config.reuse_tree``); :meth:`close` ends the questions still running."""

    def __init__(self, household: Household, goal: Goal, config: SearchConfig, policy: PolicyFn | None = None,
                 seed: int = 0, rollout_policy: RolloutPolicy = uniform_rollout,
                 trust: Callable[[], float] | None = None) -> None:
        self.hh = household
        self.goal = goal
        self.config = config
        self.policy = policy
        self.trust = trust if config.selection == "puct" else None
        self.rollout_policy = rollout_policy
        self.rng = random.Random(seed)
        self.np_rng = np.random.default_rng(seed)
        self.goal_test = GoalTest(household, goal)
        self.movable = household.goal_objects(goal)  # the only objects walked to and grabbed
        self.cut = config.depth_cut()
        self._stats = SearchStats()
        self.simulation = 0  # index of the running simulation (for error messages)
        self._root: Node | None = None  # the subtree kept for the next decision
        self._pool: ThreadPoolExecutor | None = None  # questions in flight (concurrent search only)
        self._pending: dict[int, tuple[Node, Future]] = {}
        self._in_flight = 0
        self._in_flight_lock = threading.Lock()
        self._started = 0.0  # perf_counter at the start of the running SEARCH (decision_time_s)
        self._late = LateQuestions(config.late_questions) if config.anytime and policy is not None else None

    # ------------------------------------------------------------------ G
    def G(self, s: State, a: Action) -> tuple[State, bool]:
        """(s', done) of an action; inapplicable actions change nothing (lines 15 and 30)."""
        if self.hh.why_not(s, a) is not None:
            return s, False
        s2 = self.hh.transition(s, a)
        return s2, (a.verb in ("putin", "puton") and self.goal_test(s2.placement))

    # ---------------------------------------------------------------- SEARCH
    def search(self, history: Sequence[Action], observation: Observation, belief: PlacementSampler,
               n: int | None = None, past: Sequence[Observation] = ()) -> SearchResult:
        """SEARCH(h, b, T, N), lines 1-9: N simulations from s ~ b(s); argmax_a Q(h, a).

        The root h: the real ``history`` (actions), the observations before each of them
        (``past``) and the current ``observation``; ``belief`` must agree with that observation.
        T is the subtree kept by :meth:`advance` when it ends in ``observation``, else empty."""
        n = self.config.simulations if n is None else n
        self._started = started = time.perf_counter()
        self._stats = stats = SearchStats()
        root = self._root if self._root is not None and self._root.obs == observation else None
        self._root = None
        if root is not None:
            stats.reused_nodes = self._count(root)
            self._settle_root(root)
        placements = self._root_placements(belief, n)
        states = [belief.state_with(p) for p in placements]  # line 4
        if root is None and states:  # SIMULATE at h not in T (lines 23-26): the first simulation adds it
            self.simulation = 1
            root = Node(self.hh.legal_actions(states[0], self.movable), observation)
            self.rollout(states[0], 0)
            stats.simulations += 1
            states = states[1:]
        if root is not None and states:
            self._simulate_all(root, tuple(history), tuple(past), states, first_index=n - len(states) + 1)
        if root is None:
            return SearchResult(None, None, stats)
        if self.config.reuse_tree and self.config.history_key == "observation":
            self._root = root
        pi = root.pi or [1.0] * len(root.actions)
        if self.config.final_action == "q":
            best = argmax_ties(root.q, pi, root.na, self.rng)  # line 8: argmax_a Q(h, a)
        else:  # the most visited action (the authors' commented-out max_visit_action_node)
            best = argmax_ties([float(n) for n in root.na], root.q, pi, self.rng)
        stats.seconds = time.perf_counter() - started
        stats.nodes = self._count(root)
        self._count_late()
        return SearchResult(root.actions[best] if root.actions else None, root, stats)

    def close(self) -> None:
        """The episode is over: questions still running are left to end within their timeouts."""
        if self._late is not None:
            self._late.close()

    def _settle_root(self, root: Node) -> None:
        """A kept root whose pi is provisional gets its answer before the search (line 28 at the root
        is always answered): its late question is waited for, or, if none is running, asked anew."""
        if self._late is None:
            return
        self._late.harvest()
        if root.provisional:
            self._late.wait_for(root)
        if root.provisional:
            root.pi, root.provisional = None, False

    def _count_late(self) -> None:
        if self._late is None:
            return
        counts = self._late.take_counts()
        stats = self._stats
        stats.late_questions += counts.sent
        stats.late_answers += counts.answered
        stats.late_failures += counts.failed

    def advance(self, action: Action | None, observation: Observation | None) -> None:
        """The real step after a decision: keep the subtree under [action, observation] for the next
        SEARCH (POMCP's reuse) when ``reuse_tree`` is on and the search had simulated that
        observation; ``action`` None (the step failed, or a new episode) forgets the tree."""
        root, self._root = self._root, None
        if root is None or action is None or observation is None:
            return
        try:
            i = root.actions.index(action)
        except ValueError:
            return
        self._root = root.children.get((i, observation))

    def _root_placements(self, belief: PlacementSampler, n: int) -> list[tuple[str | None, ...]]:
        """n placements from b(s) conditioned on "the goal does not hold yet": those in which it
        holds are redrawn (``root_redraws`` batches: rejection sampling), and those that still hold
        are made unfinished by moving the instances of one goal item away from its destination
        (``Belief.unfinished``). A commonsense prior often puts an object where the task wants it
        (a training pair is where the apartment keeps the type), so most raw samples hold; in them any
        put "reaches the goal" and the search learns to put things back where they were."""
        if n <= 0:
            return []
        out = [p for p in belief.sample_placements(self.np_rng, n)]
        for _ in range(self.config.root_redraws):
            bad = [i for i, p in enumerate(out) if self.goal_test(p)]
            if not bad:
                break
            self._stats.root_redraws += len(bad)
            fresh = belief.sample_placements(self.np_rng, len(bad))
            for i, p in zip(bad, fresh, strict=True):
                out[i] = p
        for i, p in enumerate(out):
            if self.goal_test(p):
                fixed = belief.unfinished(p, self.goal, self.np_rng)
                if fixed is not None:
                    out[i] = fixed
                    self._stats.root_repairs += 1
        return out

    # -------------------------------------------------------------- ROLLOUT
    def rollout(self, s: State, d: int) -> float:
        """ROLLOUT(s, h, done, d), lines 10-18, unrolled: sum_j gamma^(d'-d) r_j until
        gamma^d' < epsilon (or max_depth) or the goal is reached. Uniform pi_rollout (line 14).

        The actions drawn are admissible in s by construction, so G needs no precondition check."""
        total = 0.0
        discount = 1.0
        gamma = self.config.gamma
        reward = self.config.goal_reward
        hh, goal_test, pick, rng, movable = self.hh, self.goal_test, self.rollout_policy, self.rng, self.movable
        greed = self.config.rollout_greed
        steps = 0
        while d < self.cut:  # line 11: gamma^d < epsilon -> 0
            a = self._preferred(s) if greed and rng.random() < greed else None
            if a is None:
                actions = hh.legal_actions(s, movable)
                if not actions:
                    break
                a = pick(actions, rng)  # line 14
            s = hh.transition(s, a)  # line 15
            steps += 1
            d += 1
            if a.verb in ("putin", "puton") and goal_test(s.placement):  # r on the step reaching the goal
                total += discount * reward
                self._stats.goal_hits += 1
                break
            discount *= gamma  # line 17: r + gamma * ROLLOUT(s', h', done, d + 1)
        self._stats.rollout_steps += steps
        return total

    def _preferred(self, s: State) -> Action | None:
        """The goal-directed rollout step in a sampled state (POMCP's "preferred actions", Silver
        and Veness 2010, §6): carry a held goal object to the destination of an unfinished item
        (walk to its room, to it, open it, put), else fetch an instance of an unfinished item from
        where this sample has it (walk, open, grab). None when the state offers none (uniform then)."""
        hh, placement = self.hh, s.placement
        open_items = [(indices, dest) for indices, dest, count in self.goal_test.items
                      if sum(1 for i in indices if placement[i] == dest) < count]
        if not open_items:
            return None
        if s.holding is not None:
            held = hh.index[s.holding]
            dest = next((d for indices, d in open_items if held in indices), None)
            if dest is None:
                return None
            if s.near != dest:
                return self._walk_towards(s, dest)
            if hh.is_container[dest] and dest not in s.opened:
                return Action("open", (dest,))
            return Action("putin" if hh.is_container[dest] else "puton", (s.holding, dest))
        indices, dest = open_items[0]
        todo = [(i, p) for i in indices if (p := placement[i]) != dest and p is not None]
        if not todo:
            return None
        here = [(i, p) for i, p in todo if p == s.near] or [(i, p) for i, p in todo if hh.furniture_room[p] == s.room]
        i, place = (here or todo)[0]
        if s.near != place:
            return self._walk_towards(s, place)
        if hh.is_container[place] and place not in s.opened:
            return Action("open", (place,))
        return Action("grab", (hh.objects[i],))

    def _walk_towards(self, s: State, furniture: str) -> Action:
        room = self.hh.furniture_room[furniture]
        return Action("walk", (furniture if room == s.room else room,))

    # ------------------------------------------------------------- SIMULATE
    def _simulate_all(self, root: Node, history: tuple[Action, ...], past: tuple[Observation, ...],
                      states: Sequence[State], first_index: int) -> None:
        """SIMULATE(s, h, False, 0, T) from the root for every state, up to ``max_in_flight`` at once.

        One at a time, each simulation runs to its end before the next starts (Algorithm 1). Else
        simulations start until ``max_in_flight`` of them wait for a question; then the search waits
        for every question of that wave and resumes the waiting simulations in start order."""
        concurrent = self.config.max_in_flight > 1 and self.policy is not None
        width = self.config.max_in_flight if concurrent else 1
        pool = ThreadPoolExecutor(max_workers=width, thread_name_prefix="llm-mcts-pi") if concurrent else None
        self._pool, self._pending = pool, {}
        stats = self._stats
        try:
            waiting: list[_Simulation] = []
            upcoming = iter(enumerate(states, start=first_index))
            more = True
            while True:
                while more and len(waiting) < width:
                    item = next(upcoming, None)
                    if item is None:
                        more = False
                        break
                    if self._late is not None:
                        self._late.harvest()  # answers that came while the search ran
                    sim = _Simulation(item[0], root, item[1], history, past)
                    self.simulation = sim.index
                    if self.simulate(sim):
                        stats.simulations += 1
                    else:
                        waiting.append(sim)
                if not waiting:
                    return
                self._answer_wave()
                resumed, waiting = waiting, []
                for sim in resumed:
                    self.simulation = sim.index
                    if self.simulate(sim):
                        stats.simulations += 1
                    else:
                        waiting.append(sim)
        finally:
            self._pool, self._pending = None, {}
            if pool is not None:
                pool.shutdown(wait=True, cancel_futures=True)

    def simulate(self, sim: _Simulation) -> bool:
        """SIMULATE(s, h, done, d, T), lines 19-36, iteratively from where ``sim`` is: descend by PUCT
        while h is in T and expanded, evaluate the leaf, back up the path (lines 32-34).

        Returns False when the simulation waits for pi(a|h) of a node (concurrent search only).
        Lines 20-26 for the successor h' run before descending: a done or cut h' returns r; a new
        h' is added to T and evaluated by ROLLOUT, and so is an h' visited fewer than
        ``expand_after`` times."""
        stats = self._stats
        cfg = self.config
        hh = self.hh
        by_obs = cfg.history_key == "observation"
        loss = self._pool is not None
        node, s, d = sim.node, sim.s, sim.d
        path = sim.path
        while True:
            pi = node.pi  # line 28: pi(a|h) <- QUERYLLMPOLICY(h), asked once per node
            bound = self._question_bound() if pi is None and path else ""
            if bound == "time" and self._late is not None:  # anytime: uniform pi now, the answer later
                pi = self._provisional(node, sim.history, sim.past)
            elif bound:  # not expanded in this decision: lines 23-26
                stats.rollout_visits += 1
                leaf = self.rollout(s, d)
                break
            elif node.provisional and self._late is not None:  # sent again if there was no room before
                self._late.send(node, self._late_question(node, sim.history, sim.past))
            if pi is None:
                pi = self._policy_at(node, sim.history, sim.past)
                if pi is None:  # asked; the simulation waits for the answer
                    sim.node, sim.s, sim.d = node, s, d
                    return False
            stats.policy_visits += 1
            i = self.select(node, pi)  # line 29: PUCT (or UCB1 for the UCT baselines)
            a = node.actions[i]
            s2, done = self.G(s, a)  # line 30
            r = cfg.goal_reward if done else 0.0
            d2 = d + 1
            path.append((node, i, r))
            if loss:
                _add_loss(node, i)
            if done or d2 >= self.cut:  # lines 20-22 at h'
                if done:
                    stats.goal_hits += 1
                leaf = 0.0
                break
            o = hh.observe(s2) if by_obs else None
            child = node.children.get((i, o) if by_obs else i)  # line 31: h' = PUSHBACK(h, [a*, o])
            if child is None:  # lines 23-26
                node.children[(i, o) if by_obs else i] = Node(hh.legal_actions(s2, self.movable),
                                                              o if by_obs else hh.observe(s2))
                stats.max_depth = max(stats.max_depth, d2)
                leaf = self.rollout(s2, d2)
                break
            if child.visits < cfg.expand_after:  # not expanded yet: evaluated by ROLLOUT again
                child.visits += 1
                stats.rollout_visits += 1
                leaf = self.rollout(s2, d2)
                break
            child.visits += 1
            sim.history += (a,)
            assert node.obs is not None  # a node the search added has the observation that ends h
            sim.past += (node.obs,)
            node, s, d = child, s2, d2
        gamma = cfg.gamma
        R = leaf
        for node, i, r in reversed(path):  # line 32, from the leaf up
            R = r + gamma * R
            node.n += 1  # line 33
            node.na[i] += 1
            node.q[i] += (R - node.q[i]) / node.na[i]  # line 34
            if loss:
                _remove_loss(node, i)
        return True

    def select(self, node: Node, pi: Sequence[float]) -> int:
        """Line 29: the action maximising PUCT (or UCB1), ties broken as :func:`argmax_ties` says.

        Simulations in flight below the node count as visits with return 0 (virtual loss)."""
        c = self.config.c
        if node.loss_n and node.loss is not None:  # (virtual losses in flight: the list exists)
            n_h = node.n + node.loss_n
            na = [n + v for n, v in zip(node.na, node.loss, strict=True)]
            q = [qj * nj / vj if vj else qj for qj, nj, vj in zip(node.q, node.na, na, strict=True)]
        else:
            n_h, q, na = node.n, node.q, node.na
        if self.trust is not None:
            pi = trusted(pi, self.trust())
        values = puct_scores(q, pi, n_h, na, c) if self.config.selection == "puct" else uct_scores(q, n_h, na, c)
        return argmax_ties(values, pi, na, self.rng)

    # --------------------------------------------------------------- pi(a|h)
    def _policy_at(self, node: Node, history: tuple[Action, ...], past: tuple[Observation, ...]) -> list[float] | None:
        """pi(a|h) of a node without one: uniform without a policy; asked at once in a sequential
        search; in a concurrent one sent (once per node) and None returned: the caller waits."""
        if self.policy is None or not node.actions or node.obs is None:
            node.pi = uniform(len(node.actions))
            return node.pi
        if self._pool is None:
            node.pi = self._query_policy(history, past, node.obs, node.actions)
            return node.pi
        if id(node) not in self._pending:
            self._stats.policy_queries += 1
            future = self._pool.submit(self._ask, history, past, node.obs, tuple(node.actions))
            self._pending[id(node)] = (node, future)
        return None

    def _question_bound(self) -> str:
        """Why nothing more is asked and waited for this decision ('' when a question may be): "waves"
        when a concurrent search has waited ``max_waves`` times, "time" when the next question (a
        wave, or one question in a sequential search) would, at the mean time the questions of this
        decision took, end after ``decision_time_s``."""
        stats = self._stats
        if self._pool is not None and 0 < self.config.max_waves <= stats.waves:
            return "waves"
        budget = self.config.decision_time_s
        if budget <= 0 or not stats.answered:
            return ""
        rounds = stats.waves if self._pool is not None else stats.answered
        if time.perf_counter() - self._started + stats.wait_seconds / max(1, rounds) <= budget:
            return ""
        stats.out_of_time = 1
        return "time"

    def _provisional(self, node: Node, history: tuple[Action, ...], past: tuple[Observation, ...]) -> list[float]:
        """The uniform pi for a node the decision's time cannot wait for, marked provisional; its
        question is sent to run on (``anytime``)."""
        assert self._late is not None
        node.pi = uniform(len(node.actions))
        node.provisional = True
        self._stats.provisional += 1
        if node.actions and node.obs is not None:
            self._late.send(node, self._late_question(node, history, past))
        return node.pi

    def _late_question(self, node: Node, history: tuple[Action, ...],
                       past: tuple[Observation, ...]) -> Callable[[], list[float]]:
        obs, actions = node.obs, tuple(node.actions)
        assert obs is not None

        def ask() -> list[float]:
            return self._ask(history, past, obs, actions)
        return ask

    def _answer_wave(self) -> None:
        """Wait for every question in flight (each is bounded by the backend's timeouts) and give
        the nodes their pi; the first error is raised once all have ended (no thread is left behind)."""
        started = time.perf_counter()
        pending, self._pending = list(self._pending.values()), {}
        wait([f for _, f in pending])
        self._stats.waves += 1
        self._stats.wait_seconds += time.perf_counter() - started
        self._stats.answered += len(pending)
        for node, future in pending:
            error = future.exception()
            if error is not None:
                raise error
            node.pi = future.result()

    def _query_policy(self, history: tuple[Action, ...], past: tuple[Observation, ...],
                      observation: Observation | None, actions: Sequence[Action]) -> list[float]:
        """QUERYLLMPOLICY(h) of line 28, once per node (the caller keeps the answer in the node)."""
        if self.policy is None or not actions or observation is None:
            return [1.0 / max(1, len(actions))] * len(actions)
        self._stats.policy_queries += 1
        started = time.perf_counter()
        try:
            answer = self._ask(history, past, observation, actions)
        finally:
            self._stats.wait_seconds += time.perf_counter() - started
        self._stats.answered += 1
        return answer

    def _ask(self, history: tuple[Action, ...], past: tuple[Observation, ...], observation: Observation,
             actions: Sequence[Action]) -> list[float]:
        """One question to the policy (from any thread), counted while in flight."""
        with self._in_flight_lock:
            self._in_flight += 1
            self._stats.peak_in_flight = max(self._stats.peak_in_flight, self._in_flight)
        try:
            assert self.policy is not None  # asked only with a policy (_query_policy, _policy_at)
            probs = [float(p) for p in self.policy(history, past, observation, actions)]
        finally:
            with self._in_flight_lock:
                self._in_flight -= 1
        if len(probs) != len(actions):
            raise ValueError(f"the policy returned {len(probs)} probabilities for {len(actions)} actions")
        return probs

    def _count(self, node: Node) -> int:
        count, stack = 0, [node]
        while stack:
            n = stack.pop()
            count += 1
            stack.extend(n.children.values())
        return count


def _add_loss(node: Node, i: int) -> None:
    """One simulation in flight through edge (h, a_i): a visit with return 0 until it is backed up."""
    if node.loss is None:
        node.loss = [0] * len(node.actions)
    node.loss[i] += 1
    node.loss_n += 1


def _remove_loss(node: Node, i: int) -> None:
    assert node.loss is not None  # _add_loss made it
    node.loss[i] -= 1
    node.loss_n -= 1
