"""The Can and Pay models (seed 004, §6): small heads over the features of ``features.py``.

* Can (§6.1): a score M^can(h, g, a) = sigmoid(f(x)) trained with the seed's InfoNCE loss over a
  group of one positive and its negatives, ``-log M(pos) / sum_a M(a)``; its output is the Can
  probability p^can. InfoNCE alone fixes only the ratios within a group, not the level: trained
  so, the validation ROC AUC of positives against negatives of *other* groups was 0.12 at a group
  accuracy of 0.99, which Beam-Action (comparing sequences with different histories) cannot use.
  A binary cross-entropy term (weight ``can_bce_weight``, 0 = InfoNCE only) ties M^can to the
  seed's training targets, 1.0 feasible and 0.0 infeasible (§6.1 "Output 1.0 // feasible").
* Pay (§6.2): M^pay(g, h, a) = sigmoid(f(x)) (the seed's "regression layer whose output is bounded
  in [0, 1] via a sigmoid"), trained with the mean squared error to the discounted reward.

f is a one-hidden-layer MLP (ReLU). Training uses torch (AdamW, the seed's optimiser) on CPU;
inference is plain numpy. Weights are saved as ``.npz`` (loaded with ``allow_pickle=False``) next
to a JSON file with the training settings and validation figures.
"""
from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from llm_planner.errors import ConfigError

if TYPE_CHECKING:
    import torch

TRAIN_HINT = "train them with: llm-planner train saycanpay"


@dataclass
class Head:
    """sigmoid(relu(x W1 + b1) W2 + b2)."""

    w1: np.ndarray
    b1: np.ndarray
    w2: np.ndarray
    b2: np.ndarray

    def __call__(self, x: np.ndarray) -> np.ndarray:
        hidden = np.maximum(x @ self.w1 + self.b1, 0.0)
        logits = (hidden @ self.w2 + self.b2).reshape(-1)
        return 1.0 / (1.0 + np.exp(-np.clip(logits, -40, 40)))

    @property
    def n_features(self) -> int:
        return int(self.w1.shape[0])


@dataclass
class Models:
    """The trained Can and Pay heads and what they were trained with."""

    can: Head
    pay: Head
    meta: dict[str, Any] = field(default_factory=dict)

    def save(self, directory: str | Path) -> Path:
        directory = Path(directory)
        directory.mkdir(parents=True, exist_ok=True)
        arrays = {f"{name}_{k}": getattr(head, k) for name, head in (("can", self.can), ("pay", self.pay))
                  for k in ("w1", "b1", "w2", "b2")}
        tmp = directory / "models.tmp.npz"
        np.savez(tmp, **arrays)
        tmp.replace(directory / "models.npz")
        (directory / "models.json").write_text(json.dumps(self.meta, indent=1, default=str))
        return directory

    @staticmethod
    def digest(directory: str | Path) -> str:
        """The first 12 hex digits of the saved weights' SHA-256: which models a table was made with
        (small differences in the weights flip near-ties between candidate actions)."""
        return hashlib.sha256(_saved_weights(directory).read_bytes()).hexdigest()[:12]

    @staticmethod
    def load(directory: str | Path, n_features: int | None = None) -> Models:
        directory = Path(directory)
        weights = _saved_weights(directory)
        try:
            with np.load(weights, allow_pickle=False) as data:
                heads = {name: Head(*(data[f"{name}_{k}"] for k in ("w1", "b1", "w2", "b2")))
                         for name in ("can", "pay")}
            meta = json.loads((directory / "models.json").read_text())
        except (OSError, ValueError, KeyError) as exc:
            raise ConfigError(f"{weights}: unreadable SayCanPay models ({exc}); {TRAIN_HINT}") from None
        if n_features is not None and heads["can"].n_features != n_features:
            raise ConfigError(f"{weights} was trained on {heads['can'].n_features} features, this version uses "
                              f"{n_features}; {TRAIN_HINT}")
        return Models(heads["can"], heads["pay"], meta)


def _saved_weights(directory: str | Path) -> Path:
    """The weights file :meth:`Models.save` wrote in ``directory``; a ConfigError saying how to train them."""
    weights = Path(directory) / "models.npz"
    if not weights.is_file():
        raise ConfigError(f"no trained SayCanPay Can/Pay models in {directory}; {TRAIN_HINT}")
    return weights


