"""Algorithm 1 of LLM-MCTS (seed 000, §2.4): SEARCH, SIMULATE and ROLLOUT over the symbolic
household model G (``llm_planner.world.symbolic.Household``), with states sampled from the belief.

Line numbers below are Algorithm 1's::

    SEARCH(h, b, T, N)                       lines 1-9
        n simulations, each from s ~ b(s) (line 4); return argmax_a Q(h, a) (line 8)
    ROLLOUT(s, h, done, d)                   lines 10-18
        0 if gamma^d < epsilon or done; a ~ pi_rollout (uniform); r + gamma * ROLLOUT(...)
    SIMULATE(s, h, done, d, T)               lines 19-36
        0 if gamma^d < epsilon or done (20-22); a new h is added to T with N, Q = 0 and
        evaluated by ROLLOUT (23-26); else pi(a|h) = QUERYLLMPOLICY(h) (28), PUCT selection
        a* = argmax Q(h,a) + c pi(a|h) sqrt(N(h)) / (N(h,a) + 1) (29), (s', o, r, done) ~ G(s, a*)
        (30), h' = h + [a*, o] (31), R = r + gamma * SIMULATE(s', h', ...) (32), N(h,a*) += 1,
        N(h) += 1 (33), incremental mean Q(h,a*) += (R - Q(h,a*)) / N(h,a*) (34), return R (35).

Choices the paper leaves open, and how they are made here (each says where it comes from):

* Histories ``h`` are the paper's action-observation sequences (line 31) by default
  (``history_key: observation``). The authors' released code keys tree nodes by the action
  sequence only (``state_id = ' '.join(history)``); ``history_key: action`` reproduces that. With
  action keys, an action a node took from one sampled state may not apply to another; G then
  leaves the state unchanged (the symbolic model's rule for inapplicable actions).
* pi(a|h) is asked once per tree node and kept in it (the authors' code computes
  ``children_probs`` when a node is built, at most once per node); :class:`SearchStats` counts
  both the line-28 visits and the nodes that asked. The policy itself may cache answers per prompt
  (``llm_planner.llm.policy.HeuristicPolicy`` does), so equal prompts cost one model question.
* Ties in the argmax of lines 8 and 29 go to the larger pi(a|h) (the authors' ``greedy_action_node``
  breaks ties by the child's prior probability), then the larger N(h, a), then a seeded draw.
* ``selection: uct`` replaces line 29 by UCB1 of the ``uct`` and ``no_heuristic_policy`` baselines,
  Q + c sqrt(ln(N(h) + 1) / (N(h,a) + 1)), as in the authors' code (``uct_type == 'UCT'``).
* The reward is ``goal_reward`` on the step that reaches the goal, 0 otherwise (§2.2: "a large
  positive reward"; 10 in the authors' ``check_progress``); reaching the goal ends the simulation.
* Root states are drawn from the belief conditioned on "the task is not finished yet" (the
  episode would have ended otherwise): sampled placements that already satisfy the goal are
  redrawn (a few batches at most); without this every action at the root would be rewarded in the
  sampled worlds where the goal already holds.
* The tree T starts empty at every decision, as in the authors' ``search`` (the root is rebuilt).
"""
from __future__ import annotations

import math
import random
import time
from dataclasses import dataclass, field
from typing import Callable, Hashable, Protocol, Sequence

import numpy as np

from llm_planner.errors import ConfigError
from llm_planner.world.symbolic import Action, Goal, Household, Observation, State

SELECTIONS = ("puct", "uct")
HISTORY_KEYS = ("observation", "action")
FINAL_ACTIONS = ("q", "visits")


