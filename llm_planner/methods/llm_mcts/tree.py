"""The parts of Algorithm 1's search tree T (LLM-MCTS seed 000, §2.4): the search's hyper-parameters,
a node with N(h), N(h,a), Q(h,a) and pi(a|h), the line-29 scores (PUCT, and UCB1 of the UCT
baselines) with the tie-breaking rule, and what a search reports. The algorithm that grows the
tree is :mod:`llm_planner.methods.llm_mcts.mcts`."""
from __future__ import annotations

import math
import random
from collections.abc import Callable, Collection, Hashable, Sequence
from dataclasses import dataclass, field
from typing import Protocol

import numpy as np

from llm_planner.domains.household.world.symbolic import Action, Goal, Observation, State
from llm_planner.errors import ConfigError

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
    expand_after: int = 1
    reuse_tree: bool = False
    max_in_flight: int = 1
    max_waves: int = 0
    rollout_greed: float = 0.0  # share of rollout steps that take the goal-directed preferred action
    decision_time_s: float = 0.0  # questions of one decision stop when the next would end past this (0: none)
    anytime: bool = False  # past decision_time_s a node gets a provisional uniform pi and its question runs on
    late_questions: int = 1  # anytime: questions of provisional nodes running (or waiting) at once
    root_wait_share: float = 0.5  # anytime with decision_time_s: share of the budget the root's question is waited for
    reliability_floor: float = 0.0  # a policy measured below this reliability is asked only now and then (0: always)
    reliability_samples: int = 50  # samples measured before the floor applies
    unreliable_every: int = 10  # under the floor, one search in this many asks (to notice a better model)
    # The defaults above read Algorithm 1 literally (tests rely on it); the planners' defaults are
    # those of config/llm_mcts.yaml.

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
        for name, least in (("expand_after", 1), ("max_in_flight", 1), ("max_waves", 0), ("late_questions", 1),
                            ("reliability_samples", 1), ("unreliable_every", 1)):
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool) or value < least:
                raise ConfigError(f"llm_mcts '{name}' must be an integer >= {least}, got {value!r}")
        if not self.decision_time_s >= 0.0:
            raise ConfigError(f"llm_mcts 'decision_time_s' must be a number of seconds >= 0 (0: no bound), "
                              f"got {self.decision_time_s!r}")
        if not 0.0 <= self.root_wait_share <= 1.0:
            raise ConfigError(f"llm_mcts 'root_wait_share' must lie in [0, 1] (a share of decision_time_s), "
                              f"got {self.root_wait_share!r}")
        if not 0.0 <= self.reliability_floor <= 1.0:
            raise ConfigError(f"llm_mcts 'reliability_floor' must lie in [0, 1] (a share of samples that read; "
                              f"0: always ask), got {self.reliability_floor!r}")
        if not 0.0 <= self.rollout_greed <= 1.0:
            raise ConfigError(f"llm_mcts 'rollout_greed' must lie in [0, 1], got {self.rollout_greed!r}")
        for name in ("reuse_tree", "anytime"):
            if not isinstance(getattr(self, name), bool):
                raise ConfigError(f"llm_mcts '{name}' must be true or false, got {getattr(self, name)!r}")

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

    def state_with(self, placement: Sequence[str | None], switched_on: frozenset[str] | None = None) -> State: ...

    def sample_switched_on(self, rng: np.random.Generator, n: int, things: Sequence[str]) -> list[frozenset[str]]: ...

    @property
    def switch_seen(self) -> Collection[str]: ...

    def unfinished(self, placement: Sequence[str | None], goal: Goal,
                   rng: np.random.Generator) -> tuple[str | None, ...] | None: ...


RolloutPolicy = Callable[[Sequence[Action], random.Random], Action]


def uniform_rollout(actions: Sequence[Action], rng: random.Random) -> Action:
    """pi_rollout of line 14: uniform over the admissible actions (§2.4)."""
    return actions[int(rng.random() * len(actions))]


class Node:
    """One history h in T: its admissible actions, pi(.|h), N(h), N(h,a), Q(h,a) and children.

    ``visits`` counts the simulations that reached h (the first one added it to T); ``loss`` and
    ``loss_n`` are the virtual losses of the simulations in flight below h (per action and total);
    ``provisional`` marks a uniform pi given while the node's question is still unanswered
    (``anytime``), replaced by the answer when it comes."""

    __slots__ = ("actions", "obs", "pi", "n", "na", "q", "children", "visits", "loss", "loss_n", "provisional")

    def __init__(self, actions: Sequence[Action], obs: Observation | None = None) -> None:
        self.actions: list[Action] = list(actions)
        self.obs = obs  # the observation that ends h (what the policy prompt shows)
        self.pi: list[float] | None = None
        self.n = 0
        self.na = [0] * len(self.actions)
        self.q = [0.0] * len(self.actions)
        self.children: dict[Hashable, Node] = {}
        self.visits = 1
        self.loss: list[int] | None = None
        self.loss_n = 0
        self.provisional = False


def uniform(n: int) -> list[float]:
    """The uniform pi over n actions (the seed's pi when no model is asked)."""
    return [1.0 / max(1, n)] * n


