"""A model of chosen quality: the served stand-in answering wrongly, the way language models are wrong
(``llm-planner serve --error-rate P [--error-seed S]``).

It is one piece because every error kind below writes its wrong sample with the generator
:meth:`ErrorModel.draw` gives that sample (one hash of error seed, question kind, prompt and index)
and finds its neighbours with the one :func:`similar_types`, so which sample is wrong and what it
says are reproduced together; the methods' own error kinds live in their modules.

The seeds' central claims are about *imperfect* language models (LLM-MCTS: search corrects the
model's policy; STaLM: UCT repairs wrong plans; SayCanPay: Can and Pay correct Say; Levy-Karpas:
validation with B = 5 recovers from wrong top predictions). The offline stand-in is nearly
perfect, so none of them shows. :class:`ErrorModel` makes each *sample* of each answer wrong with
probability P:

* **which samples**: one uniform number per sample from a hash of (error seed, question kind, the
  prompt, the sample index), wrong when it is below P. The same question is wrong or right in
  every run (answer caches and re-asked questions agree), and the samples wrong at a rate are a
  subset of those wrong at any higher rate (the curves over P of one seed share their draws).
  With ``correlation`` (``config/serve_errors.yaml``, default 1) a sample takes its question's
  number instead of its own: at 1 a question's samples are wrong together, as a model that does not
  know the answer is wrong in every sample (a vote over M samples cannot out-vote it); at 0 they are
  independent, noise that a vote averages away. The share of wrong samples is P either way;
* **how wrong**: one of the question kind's error kinds (:attr:`ServedKind.wrong
  <llm_planner_eval.stand_in.kinds.ServedKind.wrong>`, weights in ``config/serve_errors.yaml``), drawn
  among those that fit the question; the wrong answer is written in the same style and parses with
  the same readers (a wrong answer, never garbage: faults are ``--fault-rate``'s business).

The error kinds of the stand-in's own questions, each imitating a failure the seed reports:

====================  =====================  ================================================================
question              error kind             what the wrong sample says, and the failure it imitates
====================  =====================  ================================================================
world_model (prior,   ``another_home``       as many places as the right sample, each of the same kind
LLM-MCTS §2.2)                               (Inside a container, On a surface), where common sense keeps
                                             *other* things but not this object (drawn by how much the
                                             commonsense file keeps there): plausible for some home, wrong
                                             for this object. Seed 000 Fig. 6(b): "The LLM predicts the
                                             apple is on the nightstand in the bedroom and on the coffee
                                             table in the living room" (App. D, "model error")
policy (LLM-MCTS      ``unhelpful``          an admissible action that does nothing for the goal: walk to
§2.3 heuristic                               another room or another furniture of this room, open or close
policy; SayCanPay's                          the container the robot is at. Seed 004 §1: LLMs "focus
Say)                                         greedily on the next actionable step without considering its
                                             relevance to the ultimate goal"
                      ``skipped_precondition``  grab a goal object before walking to it (or before finding
                                             it), put the held object before walking to (or opening) the
                                             destination, open a container from afar. Seed 000 §4: "you have
                                             to walk close to interact with the object ... the LLM outputs
                                             'open fridge' but is not close enough"; seed 004 §1: "grab milk
                                             from the fridge even if the door is closed" (Say's mass on
                                             infeasible actions)
                      ``repeated``           back and forth: close what was just opened (or the reverse),
                                             walk back to the room it came from, take back what it just put,
                                             else the last action again. Seed 000 §4: "it is sometimes stuck
                                             by repeatedly opening and closing the microwave"
                      ``absent_object``      walk to / grab an object the apartment does not have, the
                                             commonsense neighbour of a goal object ("walk to the cutlery
                                             fork" when there is a cutlery knife). Seed 000 §4 and Fig. 6(a):
                                             "it usually outputs inadmissible actions, such as 'walk to the
                                             cutleryfork' where the 'cutleryfork' is not in the observation"
translate (goal,      ``wrong_count``        one item's count one more (while the house holds that many) or
LLM-MCTS §2.2)                               one less. Seed 000 §4: "The wrong translation also compromises
                                             the performance"
                      ``neighbour_object``   one item's object swapped for a similar object of the house
                                             (seed 001 Table 3's "baking tool" read as the wrong tool)
====================  =====================  ================================================================

The methods' kinds have their own (:mod:`.stalm_wrong_plans`: a plan that ignores an occlusion or
misorders its steps; :mod:`.levy_karpas_wrong_answers`: a wrong count or object). Like the
right answers, the wrong ones come from the prompt alone and the commonsense file: they never read a
scene file, the simulator or its hidden truth. "Similar objects" are ranked by the overlap of where
the commonsense file keeps them (cosine of the place weights) plus a bonus for a shared word.
"""
from __future__ import annotations