@dataclass(frozen=True)
class SearchConfig:
    """Hyper-parameters of Algorithm 1 (defaults and their sources: ``config/llm_mcts.yaml``)."""

    simulations: int = 100
    c: float = 24.0
    gamma: float = 0.95
    epsilon: float = 0.36
    max_depth: int = 20
    goal_reward: float = 10.0
    selection: str = "puct"
    history_key: str = "observation"
    root_redraws: int = 8
    final_action: str = "q"

    def __post_init__(self) -> None:
        if not isinstance(self.simulations, int) or isinstance(self.simulations, bool) or self.simulations < 0:
            raise ConfigError(f"llm_mcts 'simulations' must be an integer >= 0, got {self.simulations!r}")
        if not 0.0 < self.gamma <= 1.0:
            raise ConfigError(f"llm_mcts 'gamma' must lie in (0, 1], got {self.gamma!r}")
        if not 0.0 <= self.epsilon < 1.0:
            raise ConfigError(f"llm_mcts 'epsilon' must lie in [0, 1), got {self.epsilon!r}")
        if self.c < 0:
            raise ConfigError(f"llm_mcts 'c' must be >= 0, got {self.c!r}")
        if not isinstance(self.max_depth, int) or self.max_depth < 1:
            raise ConfigError(f"llm_mcts 'max_depth' must be an integer >= 1, got {self.max_depth!r}")
        if self.goal_reward <= 0:
            raise ConfigError(f"llm_mcts 'goal_reward' must be > 0, got {self.goal_reward!r}")
        if self.selection not in SELECTIONS:
            raise ConfigError(f"llm_mcts 'selection' must be one of {', '.join(SELECTIONS)}, got {self.selection!r}")
        if self.final_action not in FINAL_ACTIONS:
            raise ConfigError(f"llm_mcts 'final_action' must be one of {', '.join(FINAL_ACTIONS)}, "
                              f"got {self.final_action!r}")
        if self.history_key not in HISTORY_KEYS:
            raise ConfigError(f"llm_mcts 'history_key' must be one of {', '.join(HISTORY_KEYS)}, "
                              f"got {self.history_key!r}")

    def depth_cut(self) -> int:
        """The first depth d at which gamma^d < epsilon (or max_depth, whichever comes first)."""
        d = 0
        while d < self.max_depth and not self.gamma ** d < self.epsilon:
            d += 1
        return d


class PolicyFn(Protocol):
    """pi(a|h) of §2.3: probabilities aligned with ``actions``.

    ``history``: the actions of h; ``past``: the observations before each of them (o_0 .. o_{t-1});
    ``observation``: the observation that ends h (o_t); ``actions``: the admissible actions there."""

    def __call__(self, history: tuple[Action, ...], past: tuple[Observation, ...], observation: Observation,
                 actions: Sequence[Action]) -> Sequence[float]: ...


class PlacementSampler(Protocol):
    """The belief as Algorithm 1 uses it (``Belief`` implements it)."""

    def sample_placements(self, rng: np.random.Generator, n: int) -> list[tuple[str | None, ...]]: ...

    def state_with(self, placement: Sequence[str | None]) -> State: ...


RolloutPolicy = Callable[[Sequence[Action], random.Random], Action]


def uniform_rollout(actions: Sequence[Action], rng: random.Random) -> Action:
    """pi_rollout of line 14: uniform over the admissible actions (§2.4)."""
    return actions[int(rng.random() * len(actions))]


class Node:
    """One history h in T: its admissible actions, pi(.|h), N(h), N(h,a), Q(h,a) and children."""

    __slots__ = ("actions", "obs", "pi", "n", "na", "q", "children")

    def __init__(self, actions: Sequence[Action], obs: Observation | None = None) -> None:
        self.actions: list[Action] = list(actions)
        self.obs = obs  # the observation that ends h (what the policy prompt shows)
        self.pi: list[float] | None = None
        self.n = 0
        self.na = [0] * len(self.actions)
        self.q = [0.0] * len(self.actions)
        self.children: dict[Hashable, Node] = {}


def puct_score(q: float, pi: float, n_h: int, n_ha: int, c: float) -> float:
    """Line 29: Q(h,a) + c pi(a|h) sqrt(N(h)) / (N(h,a) + 1)."""
    return q + c * pi * math.sqrt(n_h) / (n_ha + 1)


def uct_score(q: float, n_h: int, n_ha: int, c: float) -> float:
    """UCB1 of the UCT baselines: Q(h,a) + c sqrt(ln(N(h) + 1) / (N(h,a) + 1)) (authors' code)."""
    return q + c * math.sqrt(math.log(n_h + 1) / (n_ha + 1))


def argmax_ties(values: Sequence[float], pi: Sequence[float], na: Sequence[int], rng: random.Random) -> int:
    """Index of the largest value; ties to larger pi, then larger N(h,a), then a seeded draw."""
    best = max(values)
    tied = [i for i, v in enumerate(values) if v == best]
    if len(tied) > 1:
        top_pi = max(pi[i] for i in tied)
        tied = [i for i in tied if pi[i] == top_pi]
    if len(tied) > 1:
        top_n = max(na[i] for i in tied)
        tied = [i for i in tied if na[i] == top_n]
    return tied[0] if len(tied) == 1 else tied[int(rng.random() * len(tied))]


