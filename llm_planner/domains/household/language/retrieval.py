"""Retrieval over the expert data set D (LLM-MCTS seed 000, §2.3 and App. B): K-shot prompt
retrieval, as the seed: "We use [26] to translate the instructions in the dataset l_i in D into
embedding and examine their cosine similarity to the current instruction ... We select the top K
similar instructions and use the corresponding expert trajectories as a K-shot prompt." Within a
retrieved trajectory the step whose observation is most similar to the current observation is
shown (as in the authors' released code). The offline backend's policy over the same index is
:mod:`llm_planner.domains.household.language.retrieval_policy`.
"""
from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from llm_planner.domains.household.language.grounding import Grounder
from llm_planner.domains.household.language.prompts import (
    expert_initial_observation,
    initial_observation_to_text,
    plan_example,
    policy_example,
)
from llm_planner.domains.household.language.text import WorldInfo, observation_to_text
from llm_planner.domains.household.world.scene import load_scene
from llm_planner.domains.household.world.symbolic import INSIDE, Goal, GoalItem, Observation
from llm_planner.errors import ConfigError, LLMError, LlmPlannerError
from llm_planner.paths import share_dir

if TYPE_CHECKING:
    from llm_planner.domains.household.language.policy_query import PolicyQuery
    from llm_planner.domains.household.world.expert import Trajectory
    from llm_planner.llm.config import LLMConfig

#: Used by the translation prompt when no data set is available.
FIXED_TRANSLATION_EXAMPLES: tuple[tuple[str, Goal], ...] = (
    ("put one toothbrush inside the bathroom cabinet", (GoalItem(INSIDE, "toothbrush", "bathroom_cabinet", 1),)),
    ("put two apples on the kitchen table and one plate inside the dishwasher",
     (GoalItem("on", "apple", "kitchen_table", 2), GoalItem(INSIDE, "plate", "dishwasher", 1))),
    ("put one book on the desk, one mug inside the kitchen cabinet and one towel on the bed",
     (GoalItem("on", "book", "desk", 1), GoalItem(INSIDE, "mug", "kitchen_cabinet", 1),
      GoalItem("on", "towel", "bed", 1))),
)

DEFAULT_DATASET = Path("data") / "generated" / "expert_household.jsonl"



# ------------------------------------------------------------------------------ loading D
def load_expert_data(config: LLMConfig, dataset: Sequence | str | Path | None = None) -> list[Trajectory]:
    """D from (in order): the ``dataset`` argument (trajectories or a path), ``offline.dataset``,
    ``data/generated/expert_household.jsonl`` if present, else built in memory from the training
    suites of the seen apartment (``offline.dataset_n`` tasks, ``offline.dataset_seed``)."""
    from llm_planner.domains.household.world.expert import build_dataset, load_dataset  # noqa: PLC0415 - CLI start-up: expert brings tqdm, multiprocessing and pddl, loaded when examples are built

    try:
        if dataset is not None and not isinstance(dataset, (str, Path)):
            return list(dataset)
        path = dataset or config.get("offline.dataset")
        if path:
            return load_dataset(Path(path).expanduser())
        default = share_dir() / DEFAULT_DATASET
        if default.is_file():
            return load_dataset(default)
        opts = config.section("offline")
        return build_dataset("apartment_seen", int(opts["dataset_n"]), int(opts["dataset_seed"]),
                             workers=1).trajectories
    except (ConfigError, LlmPlannerError, OSError) as exc:
        raise LLMError(f"the expert data set D is unavailable: {exc}") from None


@lru_cache(maxsize=8)
def world_of_scene(scene: str) -> WorldInfo:
    return WorldInfo.from_scene(load_scene(scene))


# ------------------------------------------------------------------------------ index
class ExpertIndex:
    """D with its instruction embeddings: the K most similar instructions, their goals and K-shot prompt blocks."""

    def __init__(self, trajectories: Sequence[Trajectory], grounder: Grounder) -> None:
        if not trajectories:
            raise LLMError("the expert data set D is empty")
        self.trajectories = list(trajectories)
        self.grounder = grounder
        self.instructions = [t.task.instruction for t in self.trajectories]
        self._inst_matrix = grounder.matrix(self.instructions)

    # -------------------------------------------------------------- similarity
    def similar(self, instruction: str, k: int) -> list[tuple[int, float]]:
        """Indices of the k trajectories with the most similar instructions, with their cosine."""
        sims = self._inst_matrix @ self.grounder.embedder.encode_one(instruction)
        order = np.argsort(-sims, kind="stable")[:k]
        return [(int(i), float(sims[i])) for i in order]

    def similar_goals(self, directive: str, k: int) -> list[tuple[str, Goal]]:
        seen: set[str] = set()
        out = []
        for i, _ in self.similar(directive, 4 * k):
            t = self.trajectories[i].task
            if t.instruction not in seen:
                seen.add(t.instruction)
                out.append((t.instruction, t.goal))
            if len(out) == k:
                break
        return out

    def policy_examples(self, query: PolicyQuery, k: int) -> list[str]:
        """K-shot blocks (App. F listing 1) for the top-K instructions, each cut at the expert step
        whose observation is most like the current one (the authors' code compares observation
        embeddings; we compare the observed facts, which is cheaper and exact)."""

        blocks = []
        for i, _ in self.similar(query.instruction, k):
            trajectory = self.trajectories[i]
            world = world_of_scene(trajectory.task.scene)
            if query.from_initial:  # SayCanPay's offline plan (seed 004 §4): o_0 and as many steps as planned
                cut = min(len(query.history), len(trajectory.actions))
                first = initial_observation_to_text(expert_initial_observation(trajectory.observations), world)
                blocks.append(plan_example(trajectory.task.instruction, first, trajectory.actions[:cut],
                                           trajectory.actions[cut:]))
                continue
            candidates = trajectory.observations[:-1] or trajectory.observations
            step = max(range(len(candidates)),
                       key=lambda j: (observation_similarity(candidates[j], query.observation), -j))
            blocks.append(policy_example(trajectory.task.instruction, trajectory.actions[:step],
                                         observation_to_text(candidates[step], world), trajectory.actions[step:]))
        return blocks

def observation_similarity(a: Observation, b: Observation) -> float:
    """Jaccard similarity of two observations' facts (room, closeness, hand, relations, open/closed)."""
    def facts(o: Observation) -> set:
        return ({("room", o.room), ("near", o.near), ("holding", o.holding)} | set(o.relations)
                | {("open", c) for c in o.open_containers} | {("closed", c) for c in o.closed_containers})

    fa, fb = facts(a), facts(b)
    return len(fa & fb) / max(1, len(fa | fb))