import hashlib
import math
import random
import re
import threading
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from llm_planner.domains.household.language.commonsense import scene_knowledge
from llm_planner.domains.household.language.text import WorldInfo, action_to_text, text_to_name
from llm_planner.domains.household.world.commonsense import Commonsense, load_commonsense
from llm_planner.domains.household.world.words import name_to_text
from llm_planner.errors import ConfigError
from llm_planner.paths import config_dir, read_yaml_mapping
from llm_planner_eval.stand_in.kinds import Sample, WrongAnswer, served_kinds
from llm_planner_eval.stand_in.served import policy_question, translate_question, world_model_question

NONE_FITS = "none fits"
#: The error profile of wrong answers that all read (``weights`` of ``config/serve_errors.yaml``).
ADMISSIBLE = "admissible"


# ------------------------------------------------------------------------------ settings
@dataclass(frozen=True)
class ErrorSettings:
    """``config/serve_errors.yaml``: weights of the error kinds per question kind, and how similar
    objects are found."""

    weights: Mapping[str, Mapping[str, float]]
    neighbours: int = 3
    shared_word_bonus: float = 0.5
    path: str = ""
    #: share of each sample's draw taken from its question's: 1 = a question's samples are wrong
    #: together (a model that does not know), 0 = each sample on its own (noise a vote averages away)
    correlation: float = 1.0
    #: the error profile the weights are of (``profiles`` of the file; ``admissible``: its ``weights``)
    profile: str = ADMISSIBLE


def _weights(table: Any, where: str) -> dict[str, dict[str, float]]:
    """Error kind weights per question kind, checked (``where`` names them in messages)."""
    weights: dict[str, dict[str, float]] = {}
    for kind, errors in (table or {}).items():
        if not isinstance(errors, Mapping):
            raise ConfigError(f"{where}.{kind} must map error kinds to weights, got {errors!r}")
        for error, weight in errors.items():
            if not isinstance(weight, (int, float)) or isinstance(weight, bool) or weight < 0:
                raise ConfigError(f"{where}.{kind}.{error} must be a number >= 0, got {weight!r}")
        weights[str(kind)] = {str(e): float(w) for e, w in errors.items()}
    return weights


def error_profiles(path: str | None = None) -> tuple[str, ...]:
    """The error profiles of ``config/serve_errors.yaml`` (or ``path``): ``admissible`` and those under
    ``profiles``."""
    source = Path(path) if path else config_dir() / "serve_errors.yaml"
    data = read_yaml_mapping(source, "the error kinds of llm-planner serve")
    return (ADMISSIBLE, *(str(name) for name in (data.get("profiles") or {}) if name != ADMISSIBLE))


@lru_cache(maxsize=8)
def load_error_settings(path: str | None = None, profile: str = ADMISSIBLE) -> ErrorSettings:
    """Read and check ``config/serve_errors.yaml`` (or ``path``) for an error profile: ``admissible``
    takes its ``weights``; another profile's weights replace those of the question kinds it lists
    (an error kind it does not list weighs 0 there) and keep ``weights`` for the others."""
    source = Path(path) if path else config_dir() / "serve_errors.yaml"
    data = read_yaml_mapping(source, "the error kinds of llm-planner serve")
    weights = _weights(data.get("weights"), f"{source}: weights")
    if profile != ADMISSIBLE:
        profiles = data.get("profiles") or {}
        if profile not in profiles:
            raise ConfigError(f"no error profile '{profile}' in {source} (profiles: "
                              f"{', '.join(error_profiles(path))})")
        spec = profiles[profile]
        if not isinstance(spec, Mapping) or not isinstance(spec.get("weights"), Mapping):
            raise ConfigError(f"{source}: profiles.{profile} needs 'weights' per question kind")
        for kind, table in _weights(spec["weights"], f"{source}: profiles.{profile}.weights").items():
            weights[kind] = {**{error: 0.0 for error in weights.get(kind, {})}, **table}
    neighbours = data.get("neighbours", 3)
    bonus = data.get("shared_word_bonus", 0.5)
    if not isinstance(neighbours, int) or neighbours < 1:
        raise ConfigError(f"{source}: neighbours must be an integer >= 1, got {neighbours!r}")
    if not isinstance(bonus, (int, float)) or bonus < 0:
        raise ConfigError(f"{source}: shared_word_bonus must be a number >= 0, got {bonus!r}")
    correlation = data.get("correlation", 1.0)
    if not isinstance(correlation, (int, float)) or isinstance(correlation, bool) or not 0 <= correlation <= 1:
        raise ConfigError(f"{source}: correlation must be a number in [0, 1], got {correlation!r}")
    return ErrorSettings(weights, neighbours, float(bonus), str(source), float(correlation), profile)