# ------------------------------------------------------------------------------ training
@dataclass(frozen=True)
class TrainSettings:
    epochs: int = 20
    batch_size: int = 50
    learning_rate: float = 1e-3
    weight_decay: float = 1e-5
    hidden: int = 256
    seed: int = 0
    can_bce_weight: float = 1.0


def _module(n_features: int, hidden: int) -> torch.nn.Sequential:
    import torch  # noqa: PLC0415 - heavy optional: torch loads only where a model trains or scores

    return torch.nn.Sequential(torch.nn.Linear(n_features, hidden), torch.nn.ReLU(), torch.nn.Linear(hidden, 1))


def _to_head(module: torch.nn.Sequential) -> Head:
    first, last = module[0], module[2]
    return Head(first.weight.detach().numpy().T.copy(), first.bias.detach().numpy().copy(),
                last.weight.detach().numpy().T.copy(), last.bias.detach().numpy().copy())


Progress = Callable[[str], None]


def train_can(groups: np.ndarray, settings: TrainSettings, progress: Progress | None = None) -> Head:
    """InfoNCE (§6.1) over ``groups`` of shape (B, 1 + negatives, features); the positive first."""
    import torch  # noqa: PLC0415 - heavy optional: torch loads only where a model trains or scores

    torch.manual_seed(settings.seed)
    x = torch.from_numpy(groups)
    model = _module(x.shape[-1], settings.hidden)
    optimiser = torch.optim.AdamW(model.parameters(), lr=settings.learning_rate, weight_decay=settings.weight_decay)
    for epoch in range(settings.epochs):
        started, total = time.perf_counter(), 0.0
        order = torch.randperm(len(x))
        for start in range(0, len(x), settings.batch_size):
            batch = x[order[start:start + settings.batch_size]]
            logits = model(batch).squeeze(-1)
            scores = torch.sigmoid(logits)                             # M^can for every action of a group
            loss = -(torch.log(scores[:, 0] + 1e-9) - torch.log(scores.sum(dim=1) + 1e-9)).mean()
            if settings.can_bce_weight > 0:                            # anchor M^can at 1 (positive) / 0 (negatives)
                labels = torch.zeros_like(logits)
                labels[:, 0] = 1.0
                bce = torch.nn.functional.binary_cross_entropy_with_logits(logits, labels)
                loss = loss + settings.can_bce_weight * bce
            optimiser.zero_grad()
            loss.backward()
            optimiser.step()
            total += float(loss.detach()) * len(batch)
        if progress:
            progress(f"Can epoch {epoch + 1}/{settings.epochs}: loss (InfoNCE + {settings.can_bce_weight:g} BCE) "
                     f"{total / len(x):.4f} ({time.perf_counter() - started:.1f} s)")
    return _to_head(model)


def train_pay(features: np.ndarray, targets: np.ndarray, settings: TrainSettings,
              progress: Progress | None = None) -> Head:
    """MSE between sigmoid outputs and discounted rewards (§6.2)."""
    import torch  # noqa: PLC0415 - heavy optional: torch loads only where a model trains or scores

    torch.manual_seed(settings.seed + 1)
    x, y = torch.from_numpy(features), torch.from_numpy(targets.astype(np.float32))
    model = _module(x.shape[-1], settings.hidden)
    optimiser = torch.optim.AdamW(model.parameters(), lr=settings.learning_rate, weight_decay=settings.weight_decay)
    for epoch in range(settings.epochs):
        total = 0.0
        order = torch.randperm(len(x))
        for start in range(0, len(x), settings.batch_size):
            idx = order[start:start + settings.batch_size]
            loss = ((torch.sigmoid(model(x[idx]).squeeze(-1)) - y[idx]) ** 2).mean()
            optimiser.zero_grad()
            loss.backward()
            optimiser.step()
            total += float(loss.detach()) * len(idx)
        if progress:
            progress(f"Pay epoch {epoch + 1}/{settings.epochs}: MSE {total / len(x):.4f}")
    return _to_head(model)