@dataclass
class SearchStats:
    """What one SEARCH did (summed over an episode by the planner)."""

    simulations: int = 0
    policy_visits: int = 0      # executions of line 28 (non-leaf visits that ask for pi(a|h))
    policy_queries: int = 0     # of those, visits to a node without pi yet: questions to the policy
    nodes: int = 0              # |T| at the end
    max_depth: int = 0          # deepest tree node reached
    rollout_steps: int = 0
    goal_hits: int = 0          # simulations whose return includes the goal reward
    root_redraws: int = 0       # root samples redrawn because the goal already held in them
    seconds: float = 0.0

    def add(self, other: "SearchStats") -> None:
        for name in self.__dataclass_fields__:
            setattr(self, name, getattr(self, name) + getattr(other, name)
                    if name != "max_depth" else max(self.max_depth, other.max_depth))


@dataclass
class SearchResult:
    action: Action | None
    root: Node | None
    stats: SearchStats = field(default_factory=SearchStats)

    def q_table(self) -> list[tuple[Action, float, int, float]]:
        """(action, Q, N, pi) of the root, best Q first (for messages and tests)."""
        if self.root is None:
            return []
        pi = self.root.pi or [0.0] * len(self.root.actions)
        rows = list(zip(self.root.actions, self.root.q, self.root.na, pi))
        return sorted(rows, key=lambda r: (-r[1], -r[3], -r[2]))


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