def seed_marks(benchmark: str) -> dict[str, dict[str, float]]:
    """The seed's own figures (success %) per method and split, for the curves of ``--error-rates``
    (``seed_marks`` of ``config/serve_errors.yaml``)."""
    data = read_yaml_mapping(config_dir() / "serve_errors.yaml", "the error kinds of llm-planner serve")
    marks = (data.get("seed_marks") or {}).get(benchmark) or {}
    return {str(m): {str(k): float(v) for k, v in (splits or {}).items()} for m, splits in marks.items()}


# ------------------------------------------------------------------------------ the error model
class ErrorModel:
    """Which samples are wrong and how (see the module docstring); counts what it did (thread-safe)."""

    def __init__(self, rate: float, seed: int = 0, settings: ErrorSettings | None = None,
                 any_kind: Mapping[str, WrongAnswer] | None = None) -> None:
        if not 0.0 <= rate <= 1.0 or math.isnan(rate):
            raise ConfigError(f"--error-rate must be in [0, 1], got {rate}")
        self.rate = float(rate)
        self.seed = int(seed)
        self.settings = settings or load_error_settings()
        #: error kinds that fit every question kind (a profile weighs them; unweighed, they weigh 0)
        self.any_kind = dict(any_kind or {})
        self._counts: Counter[str] = Counter()
        self._lock = threading.Lock()
        self._check()

    def _check(self) -> None:
        """Every question kind and error kind the settings weigh exists (a typo fails at start)."""
        known = {k.name: {**k.wrong, **self.any_kind} for k in served_kinds()}
        for kind, table in self.settings.weights.items():
            if kind not in known:
                raise ConfigError(f"{self.settings.path}: weights.{kind}: no served question kind '{kind}' "
                                  f"(kinds: {', '.join(sorted(known))})")
            unknown = sorted(set(table) - set(known[kind]))
            if unknown:
                raise ConfigError(f"{self.settings.path}: weights.{kind}: unknown error kind(s) {', '.join(unknown)} "
                                  f"(error kinds of {kind}: {', '.join(sorted(known[kind])) or 'none'})")

    def draw(self, kind: str, prompt: str, index: int) -> random.Random | None:
        """The generator of sample ``index``'s wrong answer, or None when that sample stays right.

        The sample's uniform number is its question's (hash without the index) with probability
        ``correlation``, else its own; either way it is uniform, so the share of wrong samples is the
        rate whatever the correlation."""
        if self.rate <= 0.0:
            return None
        own = _digest(f"{self.seed}|{kind}|{index}|", prompt)
        shared = _unit(own[8:12]) < self.settings.correlation
        u = _unit(_digest(f"{self.seed}|{kind}|", prompt)[:8]) if shared else _unit(own[:8])
        if u >= self.rate:
            return None
        return random.Random(int.from_bytes(own[12:], "big"))

    def apply(self, model: Any, kind: str, prompt: str, samples: Sequence[Sample]) -> list[Sample]:
        """The samples with those drawn wrong replaced by a wrong answer of their kind."""
        if self.rate <= 0.0:
            return list(samples)
        served = next((k for k in served_kinds() if k.name == kind), None)
        weighed = self.settings.weights.get(kind, {})
        errors = {**served.wrong, **{name: wrong for name, wrong in self.any_kind.items() if weighed.get(name)}} \
            if served is not None else {}
        out = []
        for index, sample in enumerate(samples):
            rng = self.draw(kind, prompt, index)
            if rng is None or sample.kind != kind or not errors:
                out.append(sample)
                continue
            wrong, error = self._wrong(model, kind, prompt, sample, rng, errors)
            with self._lock:
                self._counts[f"{kind}/{error}"] += 1
            out.append(wrong)
        return out

    def _wrong(self, model: Any, kind: str, prompt: str, sample: Sample, rng: random.Random,
               errors: Mapping[str, WrongAnswer]) -> tuple[Sample, str]:
        """The first error kind, in an order drawn by the weights, that fits (else the right sample)."""
        weights = self.settings.weights.get(kind, {})
        pool = {name: float(weights.get(name, 0.0 if name in self.any_kind else 1.0)) for name in sorted(errors)}
        pool = {name: w for name, w in pool.items() if w > 0}
        while pool:
            names = list(pool)
            name = rng.choices(names, [pool[n] for n in names])[0]
            del pool[name]
            wrong = errors[name](model, prompt, sample, rng)
            if wrong is not None and wrong.data != sample.data:
                return wrong, name
        return sample, NONE_FITS

    def counts(self) -> dict[str, int]:
        """``{"policy/repeated": 12, ..., "policy/none fits": 1}``: the wrong samples served, by kind."""
        with self._lock:
            return dict(self._counts)

    def __str__(self) -> str:
        return f"{self.rate:.0%} wrong answers (seed {self.seed})" if self.rate else "no wrong answers"


