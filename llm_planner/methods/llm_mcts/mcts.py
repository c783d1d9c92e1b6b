"""Algorithm 1 of LLM-MCTS (seed 000, §2.4) over the symbolic household model G
(``llm_planner.domains.household.world.symbolic.Household``), with states sampled from the belief.

SEARCH (lines 1-9) runs N simulations from root states s ~ b(s) (line 4) and returns
argmax_a Q(h, a) (line 8). SIMULATE (lines 19-36) walks the tree T in four steps, each a method
named as §2.4 names it: *selection* by PUCT with the LLM policy pi(a|h) (lines 28-29,
:meth:`LLMMCTS.select`), *expansion* of a history not in T (lines 23-25, :meth:`LLMMCTS.expand`),
its evaluation by a random *rollout* (line 26, ROLLOUT of lines 10-18, :meth:`LLMMCTS.rollout`),
and the *backup* of the discounted return along the path (lines 32-35, :meth:`LLMMCTS.backup`).

When pi(a|h) is asked, how many simulations run at once and what bounds a decision's questions is
the scheduler's (:mod:`~llm_planner.methods.llm_mcts.scheduler`). Each default of
``config/llm_mcts.yaml`` that departs from Algorithm 1 has a value that restores it
(``expand_after=1;reuse_tree=false;max_in_flight=1;final_action=q;rollout_greed=0;c=24`` is the
paper's search); docs/design.md ("LLM-MCTS: Algorithm 1 and the choices around it") gives each
choice and its source.
"""
from __future__ import annotations

import dataclasses
import random
import time
from collections.abc import Callable, Collection, Hashable, Sequence

import numpy as np

from llm_planner.domains.household.world.symbolic import (
    CLOSED,
    OFF,
    OPEN,
    SWITCHED_ON,
    Action,
    Goal,
    Household,
    Observation,
    State,
)
from llm_planner.methods.llm_mcts.scheduler import AnswerClock, Deferral, Reliability, Scheduler, with_virtual_loss
from llm_planner.methods.llm_mcts.tree import (
    Node,
    PlacementSampler,
    PolicyFn,
    RolloutPolicy,
    SearchConfig,
    SearchResult,
    SearchStats,
    argmax_ties,
    trusted_scores,
    uct_scores,
    uniform_rollout,
)

#: the action that makes a state item hold
STATE_VERBS = {OPEN: "open", CLOSED: "close", SWITCHED_ON: "switchon", OFF: "switchoff"}
SWITCH_RELATIONS = (SWITCHED_ON, OFF)

#: a pi whose largest and smallest probabilities differ by less than this is uniform: it says nothing
UNIFORM_TOLERANCE = 1e-12


#: the actions after which a placement goal may hold
PUTS = ("putin", "puton")
#: the actions after which a goal with state items may hold
CHANGES = ("putin", "puton", "open", "close", "switchon", "switchoff")


class GoalTest:
    """The goal check of G, compiled to object indices (cheap enough for the rollout loop).

    Calling it checks the placement items; :meth:`finishes` is the reward's test of Algorithm 1
    (``Household.satisfied``, state items included) after an action, asked only after the actions
    that can complete the goal."""

    def __init__(self, household: Household, goal: Goal) -> None:
        self.hh, self.goal = household, goal
        self.items = [(tuple(i for i, o in enumerate(household.objects) if household.object_type[o] == g.obj_type),
                       g.destination, g.count) for g in goal if not g.is_state]
        self.states = tuple(g for g in goal if g.is_state)
        self.verbs = CHANGES if self.states else PUTS

    def finishes(self, a: Action, s: State) -> bool:
        """The goal holds in ``s``, reached by ``a``."""
        if a.verb not in self.verbs:
            return False
        return self.hh.satisfied(s, self.goal) if self.states else self(s.placement)

    def __call__(self, placement: Sequence[str | None]) -> bool:
        for indices, dest, count in self.items:
            have = 0
            for i in indices:
                if placement[i] == dest:
                    have += 1
            if have < count:
                return False
        return True


