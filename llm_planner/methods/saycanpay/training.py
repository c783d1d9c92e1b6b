"""Learning the Can and Pay models (seed 004, §6) from N expert trajectories
``E = {(o_0, g, a_1, ..., a_T, r = 1)}`` of an oracle planner (``llm_planner.domains.household.world.expert``, which
has full observation; the training suites only, so the novel suites stay for generalization).

Can (§6.1): for each step t of a trajectory tau_i, a group ``[h_{t-1}, g, a_t, a_tbar, a~]``: the
positive a_t, a negative a_tbar from the same trajectory at another step (a different action), and
a negative a~ from another trajectory tau_j (another o_0 and goal), trained with InfoNCE.
Pay (§6.2): each a_t with the discounted reward ``delta^(T - t)`` (the last action 1, the one
before delta, ...) and one negative action from another trajectory with reward 0, trained with MSE.
Each trajectory ends with "done task" (``training.done_step``; the seed's §6.2 example), which is
then its last action a_T: the paper's decoder ends a plan when "done task" is chosen.

Validation: an 80-20 split by trajectory (seed); reported are the Can group accuracy (the positive
scores highest), the Can ROC AUC of positives against negatives (the seed stops at F1 convergence;
an InfoNCE score ranks but is not calibrated at 0.5, so a threshold-free figure), the Pay MSE and
the Pay ranking accuracy (positive above the negative).
"""
from __future__ import annotations

import random
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from llm_planner.domains.household.world.expert import Trajectory, build_dataset
from llm_planner.domains.household.world.scene import load_scene
from llm_planner.domains.household.world.symbolic import Action, Household
from llm_planner.llm.embeddings import Embedder
from llm_planner.methods.saycanpay.features import FEATURE_VERSION, N_FEATURES, Featurizer
from llm_planner.methods.saycanpay.formats import DONE, Example, ExampleBuilder
from llm_planner.methods.saycanpay.models import Models, TrainSettings, train_can, train_pay

Progress = Callable[[str], None]


@dataclass
class TrainingData:
    """Can groups (positive first) and Pay examples with targets, each tagged with its trajectory."""

    can_groups: list[list[Example]] = field(default_factory=list)
    can_trajectory: list[int] = field(default_factory=list)
    pay_examples: list[Example] = field(default_factory=list)
    pay_targets: list[float] = field(default_factory=list)
    pay_trajectory: list[int] = field(default_factory=list)


def training_examples(trajectories: Sequence[Trajectory], households: Mapping[str, Household], discount: float,
                      seed: int = 0, done_step: bool = True) -> TrainingData:
    """The §6.1 groups and §6.2 examples of ``trajectories`` (see the module docstring). ``done_step``:
    every trajectory ends with the "done task" action (§4, §6.2's example "<NXT> done picking up ->
    1.0"), so Can learns that "done task" is feasible only once the plan reaches the goal (footnote 2)
    and Pay gives it the final reward; the last real action gets delta."""
    rng = random.Random(seed)
    data = TrainingData()
    usable = [k for k, t in enumerate(trajectories) if t.actions]
    if len(usable) < 2:
        raise ValueError("Can/Pay training needs at least two non-empty expert trajectories")
    for k in usable:
        tau = trajectories[k]
        household = households[tau.task.scene]
        build = ExampleBuilder(household, tau.task.goal, household.sample_initial_state(tau.task.placement_seed))
        actions = tuple(tau.actions) + ((DONE,) if done_step else ())
        length = len(actions)
        for t, action in enumerate(actions):
            history = actions[:t]
            other = _other_action(trajectories, usable, k, action, rng)
            same = [a for a in actions if a != action]
            negative = rng.choice(same) if same else _other_action(trajectories, usable, k, action, rng)
            data.can_groups.append([build(history, action), build(history, negative), build(history, other)])
            data.can_trajectory.append(k)
            data.pay_examples += [build(history, action),
                                  build(history, _other_action(trajectories, usable, k, action, rng))]
            data.pay_targets += [discount ** (length - 1 - t), 0.0]
            data.pay_trajectory += [k, k]
    return data


def _other_action(trajectories: Sequence[Trajectory], usable: Sequence[int], k: int, not_this: Action,
                  rng: random.Random) -> Action:
    """An action of another trajectory (another o_0 and goal), different from ``not_this``."""
    mine = trajectories[k].task
    for _ in range(100):
        j = rng.choice(usable)
        theirs = trajectories[j].task
        if j != k and (theirs.goal != mine.goal or theirs.placement_seed != mine.placement_seed):
            action = rng.choice(trajectories[j].actions)
            if action != not_this:
                return action
    raise ValueError("no other trajectory offers a negative action (the expert data are too uniform)")


