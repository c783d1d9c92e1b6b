"""Backend ``offline`` (the default): the planners' questions answered without a generative model,
deterministically for a seed, from what a language model would be told and nothing else.

================  ===========================================================================
question          how it is answered
================  ===========================================================================
object_positions  M sampled answers from the curated commonsense file (domains/household/world/data/commonsense.yaml),
                  its general place names matched to the scene's furniture by Sentence-BERT;
                  each answer lists one to three places drawn by plausibility.
next_actions      the retrieval policy over the expert data set D (household language): top similar
                  instructions, nearest matching expert situations, adapted to the current
                  objects; M samples drawn among the candidate places where one must search.
translate         the directive reader (``llm_planner.reading.read_directive``).
candidate_actions the retrieval policy's proposals, grounded onto the admissible actions, with
                  the probabilities of the §2.3 empirical distribution (SayCanPay's Say).
================  ===========================================================================

A question of a kind a method registered (``answer(kind, ...)``, e.g. STaLM's ``task_plans``) is
answered by the ``offline`` answerer the method registered (:mod:`llm_planner.llm.questions`).

It never reads a scene's ``places`` distributions or a placement: it sees rooms, furniture and
object names (WorldInfo), the directive, the robot's observations and actions, and D. It is
imperfect where its heuristics are: common sense that differs from a home, a goal phrased beyond
the parser's grammar, a situation D never shows.
"""
from __future__ import annotations

import random

from llm_planner.domains.household.language.commonsense import scene_knowledge
from llm_planner.domains.household.language.policy_query import PolicyQuery
from llm_planner.domains.household.language.retrieval_policy import retrieval_policy
from llm_planner.domains.household.language.text import WorldInfo
from llm_planner.domains.household.world.symbolic import INSIDE, Goal
from llm_planner.domains.household.world.words import name_to_text
from llm_planner.errors import GoalError, LLMError
from llm_planner.llm.base import ActionSamples, AnswerInfo, GoalTuples, LanguageModel, PositionSamples
from llm_planner.reading import read_directive

MODEL = "commonsense-retrieval-1"


class OfflineBackend(LanguageModel):
    """See the module docstring."""

    name = "offline"

    @property
    def model(self) -> str:
        return MODEL

    def prepare(self) -> None:
        """D and the retrieval policy's abstracted expert steps."""
        if self.resources.has_expert():
            retrieval_policy(self.resources)

    # ---------------------------------------------------------------- world model
    def object_positions(self, world: WorldInfo, obj_type: str, m: int | None = None,
                         seed: int | None = None) -> PositionSamples:
        opts = self.config.section("world_model")
        m = int(m or opts["samples"])
        seed = int(opts["seed"] if seed is None else seed)
        with self._question():
            weights = scene_knowledge(self.resources, world).place_weights(obj_type)
            rng = random.Random(f"positions|{seed}|{obj_type}")
            samples, raw = [], []
            for _ in range(m):
                answer = _draw_places(weights, rng)
                samples.append(tuple((world.relation(p), p) for p in answer))
                raw.append(", ".join(f"{'Inside' if world.relation(p) == INSIDE else 'On'} {name_to_text(p)}"
                                     for p in answer) or "I do not know")
        return PositionSamples(obj_type, tuple(s for s in samples if s), tuple(raw), self._info())

    # --------------------------------------------------------------------- policy
    def _goal(self, query: PolicyQuery) -> Goal:
        if query.goal:
            return query.goal
        try:
            return read_directive(query.instruction, query.world, self.resources)
        except GoalError as exc:
            raise LLMError(f"offline policy: cannot read the goal of '{query.instruction}': {exc}") from None

    def next_actions(self, query: PolicyQuery, m: int | None = None, k: int | None = None,
                     seed: int | None = None) -> ActionSamples:
        opts = self.config.section("policy")
        m = int(m or opts["samples"])
        seed = int(opts["seed"] if seed is None else seed)
        with self._question():
            texts, done = self._propose(query, m, seed)
        return ActionSamples(tuple(texts), done, tuple(texts) + ("done",) * done, self._info())

    def _propose(self, query: PolicyQuery, m: int, seed: int) -> tuple[list[str], int]:
        return retrieval_policy(self.resources).propose(query, self._goal(query),
                                                        scene_knowledge(self.resources, query.world),
                                                        m, seed)

    def _say_samples(self, query: PolicyQuery, n: int, k: int) -> tuple[list[str], AnswerInfo]:
        texts, _done = self._propose(query, n, int(self.config.get("policy.seed")))
        return texts, self._info()

    # ------------------------------------------------------------------ translate
    def translate(self, world: WorldInfo, directive: str) -> GoalTuples:
        with self._question():
            goal = read_directive(directive, world, self.resources)
        tuples = tuple((i.rel, i.obj_type, i.destination, i.count) for i in goal)
        raw = "-".join(f"({r.upper()}, {o}, {d}, {c})" for r, o, d, c in tuples)
        return GoalTuples(tuples, raw, self._info())


def _draw_places(weights: dict[str, float], rng: random.Random) -> list[str]:
    """One answer: one to three places, drawn without replacement in proportion to plausibility."""
    if not weights:
        return []
    places = list(weights)
    w = [weights[p] for p in places]
    size = min(len(places), rng.choices((1, 2, 3), (0.3, 0.4, 0.3))[0])
    out: list[str] = []
    for _ in range(size):
        pick = rng.choices(range(len(places)), w)[0]
        out.append(places.pop(pick))
        w.pop(pick)
    return out