def _digest(head: str, prompt: str) -> bytes:
    return hashlib.blake2b(head.encode() + prompt.encode(), digest_size=24).digest()


def _unit(data: bytes) -> float:
    """Bytes as a number in [0, 1)."""
    return int.from_bytes(data, "big") / 2.0 ** (8 * len(data))


# ------------------------------------------------------------------------------ shared helpers
def commonsense_of(model: Any) -> Commonsense:
    """The commonsense file the served model's offline backend reads."""
    path = None
    config = getattr(getattr(getattr(model, "backend", None), "resources", None), "config", None)
    if config is not None:
        try:
            path = config.get("offline.commonsense")
        except Exception:  # noqa: BLE001 - no such key: the default file
            path = None
    return load_commonsense(path or None)


def similar_types(obj_type: str, candidates: Sequence[str], commonsense: Commonsense,
                  settings: ErrorSettings | None = None) -> list[str]:
    """``candidates`` (object type names) most similar to ``obj_type`` first: cosine of where the
    commonsense file keeps them, plus a bonus when the names share a word; ties by name."""
    settings = settings or load_error_settings()
    index = commonsense.alias_index()

    def places(name: str) -> Mapping[str, float]:
        entry = index.get(name_to_text(name))
        return commonsense.objects.get(entry, {}) if entry else {}

    mine = places(obj_type)
    words = set(name_to_text(obj_type).split())
    norm = math.sqrt(sum(w * w for w in mine.values()))

    def score(name: str) -> float:
        theirs = places(name)
        other = math.sqrt(sum(w * w for w in theirs.values()))
        cosine = sum(w * theirs.get(p, 0.0) for p, w in mine.items()) / (norm * other) if norm and other else 0.0
        return cosine + settings.shared_word_bonus * bool(words & set(name_to_text(name).split()))

    return sorted((c for c in candidates if c != obj_type), key=lambda c: (-score(c), c))


def neighbour(obj_type: str, candidates: Sequence[str], rng: random.Random, model: Any = None) -> str | None:
    """One of the ``neighbours`` candidates most similar to ``obj_type`` (None: no candidate)."""
    settings = load_error_settings()
    ranked = similar_types(obj_type, sorted(set(candidates)), commonsense_of(model), settings)
    return rng.choice(ranked[:settings.neighbours]) if ranked else None


def named_in(text: str, names: Sequence[str]) -> list[str]:
    """The names (``kitchen_table``, ``apple``) a sentence mentions, singular or plural."""
    lowered = " ".join(text.lower().split())
    return [n for n in names if re.search(rf"\b{re.escape(name_to_text(n))}(?:e?s)?\b", lowered)]


def _text(name: str) -> str:
    return name_to_text(name)