class LLMMCTS:
    """Algorithm 1 for one episode: the generative model, the goal, pi and the random streams.

    ``policy`` None means pi uniform over the admissible actions (no LLM heuristic)."""

    def __init__(self, household: Household, goal: Goal, config: SearchConfig, policy: PolicyFn | None = None,
                 seed: int = 0, rollout_policy: RolloutPolicy = uniform_rollout) -> None:
        self.hh = household
        self.goal = goal
        self.config = config
        self.policy = policy
        self.rollout_policy = rollout_policy
        self.rng = random.Random(seed)
        self.np_rng = np.random.default_rng(seed)
        self.goal_test = GoalTest(household, goal)
        self.cut = config.depth_cut()
        self._stats = SearchStats()
        self.simulation = 0  # index of the running simulation (for error messages)

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
        (``past``) and the current ``observation``; ``belief`` must agree with that observation."""
        n = self.config.simulations if n is None else n
        started = time.perf_counter()
        self._stats = stats = SearchStats()
        root: Node | None = None
        root_history = tuple(history)
        root_past = tuple(past)
        placements = self._root_placements(belief, n)
        for k in range(n):  # lines 3-7
            self.simulation = k + 1
            s = belief.state_with(placements[k])  # line 4
            if root is None:  # SIMULATE at h not in T: lines 23-26
                root = Node(self.hh.legal_actions(s), observation)
                self.rollout(s, 0)
            else:
                self.simulate(s, root, root_history, root_past, 0)
            stats.simulations += 1
        if root is None:
            return SearchResult(None, None, stats)
        pi = root.pi or [1.0] * len(root.actions)
        if self.config.final_action == "q":
            best = argmax_ties(root.q, pi, root.na, self.rng)  # line 8: argmax_a Q(h, a)
        else:  # the most visited action (the authors' commented-out max_visit_action_node)
            best = argmax_ties([float(n) for n in root.na], root.q, pi, self.rng)
        stats.seconds = time.perf_counter() - started
        stats.nodes = self._count(root)
        return SearchResult(root.actions[best] if root.actions else None, root, stats)

    def _root_placements(self, belief: PlacementSampler, n: int) -> list[tuple[str | None, ...]]:
        """n placements from b(s), redrawing those in which the goal already holds."""
        if n <= 0:
            return []
        out = [p for p in belief.sample_placements(self.np_rng, n)]
        for _ in range(self.config.root_redraws):
            bad = [i for i, p in enumerate(out) if self.goal_test(p)]
            if not bad:
                break
            self._stats.root_redraws += len(bad)
            fresh = belief.sample_placements(self.np_rng, len(bad))
            for i, p in zip(bad, fresh):
                out[i] = p
        return out

    # -------------------------------------------------------------- ROLLOUT
    def rollout(self, s: State, d: int) -> float:
        """ROLLOUT(s, h, done, d), lines 10-18, unrolled: sum_j gamma^(d'-d) r_j until
        gamma^d' < epsilon (or max_depth) or the goal is reached. Uniform pi_rollout (line 14)."""
        total = 0.0
        discount = 1.0
        gamma = self.config.gamma
        reward = self.config.goal_reward
        steps = 0
        while d < self.cut:  # line 11: gamma^d < epsilon -> 0
            actions = self.hh.legal_actions(s)
            if not actions:
                break
            a = self.rollout_policy(actions, self.rng)  # line 14
            s, done = self.G(s, a)  # line 15
            steps += 1
            d += 1
            if done:  # r on the step reaching the goal, then done (line 11)
                total += discount * reward
                self._stats.goal_hits += 1
                break
            discount *= gamma  # line 17: r + gamma * ROLLOUT(s', h', done, d + 1)
        self._stats.rollout_steps += steps
        return total

    # ------------------------------------------------------------- SIMULATE
    def simulate(self, s: State, node: Node, history: tuple[Action, ...], past: tuple[Observation, ...],
                 d: int) -> float:
        """SIMULATE(s, h, done, d, T), lines 19-36, for an h already in T (``node``).

        Lines 20-26 for the successor h' run before descending: a done or cut h' returns r; a new
        h' is added to T and evaluated by ROLLOUT."""
        stats = self._stats
        cfg = self.config
        # line 28: pi(a|h) <- QUERYLLMPOLICY(h), asked once per node
        stats.policy_visits += 1
        pi = node.pi
        if pi is None:
            pi = node.pi = self._query_policy(history, past, node.obs, node.actions)
        # line 29: PUCT (or UCB1 for the UCT baselines)
        i = self.select(node, pi)
        a = node.actions[i]
        s2, done = self.G(s, a)  # line 30
        r = cfg.goal_reward if done else 0.0
        d2 = d + 1
        if done or d2 >= self.cut:  # lines 20-22 at h'
            R = r
            if done:
                stats.goal_hits += 1
        else:
            by_obs = cfg.history_key == "observation"
            o = self.hh.observe(s2) if by_obs else None
            key = (i, o) if by_obs else i  # line 31: h' = PUSHBACK(h, [a*, o])
            child = node.children.get(key)
            if child is None:  # lines 23-26
                node.children[key] = Node(self.hh.legal_actions(s2), o if by_obs else self.hh.observe(s2))
                stats.max_depth = max(stats.max_depth, d2)
                R = r + cfg.gamma * self.rollout(s2, d2)
            else:
                R = r + cfg.gamma * self.simulate(s2, child, history + (a,), past + (node.obs,), d2)  # line 32
        node.n += 1  # line 33
        node.na[i] += 1
        node.q[i] += (R - node.q[i]) / node.na[i]  # line 34
        return R  # line 35

    def select(self, node: Node, pi: Sequence[float]) -> int:
        """Line 29: the action maximising PUCT (or UCB1), ties broken as :func:`argmax_ties` says."""
        c = self.config.c
        n_h = node.n
        q, na = node.q, node.na
        if self.config.selection == "puct":
            root_n = math.sqrt(n_h)
            values = [q[j] + c * pi[j] * root_n / (na[j] + 1) for j in range(len(q))]
        else:
            log_n = math.log(n_h + 1)
            values = [q[j] + c * math.sqrt(log_n / (na[j] + 1)) for j in range(len(q))]
        return argmax_ties(values, pi, na, self.rng)

    def _query_policy(self, history: tuple[Action, ...], past: tuple[Observation, ...],
                      observation: Observation | None, actions: Sequence[Action]) -> list[float]:
        """QUERYLLMPOLICY(h) of line 28, once per node (the caller keeps the answer in the node)."""
        if self.policy is None or not actions or observation is None:
            return [1.0 / max(1, len(actions))] * len(actions)
        self._stats.policy_queries += 1
        probs = [float(p) for p in self.policy(history, past, observation, actions)]
        if len(probs) != len(actions):
            raise ValueError(f"the policy returned {len(probs)} probabilities for {len(actions)} actions")
        return probs

    def _count(self, node: Node) -> int:
        return 1 + sum(self._count(c) for c in node.children.values())