class Simulation:
    """One run of SIMULATE from the root, which may pause at a node until its pi(a|h) is answered:
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

    ``policy`` None means pi uniform over the admissible actions (no LLM heuristic); when it is
    asked, and from how many threads, is the :class:`Scheduler`'s (``config.max_in_flight``,
    ``config.anytime``). ``trust`` (None: 1) gives the model's measured reliability in [0, 1], by
    which line 29 weighs PUCT's pi against UCB1 (:meth:`reliability`); ``answer_clock`` (how long the
    policy's questions take at its server) and ``reliability`` (its samples and the share that read)
    tell the scheduler which waits and questions pay. :meth:`advance` after each real step keeps
    the subtree of the next decision (``config.reuse_tree``); :meth:`close` ends the questions still
    running."""

    def __init__(self, household: Household, goal: Goal, config: SearchConfig, policy: PolicyFn | None = None,
                 seed: int = 0, rollout_policy: RolloutPolicy = uniform_rollout,
                 trust: Callable[[], float] | None = None, answer_clock: AnswerClock | None = None,
                 reliability: Reliability | None = None) -> None:
        self.hh = household
        self.goal = goal
        self.config = config
        self.trust = trust if config.selection == "puct" else None
        self.rollout_policy = rollout_policy
        self.rng = random.Random(seed)
        self.np_rng = np.random.default_rng(seed)
        self.goal_test = GoalTest(household, goal)
        self.movable = household.goal_objects(goal)  # the only objects walked to and grabbed
        self.switchables = household.goal_switchables(goal)  # the only things switched
        self.cut = config.depth_cut()
        self.scheduler = Scheduler(config, policy, answer_clock, reliability)
        self._stats = SearchStats()
        self.simulation = 0  # index of the running simulation (for error messages)
        self._root: Node | None = None  # the subtree kept for the next decision

    # ------------------------------------------------------------------ G
    def G(self, s: State, a: Action) -> tuple[State, bool]:
        """(s', done) of an action; inapplicable actions change nothing (lines 15 and 30)."""
        if self.hh.why_not(s, a) is not None:
            return s, False
        s2 = self.hh.transition(s, a)
        return s2, self.goal_test.finishes(a, s2)

    # ---------------------------------------------------------------- SEARCH
    def search(self, history: Sequence[Action], observation: Observation, belief: PlacementSampler,
               n: int | None = None, past: Sequence[Observation] = (),
               should_stop: Callable[[], bool] | None = None) -> SearchResult:
        """SEARCH(h, b, T, N), lines 1-9: N simulations from s ~ b(s); argmax_a Q(h, a).

        The root h: the real ``history`` (actions), the observations before each of them
        (``past``) and the current ``observation``; ``belief`` must agree with that observation.
        T is the subtree kept by :meth:`advance` when it ends in ``observation``, else empty.
        Returns the action (None when no action is admissible) with the root and the figures.

        Raises DecisionCanceled when ``should_stop`` (the closed loop's cancel) turns True while it
        searches (asked by the scheduler between simulations and while it waits for answers)."""
        n = self.config.simulations if n is None else n
        observation = seen_switches(observation, self.switchables)
        started = time.perf_counter()
        self._stats = stats = SearchStats()
        self.scheduler.begin(stats, should_stop)
        root = self._root if self._root is not None and self._root.obs == observation else None
        self._root = None
        if root is not None:
            stats.reused_nodes = self._count(root)
            self.scheduler.settle_root(root)
        states = self._root_states(belief, n)  # line 4
        if root is None and states:  # SIMULATE at h not in T (lines 23-26): the first simulation adds it
            self.simulation = 1
            root = self.expand(states[0], observation)
            self.rollout(states[0], 0)
            stats.simulations += 1
            states = states[1:]
        if root is not None and states:
            first = n - len(states) + 1
            simulations = (Simulation(k, root, s, tuple(history), tuple(past))
                           for k, s in enumerate(states, start=first))
            self.scheduler.run(simulations, self.simulate)
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
        self.scheduler.end()
        return SearchResult(root.actions[best] if root.actions else None, root, stats)

    def close(self) -> None:
        """The episode is over: questions still running are left to end within their timeouts."""
        self.scheduler.close()

    def advance(self, action: Action | None, observation: Observation | None) -> None:
        """The real step after a decision: keep the subtree under [action, observation] for the next
        SEARCH (POMCP's reuse) when ``reuse_tree`` is on and the search had simulated that
        observation; ``action`` None (the step failed, or a new episode) forgets the tree."""
        root, self._root = self._root, None
        if root is None or action is None or observation is None:
            return
        observation = seen_switches(observation, self.switchables)
        try:
            i = root.actions.index(action)
        except ValueError:
            return
        self._root = root.children.get((i, observation))

    def _root_states(self, belief: PlacementSampler, n: int) -> list[State]:
        """n states s ~ b(s) in which the goal does not hold yet: placements from
        :meth:`_root_placements`; for a goal naming switchable things, their on/off states from the
        belief (``Belief.sample_switched_on``), and a state in which the whole goal holds then gets
        one unseen goal thing whose item holds switched the other way (the episode runs, so the goal
        does not hold)."""
        placements = self._root_placements(belief, n)
        if not self.switchables:
            return [belief.state_with(p) for p in placements]
        ons = belief.sample_switched_on(self.np_rng, len(placements), self.switchables)
        return [self._unfinished_switches(belief.state_with(p, on), belief)
                for p, on in zip(placements, ons, strict=True)]

    def _unfinished_switches(self, s: State, belief: PlacementSampler) -> State:
        if not self.hh.satisfied(s, self.goal):
            return s
        seen = belief.switch_seen
        for item in self.goal_test.states:
            thing = item.obj_type
            if thing in self.switchables and thing not in seen:
                on = s.switched_on - {thing} if thing in s.switched_on else s.switched_on | {thing}
                self._stats.root_repairs += 1
                return State(s.room, s.near, s.holding, s.placement, s.opened, on)
        return s

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
        if not self.goal_test.items:  # a goal of states only: no placement to condition
            return out
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
        switchables, finishes = self.switchables, goal_test.finishes
        greed = self.config.rollout_greed
        steps = 0
        while d < self.cut:  # line 11: gamma^d < epsilon -> 0
            a = self._preferred(s) if greed and rng.random() < greed else None
            if a is None:
                actions = hh.legal_actions(s, movable, switchables)
                if not actions:
                    break
                a = pick(actions, rng)  # line 14
            s = hh.transition(s, a)  # line 15
            steps += 1
            d += 1
            if finishes(a, s):  # r on the step reaching the goal
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
            return self._state_step(s) if self.goal_test.states else None
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

    def _state_step(self, s: State) -> Action | None:
        """The goal-directed step for the first state item that does not hold in ``s``: walk to the
        thing (the container, or the furniture a switchable thing is switched at), then act."""
        hh = self.hh
        for item in self.goal_test.states:
            if hh.state_holds(s, item):
                continue
            thing = item.obj_type
            at = hh.switch_at[thing] if item.rel in SWITCH_RELATIONS else thing
            if s.near != at:
                return self._walk_towards(s, at)
            return Action(STATE_VERBS[item.rel], (thing,))
        return None

    def _walk_towards(self, s: State, furniture: str) -> Action:
        room = self.hh.furniture_room[furniture]
        return Action("walk", (furniture if room == s.room else room,))

    # ------------------------------------------------------------- SIMULATE
    def simulate(self, sim: Simulation) -> bool:
        """SIMULATE(s, h, done, d, T), lines 19-36, iteratively from where ``sim`` is: selection while
        h is in T and expanded, expansion and rollout of the leaf, backup of the path.

        Returns False when the simulation waits for pi(a|h) of a node (the scheduler calls it again
        once the question is answered), True when it has been backed up. Lines 20-26 for the
        successor h' run before descending: a done or cut h' returns r; a new h' is added to T and
        evaluated by ROLLOUT, and so is an h' visited fewer than ``expand_after`` times."""
        self.simulation = sim.index
        stats = self._stats
        cfg = self.config
        hh = self.hh
        by_obs = cfg.history_key == "observation"
        node, s, d = sim.node, sim.s, sim.d
        path = sim.path
        while True:
            pi = self.scheduler.policy_at(node, sim.history, sim.past, below_root=bool(path))  # line 28
            if pi is Deferral.WAIT:
                sim.node, sim.s, sim.d = node, s, d
                return False
            if pi is Deferral.ROLLOUT:  # not expanded in this decision: lines 23-26
                stats.rollout_visits += 1
                leaf = self.rollout(s, d)
                break
            stats.policy_visits += 1
            i = self.select(node, pi)  # line 29: PUCT (or UCB1 for the UCT baselines)
            a = node.actions[i]
            s2, done = self.G(s, a)  # line 30
            r = cfg.goal_reward if done else 0.0
            d2 = d + 1
            path.append((node, i, r))
            self.scheduler.enter(node, i)
            if done or d2 >= self.cut:  # lines 20-22 at h'
                if done:
                    stats.goal_hits += 1
                leaf = 0.0
                break
            o = seen_switches(hh.observe(s2), self.switchables) if by_obs else None
            key: Hashable = (i, o) if by_obs else i
            child = node.children.get(key)  # line 31: h' = PUSHBACK(h, [a*, o])
            if child is None:  # lines 23-26
                node.children[key] = self.expand(s2, o if o is not None else seen_switches(hh.observe(s2),
                                                                                           self.switchables))
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
        self.backup(path, leaf)
        stats.simulations += 1
        return True

    def select(self, node: Node, pi: Sequence[float]) -> int:
        """Selection, line 29: the action maximising PUCT (or UCB1 for the UCT baselines), ties broken
        as :func:`argmax_ties` says. Simulations in flight below the node count as visits with
        return 0 (:func:`~llm_planner.methods.llm_mcts.scheduler.with_virtual_loss`)."""
        c = self.config.c
        n_h, q, na = with_virtual_loss(node)
        r = self.reliability(node, pi) if self.config.selection == "puct" else 0.0
        if r <= 0.0:  # UCB1, its ties broken as without a model
            return argmax_ties(uct_scores(q, n_h, na, c), [0.0] * len(q), na, self.rng)
        return argmax_ties(trusted_scores(q, pi, n_h, na, c, r), pi, na, self.rng)

    def reliability(self, node: Node, pi: Sequence[float]) -> float:
        """How far line 29 trusts the node's pi (:func:`~llm_planner.methods.llm_mcts.tree.trusted_scores`):
        0 for a pi that says nothing, the provisional one of a node still waiting for its answer
        (``anytime``) or the uniform one of an answer none of whose samples read, which the node
        then searches as UCT does; otherwise the model's measured reliability (``trust``; 1 without)."""
        if node.provisional or not pi or (abs(pi[0] - pi[-1]) < UNIFORM_TOLERANCE  # cheap test first: hot path
                                           and max(pi) - min(pi) < UNIFORM_TOLERANCE):
            return 0.0
        return self.trust() if self.trust is not None else 1.0

    def expand(self, s: State, o: Observation) -> Node:
        """Expansion, lines 23-25: the node of T for a history h ending in observation ``o``, with
        N(h) = 0 and N(h, a) = Q(h, a) = 0 for every action a admissible in ``s``."""
        return Node(self.hh.legal_actions(s, self.movable, self.switchables), o)

    def backup(self, path: Sequence[tuple[Node, int, float]], leaf: float) -> None:
        """Backup, lines 32-34, from the leaf up: R = r + gamma R at each edge (h, a*) of ``path``
        (node, action index, reward), N(h, a*) += 1, N(h) += 1 and Q(h, a*) moved to the running
        mean of R; ``leaf`` is the return below the path's last edge (ROLLOUT's, or 0)."""
        gamma = self.config.gamma
        R = leaf
        for node, i, r in reversed(path):  # line 32
            R = r + gamma * R
            node.n += 1  # line 33
            node.na[i] += 1
            node.q[i] += (R - node.q[i]) / node.na[i]  # line 34
            self.scheduler.leave(node, i)

    def _count(self, node: Node) -> int:
        count, stack = 0, [node]
        while stack:
            n = stack.pop()
            count += 1
            stack.extend(n.children.values())
        return count



def seen_switches(observation: Observation, things: Collection[str]) -> Observation:
    """The observation with the on/off state of ``things`` only (a goal's switchable things): the
    search's histories end in observations that tell nothing a goal does not ask, so a sampled
    state's other switches (which the belief does not track) never make its observation differ
    from the real one."""
    on, off = observation.switched_on, observation.switched_off
    if not on and not off:
        return observation
    keep_on, keep_off = on.intersection(things), off.intersection(things)
    if keep_on == on and keep_off == off:
        return observation
    return dataclasses.replace(observation, switched_on=keep_on, switched_off=keep_off)