# ------------------------------------------------------------------------------ world model (prior)
def _kept_weights(knowledge: Any) -> dict[str, float]:
    """Scene furniture -> how much the commonsense file keeps there, all objects together."""
    totals: Counter[str] = Counter()
    for weights in knowledge.commonsense.objects.values():
        for place, weight in weights.items():
            totals[place] += weight
    out: Counter[str] = Counter()
    for link in knowledge.links:
        out[link.furniture] += totals.get(link.place, 0.0) * link.factor
    return dict(out)


def world_model_another_home(model: Any, prompt: str, sample: Sample, rng: random.Random) -> Sample | None:
    """``another_home``: as many places as the right sample, each of the same kind, where common
    sense keeps other things but not this object (see the module docstring)."""
    world, obj_type = world_model_question(prompt)
    knowledge = scene_knowledge(model.backend.resources, world)
    kept_here = knowledge.place_weights(obj_type)
    kept_anything = _kept_weights(knowledge)
    right = [(str(rel), text_to_name(str(place))) for rel, place in sample.data.get("positions", [])]
    named = {place for _rel, place in right}
    relations = [rel for rel, _place in right] or [rng.choice(("inside", "on"))]
    chosen: list[list[str]] = []
    for rel in relations:
        pool = world.containers if rel == "inside" else world.surfaces
        taken = named | {text_to_name(p) for _r, p in chosen}
        candidates = [f for f in pool if f not in taken and not kept_here.get(f)] or \
                     [f for f in pool if f not in taken]
        if not candidates:
            continue
        place = rng.choices(candidates, [kept_anything.get(f, 0.0) + 1.0 for f in candidates])[0]
        chosen.append([rel, _text(place)])
    if not chosen:
        return None
    return Sample(sample.kind, {**sample.data, "positions": chosen})


# ------------------------------------------------------------------------------ policy and Say
@dataclass(frozen=True)
class _Situation:
    world: WorldInfo
    goal: str
    observation: Any
    history: tuple
    goal_types: list[str]
    goal_places: list[str]


def _situation(prompt: str) -> _Situation:
    world, goal, observation, history = policy_question(prompt)
    return _Situation(world, goal, observation, history, named_in(goal, world.object_types),
                      named_in(goal, world.furniture))


def _action_sample(sample: Sample, candidates: Sequence[str], rng: random.Random) -> Sample | None:
    right = [str(a) for a in sample.data.get("next_actions", [])]
    candidates = [c for c in dict.fromkeys(candidates) if c not in right]
    if not candidates:
        return None
    return Sample(sample.kind, {**sample.data, "next_actions": [rng.choice(candidates)]})


def _put(obj: str, dest: str, world: WorldInfo) -> str:
    return f"put the {_text(obj)} {'inside' if dest in world.containers else 'on'} the {_text(dest)}"


def policy_unhelpful(model: Any, prompt: str, sample: Sample, rng: random.Random) -> Sample | None:
    """``unhelpful``: an admissible action that does nothing for the goal."""
    s = _situation(prompt)
    obs, world = s.observation, s.world
    candidates = [f"walk to the {_text(r)}" for r in world.rooms if r != obs.room
                  and r not in named_in(s.goal, world.rooms)]
    candidates += [f"walk to the {_text(f)}" for f in world.furniture
                   if world.furniture_room.get(f) == obs.room and f != obs.near and f not in s.goal_places]
    if obs.near in world.containers and obs.near not in s.goal_places:
        candidates.append(f"{'close' if obs.near in obs.open_containers else 'open'} the {_text(obs.near)}")
    return _action_sample(sample, candidates, rng)


def policy_skipped_precondition(model: Any, prompt: str, sample: Sample, rng: random.Random) -> Sample | None:
    """``skipped_precondition``: grab before walking there (or finding it), put before walking to or
    opening the destination, open from afar."""
    s = _situation(prompt)
    obs, world = s.observation, s.world
    candidates: list[str] = []
    if obs.holding is None:
        visible = {o: f for _rel, o, f in obs.relations}
        candidates += [f"grab the {_text(o)}" for o, f in sorted(visible.items())
                       if world.object_type.get(o) in s.goal_types and f != obs.near]
        if not candidates:  # not found yet: grab it anyway
            candidates += [f"grab the {_text(o)}" for o, t in sorted(world.object_type.items())
                           if t in s.goal_types and o not in visible][:3]
        candidates += [f"open the {_text(c)}" for c in s.goal_places
                       if c in world.containers and c != obs.near and c not in obs.open_containers]
    else:
        for dest in s.goal_places:
            closed = dest in world.containers and dest not in obs.open_containers
            if dest != obs.near or closed:
                candidates.append(_put(obs.holding, dest, world))
    return _action_sample(sample, candidates, rng)