def _featurize_groups(featurizer: Featurizer, groups: Sequence[Sequence[Example]]) -> np.ndarray:
    flat = [e for g in groups for e in g]
    x = featurizer.transform(flat)
    return x.reshape(len(groups), len(groups[0]), -1) if groups else np.zeros((0, 3, N_FEATURES), np.float32)


def _auc(pos: np.ndarray, neg: np.ndarray) -> float:
    """Probability that a positive scores above a negative (ROC AUC; InfoNCE ranks, it does not calibrate)."""
    if not len(pos) or not len(neg):
        return float("nan")
    order = np.argsort(np.concatenate([pos, neg]), kind="stable")
    ranks = np.empty(len(order))
    ranks[order] = np.arange(1, len(order) + 1)
    return float((ranks[: len(pos)].sum() - len(pos) * (len(pos) + 1) / 2) / (len(pos) * len(neg)))


def fit(data: TrainingData, featurizer: Featurizer, settings: TrainSettings, validation_fraction: float,
        progress: Progress | None = None) -> tuple[Models, dict[str, Any]]:
    """Featurize, split by trajectory, train both heads, and measure them on the validation part."""
    say = progress or (lambda _m: None)
    trajectories = sorted(set(data.can_trajectory))
    rng = random.Random(settings.seed)
    held = set(rng.sample(trajectories, max(1, int(round(validation_fraction * len(trajectories))))))
    started = time.perf_counter()
    groups = _featurize_groups(featurizer, data.can_groups)
    pay_x = featurizer.transform(data.pay_examples)
    say(f"features: {groups.shape[0]} Can groups, {pay_x.shape[0]} Pay examples, {pay_x.shape[1]} features "
        f"({time.perf_counter() - started:.1f} s)")
    can_val = np.array([t in held for t in data.can_trajectory])
    pay_val = np.array([t in held for t in data.pay_trajectory])
    targets = np.array(data.pay_targets, dtype=np.float32)
    can = train_can(groups[~can_val], settings, progress)
    pay = train_pay(pay_x[~pay_val], targets[~pay_val], settings, progress)
    scores = can(groups[can_val].reshape(-1, groups.shape[-1])).reshape(int(can_val.sum()), -1)
    pay_pred = pay(pay_x[pay_val])
    pay_t = targets[pay_val]
    positive = pay_t > 0
    metrics = {
        "can_group_accuracy": float((scores.argmax(axis=1) == 0).mean()) if len(scores) else float("nan"),
        "can_auc": _auc(scores[:, 0], scores[:, 1:].reshape(-1)) if len(scores) else float("nan"),
        "pay_mse": float(((pay_pred - pay_t) ** 2).mean()) if len(pay_t) else float("nan"),
        "pay_rank_accuracy": (float((pay_pred[positive] > pay_pred[~positive]).mean()) if positive.any()
                              else float("nan")),
        "train_trajectories": len(trajectories) - len(held), "validation_trajectories": len(held),
        "can_groups": int(groups.shape[0]), "pay_examples": int(pay_x.shape[0]),
        "seconds": round(time.perf_counter() - started, 1),
    }
    meta = {"feature_version": FEATURE_VERSION, "n_features": N_FEATURES, "settings": settings.__dict__,
            "validation": metrics}
    return Models(can, pay, meta), metrics


def train_models(config: Mapping[str, Any], embedder: Embedder, trajectories: Sequence[Trajectory] | None = None,
                 progress: Progress | None = None) -> tuple[Models, dict[str, Any]]:
    """Build the expert data (unless given), the §6 examples, and fit Can and Pay."""

    opts = config["training"]
    say = progress or (lambda _m: None)
    started = time.perf_counter()
    if trajectories is None:
        summary = build_dataset(str(opts["scene"]), int(opts["trajectories"]), int(opts["seed"]),
                                tuple(opts["suites"]), workers=int(opts["workers"]))
        trajectories = summary.trajectories
        say(f"expert trajectories: {len(trajectories)} in {summary.seconds:.1f} s "
            f"(scene {opts['scene']}, suites {', '.join(opts['suites'])}, seed {opts['seed']})")
    households = {scene: Household(load_scene(scene)) for scene in {t.task.scene for t in trajectories}}
    data = training_examples(trajectories, households, float(opts["discount"]), int(opts["seed"]),
                             bool(opts["done_step"]))
    settings = TrainSettings(int(opts["epochs"]), int(opts["batch_size"]), float(opts["learning_rate"]),
                             float(opts["weight_decay"]), int(opts["hidden"]), int(opts["seed"]),
                             float(opts["can_bce_weight"]))
    models, metrics = fit(data, Featurizer(embedder), settings, float(opts["validation_fraction"]), progress)
    models.meta.update({"trajectories": len(trajectories), "scene": opts["scene"], "suites": list(opts["suites"]),
                        "task_seed": opts["seed"], "discount": opts["discount"], "done_step": bool(opts["done_step"]),
                        "total_seconds": round(time.perf_counter() - started, 1)})
    return models, metrics
