"""Sentence-BERT features of a Can/Pay input (seed 004, §6: the seed fine-tunes an uncased BERT
end-to-end on the whole input string; here a small head reads frozen Sentence-BERT embeddings of
its parts, from the LLM layer's shared embedder).

Segments embedded: the goal, the next action (<NXT>), the last and the previous step, the mean of
the older steps, and the mean of the o_0 facts about the next action's arguments and the goal's
objects (each fact a sentence: a scene has a few hundred, embedded once). Interactions: elementwise
products of the next action with the goal, the last step and those facts; cosines of the next
action with each segment and with its closest history step; whether the next action repeats a
step; the plan length so far. A frozen sentence embedding of the whole string could not relate
<NXT> to the right words of a 50-fact <Initial State>; this split keeps the same information
within reach of a small model.
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from llm_planner.llm.embeddings import DIM, Embedder
from llm_planner.methods.saycanpay.formats import Example

NOTHING = "nothing is known about it"
FEATURE_VERSION = 1
N_SCALARS = 8
N_FEATURES = 9 * DIM + N_SCALARS


class Featurizer:
    """Example -> feature vector (:data:`N_FEATURES` floats), batched through the embedder."""

    def __init__(self, embedder: Embedder, horizon: float = 30.0) -> None:
        self.embedder = embedder
        self.horizon = horizon

    def transform(self, examples: Sequence[Example]) -> np.ndarray:
        if not examples:
            return np.zeros((0, N_FEATURES), dtype=np.float32)
        texts: list[str] = [NOTHING]
        for ex in examples:
            texts += [ex.goal, ex.action, *ex.relevant, *ex.history]
        unique = list(dict.fromkeys(texts))
        index = {t: i for i, t in enumerate(unique)}
        emb = self.embedder.encode(unique)
        zero = np.zeros(DIM, dtype=np.float32)
        rows = []
        for ex in examples:
            goal, nxt = emb[index[ex.goal]], emb[index[ex.action]]
            rel = emb[[index[f] for f in ex.relevant or (NOTHING,)]].mean(axis=0)
            steps = emb[[index[h] for h in ex.history]] if ex.history else np.zeros((0, DIM), dtype=np.float32)
            last = steps[-1] if len(steps) >= 1 else zero
            prev = steps[-2] if len(steps) >= 2 else zero
            older = steps[:-2].mean(axis=0) if len(steps) > 2 else zero
            closest = float((steps @ nxt).max()) if len(steps) else 0.0
            scalars = np.array([nxt @ goal, nxt @ last, nxt @ prev, nxt @ rel, nxt @ older, closest,
                                float(ex.action in ex.history), len(ex.history) / self.horizon], dtype=np.float32)
            rows.append(np.concatenate([goal, nxt, last, prev, older, rel, nxt * goal, nxt * last, nxt * rel, scalars]))
        return np.stack(rows).astype(np.float32)