def trusted(pi: Sequence[float], reliability: float) -> Sequence[float]:
    """A distribution mixed with the uniform one by the model's measured reliability r in [0, 1]:
    r pi + (1 - r) / |A| (the prior belief's rows, App. C.2; pi itself is trusted in line 29 by
    :func:`trusted_scores`). r = 1 leaves it as it is; r = 0 gives the uniform distribution, the
    belief of a search without a model. What it follows: AlphaZero's mix of the network's prior with
    noise ((1 - eps) p + eps eta, Silver et al. 2017), with the weight measured instead of fixed, as
    KnowNo trusts a model only as far as its calibrated confidence (Ren et al. 2023)."""
    if reliability >= 1.0 or not pi:
        return pi
    r = max(0.0, reliability)
    even = (1.0 - r) / len(pi)
    return [r * p + even for p in pi]


def puct_scores(q: Sequence[float], pi: Sequence[float], n_h: int, na: Sequence[int], c: float) -> list[float]:
    """Line 29 for every action a of a node: Q(h,a) + c pi(a|h) sqrt(N(h)) / (N(h,a) + 1)."""
    root_n = math.sqrt(n_h)
    return [q[j] + c * pi[j] * root_n / (na[j] + 1) for j in range(len(q))]


def trusted_scores(q: Sequence[float], pi: Sequence[float], n_h: int, na: Sequence[int], c: float,
                   reliability: float) -> list[float]:
    """Line 29 with the model trusted as far as its measured reliability r in [0, 1]: the exploration
    bonus is r times PUCT's and (1 - r) times UCB1's,
    Q(h,a) + c [r pi(a|h) sqrt(N(h)) / (N(h,a) + 1) + (1 - r) sqrt(ln(N(h) + 1) / (N(h,a) + 1))].
    r = 1 is the paper's PUCT; r = 0 is the UCT baseline's UCB1, so a model whose answers never read
    leaves the search exactly where it is without a model (mixing pi with the uniform distribution
    instead would not: PUCT with a uniform pi over |A| actions explores |A| times less than UCB1).
    What it follows: AlphaZero's mix of the network's prior with noise at the root, with the weight
    measured instead of fixed (Silver et al. 2017), as KnowNo trusts a model's choice only as far as
    its calibrated confidence (Ren et al. 2023); and PAC-MCTS's premise that the evaluator's bias is
    bounded: a wrong pi moves a score by at most r c sqrt(N(h)) / (N(h,a) + 1)."""
    if reliability >= 1.0:
        return puct_scores(q, pi, n_h, na, c)
    if reliability <= 0.0:
        return uct_scores(q, n_h, na, c)
    r = reliability
    root_n, log_n = math.sqrt(n_h), math.log(n_h + 1)
    return [q[j] + c * (r * pi[j] * root_n / (na[j] + 1) + (1.0 - r) * math.sqrt(log_n / (na[j] + 1)))
            for j in range(len(q))]


def uct_scores(q: Sequence[float], n_h: int, na: Sequence[int], c: float) -> list[float]:
    """UCB1 of the UCT baselines for every action of a node: Q(h,a) + c sqrt(ln(N(h) + 1) / (N(h,a) + 1))
    (authors' code)."""
    log_n = math.log(n_h + 1)
    return [q[j] + c * math.sqrt(log_n / (na[j] + 1)) for j in range(len(q))]


def argmax_ties(values: Sequence[float], pi: Sequence[float], na: Sequence[float], rng: random.Random) -> int:
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
    root_repairs: int = 0       # ... still holding after the redraws, made unfinished (Belief.unfinished)
    rollout_visits: int = 0     # visits to a node of T evaluated by ROLLOUT (expand_after, max_waves)
    reused_nodes: int = 0       # nodes of T kept from the previous decision (reuse_tree)
    waves: int = 0              # times the search waited for questions in flight (concurrent)
    wait_seconds: float = 0.0   # wall time the search spent waiting for pi answers (asked inline or in waves)
    answered: int = 0           # questions whose answers came back in this search (inline or in waves)
    out_of_time: int = 0        # searches that stopped asking because of decision_time_s
    provisional: int = 0        # nodes given a provisional uniform pi past decision_time_s (anytime)
    root_provisional: int = 0   # searches whose root ran on a provisional uniform pi (root_wait_share)
    late_questions: int = 0     # questions of provisional nodes sent to run past their decision
    late_answers: int = 0       # answers that replaced a provisional pi (in this decision or a later one)
    late_failures: int = 0      # late questions that failed (their nodes keep the uniform pi)
    waits: int = 0              # times the search waited for answers (the root's question, a wave, a kept root's)
    waits_in_time: int = 0      # of those, waits that ended with their answers in (not on the budget)
    root_unwaited: int = 0      # searches whose root question was sent without a wait (its answers come too late)
    skipped_unreliable: int = 0  # nodes not asked: the policy's reliability is under reliability_floor
    skipped_busy: int = 0       # nodes whose question was not sent: late_questions were running already
    gated: int = 0              # searches that asked nothing: the policy's reliability is under reliability_floor
    peak_in_flight: int = 0     # most questions in flight at once
    seconds: float = 0.0

    #: figures that are a maximum over searches, not a sum
    _MAXIMA = ("max_depth", "peak_in_flight")

    def add(self, other: SearchStats) -> None:
        for name in self.__dataclass_fields__:
            mine, theirs = getattr(self, name), getattr(other, name)
            setattr(self, name, max(mine, theirs) if name in self._MAXIMA else mine + theirs)


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
        rows = list(zip(self.root.actions, self.root.q, self.root.na, pi, strict=True))
        return sorted(rows, key=lambda r: (-r[1], -r[3], -r[2]))