def policy_repeated(model: Any, prompt: str, sample: Sample, rng: random.Random) -> Sample | None:
    """``repeated``: back and forth (undo the last action), else the last action again."""
    s = _situation(prompt)
    if not s.history:
        return None
    obs, world = s.observation, s.world
    last = s.history[-1]
    target = last.args[0] if last.args else ""
    if last.verb == "open":
        action = f"close the {_text(target)}"
    elif last.verb == "close":
        action = f"open the {_text(target)}"
    elif last.verb in ("putin", "puton"):
        action = f"grab the {_text(target)}"
    elif last.verb == "grab" and obs.near and obs.holding:
        action = _put(obs.holding, obs.near, world)
    elif last.verb == "walk" and target in world.rooms:
        before = [a.args[0] for a in s.history[:-1] if a.verb == "walk" and a.args[0] in world.rooms
                  and a.args[0] != target]
        action = f"walk to the {_text(before[-1])}" if before else action_to_text(last)
    else:
        action = action_to_text(last)
    return _action_sample(sample, [action], rng)


def policy_absent_object(model: Any, prompt: str, sample: Sample, rng: random.Random) -> Sample | None:
    """``absent_object``: walk to or grab the commonsense neighbour of a goal object that the
    apartment does not have."""
    s = _situation(prompt)
    commonsense = commonsense_of(model)
    present = set(s.world.object_types)
    absent = sorted({text_to_name(t) for t in commonsense.objects} - present)
    base = rng.choice(sorted(s.goal_types or present))
    other = neighbour(base, absent, rng, model)
    if other is None:
        return None
    instance = _text(f"{other}_1")
    verbs = ["walk to the", "grab the"] if s.observation.holding is None else ["walk to the"]
    return _action_sample(sample, [f"{verb} {instance}" for verb in verbs], rng)


# ------------------------------------------------------------------------------ translation
def _translate_question(prompt: str) -> tuple[WorldInfo, str]:
    return translate_question(prompt)


def _goal(sample: Sample) -> list[list[Any]]:
    return [list(item) for item in sample.data.get("goal", [])]


def translate_wrong_count(model: Any, prompt: str, sample: Sample, rng: random.Random) -> Sample | None:
    """``wrong_count``: one item's count one more (while the house holds that many) or one less."""
    goal = _goal(sample)
    if not goal:
        return None
    world, _directive = _translate_question(prompt)
    have = Counter(world.object_type.values())
    options = []
    for i, (_rel, obj, _dest, count) in enumerate(goal):
        asked = sum(int(item[3]) for item in goal if item[1] == obj)
        if asked + 1 <= have.get(obj, 0):
            options.append((i, int(count) + 1))
        if int(count) > 1:
            options.append((i, int(count) - 1))
    if not options:
        return None
    i, count = rng.choice(options)
    goal[i][3] = count
    return Sample(sample.kind, {**sample.data, "goal": goal})


def translate_neighbour_object(model: Any, prompt: str, sample: Sample, rng: random.Random) -> Sample | None:
    """``neighbour_object``: one item's object swapped for a similar object of the house."""
    goal = _goal(sample)
    if not goal:
        return None
    world, _directive = _translate_question(prompt)
    have = Counter(world.object_type.values())
    i = rng.randrange(len(goal))
    taken = {item[1] for item in goal}
    other = neighbour(str(goal[i][1]), [t for t in world.object_types if t not in taken], rng, model)
    if other is None:
        return None
    goal[i][1] = other
    goal[i][3] = max(1, min(int(goal[i][3]), have.get(other, 1)))
    return Sample(sample.kind, {**sample.data, "goal": goal})


#: The stand-in's own question kinds' error kinds (registered with their kinds in ``served.py``).
WRONG: dict[str, dict[str, WrongAnswer]] = {
    "world_model": {"another_home": world_model_another_home},
    "policy": {"unhelpful": policy_unhelpful, "skipped_precondition": policy_skipped_precondition,
               "repeated": policy_repeated, "absent_object": policy_absent_object},
    "translate": {"wrong_count": translate_wrong_count, "neighbour_object": translate_neighbour_object},
}
