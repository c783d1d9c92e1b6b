"""Household rearrangement tasks: the suites of LLM-MCTS (seed 000, §3.1 and Appendix A.2).

Suites (``SUITES``):

* ``simple``: move one object; its (object type, destination) pair is a *training* pair.
* ``comp``: two training pairs whose composition is a *training composition* (appears in D).
* ``novel_simple``: one object; a *novel* pair (absent from D, with a seen type and destination).
* ``novel_comp2``: two training pairs whose composition is not a training composition.
* ``novel_comp3``: three training pairs (D holds no three-item task).

State suites (``STATE_SUITES``, issue 44; not in ``SUITES``, the seed's table):

* ``states``: one or two state items of different things: a switchable thing on that is off at
  the start or off that is on, a container open (every container starts closed).
* ``states_mixed``: a training placement pair and a state item: one as in ``states`` (said first),
  or, when the destination is a container, that it be closed again (said last, "close it").

A state task's start state (its placement seed) never satisfies the whole goal; every state item
but "close the destination again" needs work there, and so does the placement.

The split of the shipped apartments is fixed data, ``config/household_tasks.yaml``: per object type
its training and novel destinations, and the hash rule that splits compositions of training pairs
(see that file). Any other apartment gets a split built from its own file
(:func:`scene_task_config`, "tasks from the apartment itself"): its training pairs are the
(object type, furniture) pairs of the scene's ``places`` (where the apartment keeps things, as D's
tasks come from the scene distribution in §3.1), its novel pairs up to ``scene_split.novel_per_type``
furniture per type that stand in a room where the type is kept but that its ``places`` do not list
(plausible receptacles, never where the type starts), drawn reproducibly from the scene's name; the
compositions follow the same hash rule. A tasks file passed explicitly (``bench household --tasks
FILE``) overrides either. The expert data set D (``llm_planner/domains/household/world/expert.py``)
is generated from the simple and comp suites only, so the novel suites stay novel. A task is never
already (even partly) satisfied at the start state of its placement seed: every goal item needs at
least one object moved. Goals pass :meth:`Household.check_goal`; the items of one task have
different object types.

Instruction grammar (lower case; items in the goal's order; a goal parser may rely on it)::

    instruction := OPENER clause [rest] END
    clause      := VERB " " item
    rest        := " and " [VERB " "] item                                 (two items)
                 | ", " [VERB " "] item " and " [VERB " "] item            (three items)
    item        := COUNT " " NOUN " " REL " the " DEST
    OPENER      := "" | "please " | "could you " | "can you "
    END         := "?" after "could you"/"can you", else "" or "."
    VERB        := put | place | move
    COUNT       := one | a | an   (count 1; "an" before a vowel) | two (2) | three (3)
                 | the | one of the   (count 1 of a type whose name is a plural, not a pair:
                                       "the biscuits" when the apartment has one, else "one of the")
    NOUN        := the object type with "_" -> " ", plural when COUNT > 1 (English rule:
                   +es after s/x/z/ch/sh, consonant+y -> ies, else +s; overrides in the YAML;
                   a name that is already a plural stays as it is)
                 | "pair of " / "pairs of " + the type   (a noun counted in pairs, pair_nouns.PAIR_NOUNS:
                                                          "a pair of scissors", "two pairs of headphones")
    REL         := inside | in | into       (destination is a container: INSIDE)
                 | on | onto | on top of    (destination is a surface: ON)
    DEST        := the furniture name with "_" -> " "

Example: ``"please put one apple inside the fridge and two plates on the kitchen table."`` is the
goal ``((inside, apple, fridge, 1), (on, plate, kitchen_table, 2))``.

The state suites' instructions, clauses in the goal's order::

    instruction := OPENER clause [" and " clause] END
    clause      := STATE " the " THING | VERB " " item | "close it" | "shut it"
    STATE       := turn on | switch on (on) | turn off | switch off (off) | open (open) | close | shut (closed)
    THING       := the switchable thing or container, "_" -> " "

"it" is the destination of the placement just said: ``"put a milk inside the fridge and close
it."`` is ``((inside, milk, fridge, 1), (closed, fridge))``; ``"turn on the tv and put a remote
control on the sofa"`` is ``((on, tv), (on, remote_control, sofa, 1))``.
"""
from __future__ import annotations

import dataclasses
import hashlib
import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import combinations
from pathlib import Path
from typing import Any

import yaml

from llm_planner.domains.household.world.pair_nouns import is_pair_noun
from llm_planner.domains.household.world.scene import Scene, load_scene
from llm_planner.domains.household.world.symbolic import (
    CLOSED,
    OFF,
    OPEN,
    SWITCHED_ON,
    Goal,
    GoalItem,
    Household,
    State,
    goal_from_lists,
    goal_to_lists,
    state_goal,
)
from llm_planner.errors import ConfigError
from llm_planner.paths import config_dir

SUITES = ("simple", "comp", "novel_simple", "novel_comp2", "novel_comp3")
STATE_SUITES = ("states", "states_mixed")
ALL_SUITES = SUITES + STATE_SUITES
TRAINING_SUITES = ("simple", "comp")
SUITE_ITEMS = {"simple": 1, "comp": 2, "novel_simple": 1, "novel_comp2": 2, "novel_comp3": 3}
TASKS_CONFIG = config_dir() / "household_tasks.yaml"
MAX_PLACEMENTS = 100  # placement seeds tried per task before giving up (a broken configuration)

Pair = tuple[str, str]  # (object type, destination furniture)
#: the state clauses' words when the tasks YAML names none
STATE_WORDS: Mapping[str, tuple[str, ...]] = {OPEN: ("open",), CLOSED: ("close", "shut"),
                                              SWITCHED_ON: ("turn on", "switch on"), OFF: ("turn off", "switch off")}


@dataclass(frozen=True)
class HouseholdTask:
    """One generated task: an instruction, its formal goal, and the start state (scene + seed)."""

    task_id: str
    suite: str
    instruction: str
    goal: Goal
    scene: str
    placement_seed: int

    def to_dict(self) -> dict[str, Any]:
        return {"task_id": self.task_id, "suite": self.suite, "instruction": self.instruction,
                "goal": goal_to_lists(self.goal), "scene": self.scene, "placement_seed": self.placement_seed}

    @staticmethod
    def from_dict(data: Mapping[str, Any]) -> HouseholdTask:
        return HouseholdTask(str(data["task_id"]), str(data["suite"]), str(data["instruction"]),
                             goal_from_lists(data["goal"]), str(data["scene"]), int(data["placement_seed"]))


@dataclass(frozen=True)
class Phrasing:
    """The words of the instruction grammar (the ``phrasing`` section of the tasks YAML)."""

    openers: tuple[str, ...]
    verbs: tuple[str, ...]
    count_words: Mapping[int, tuple[str, ...]]
    relation_words: Mapping[str, tuple[str, ...]]
    nouns: Mapping[str, Mapping[str, str]]
    repeat_verb_probability: float = 0.5  # a later item repeats a VERB ("... and put two plates ...")
    period_probability: float = 0.5  # a statement ends with "." (questions always end with "?")
    #: the words of a state clause per relation (open, closed, on, off)
    state_words: Mapping[str, tuple[str, ...]] = dataclasses.field(default_factory=lambda: dict(STATE_WORDS))


@dataclass(frozen=True)
class TaskConfig:
    """The fixed split and generation parameters (``config/household_tasks.yaml``)."""

    train_pairs: frozenset[Pair]
    novel_pairs: frozenset[Pair]
    train_composition_fraction: float
    count_two_probability: float
    max_tries_per_task: int
    phrasing: Phrasing
    #: the apartments these pairs are the split of (empty: any apartment, an explicit override)
    scenes: frozenset[str] = frozenset()
    novel_per_type: int = 2  # scene-built splits: novel destinations per object type
    source: str = "config/household_tasks.yaml"  # where the pairs come from (said by --list-tasks)

    def is_training_composition(self, pairs: Sequence[Pair]) -> bool:
        """Whether a two-item composition of training pairs belongs to the training data D."""
        if len(pairs) != 2 or not all(p in self.train_pairs for p in pairs):
            return False
        key = "|".join(sorted(f"{t}:{d}" for t, d in pairs))
        bucket = int(hashlib.sha256(key.encode()).hexdigest()[:8], 16) % 1000
        return bucket < 1000 * self.train_composition_fraction


def goal_pairs(goal: Sequence[GoalItem]) -> tuple[Pair, ...]:
    """The (object type, destination) pairs of a goal, in order."""
    return tuple((g.obj_type, g.destination) for g in goal)


# ------------------------------------------------------------------------------- config
@lru_cache(maxsize=8)
def load_task_config(path: str | Path | None = None) -> TaskConfig:
    """Load and check the tasks YAML; errors name the file and the entry."""
    path = Path(path) if path is not None else TASKS_CONFIG
    try:
        data = yaml.safe_load(path.read_text())
    except (OSError, yaml.YAMLError) as exc:
        raise ConfigError(f"{path}: cannot read the task configuration: {exc}") from None
    try:
        config = _parse_task_config(data)
    except (ConfigError, KeyError, TypeError, ValueError) as exc:
        raise ConfigError(f"{path}: {exc}") from None
    return dataclasses.replace(config, source=_shown(path))


def _shown(path: Path) -> str:
    try:
        return str(path.resolve().relative_to(config_dir().parent))
    except ValueError:
        return str(path)


def _parse_task_config(data: Any) -> TaskConfig:
    if not isinstance(data, dict) or not isinstance(data.get("pairs"), dict):
        raise ConfigError("expected a mapping with 'pairs' (object type -> {train: [...], novel: [...]})")
    train: set[Pair] = set()
    novel: set[Pair] = set()
    for obj_type, spec in data["pairs"].items():
        if not isinstance(spec, dict) or not spec.get("train"):
            raise ConfigError(f"pairs.{obj_type}: needs a non-empty 'train' list of destinations")
        train.update((obj_type, d) for d in spec["train"])
        novel.update((obj_type, d) for d in spec.get("novel") or [])
    both = train & novel
    if both:
        raise ConfigError(f"pairs: {sorted(both)[0]} is listed as both train and novel")
    seen_destinations = {d for _, d in train}
    for obj_type, dest in sorted(novel):
        if dest not in seen_destinations:
            raise ConfigError(f"pairs.{obj_type}.novel: destination '{dest}' appears in no training pair")
    fraction = float(data.get("train_composition_fraction", 0.5))
    p_two = float(data.get("count_two_probability", 0.0))
    for name, value in (("train_composition_fraction", fraction), ("count_two_probability", p_two)):
        if not 0.0 <= value <= 1.0:
            raise ConfigError(f"{name}: must lie in [0, 1], got {value}")
    split = data.get("scene_split") or {}
    novel_per_type = int(split.get("novel_per_type", 2))
    if novel_per_type < 0:
        raise ConfigError(f"scene_split.novel_per_type: must be >= 0, got {novel_per_type}")
    return TaskConfig(frozenset(train), frozenset(novel), fraction, p_two,
                      int(data.get("max_tries_per_task", 200)), _parse_phrasing(data.get("phrasing") or {}),
                      frozenset(str(s) for s in data.get("scenes") or ()), novel_per_type)


def scene_task_config(scene: Scene, base: TaskConfig | None = None) -> TaskConfig:
    """The split of an apartment built from its own file (see the module docstring): training pairs
    from ``places``, novel pairs from plausible furniture ``places`` does not list; the composition
    rule, counts and phrasing of ``base`` (the tasks YAML)."""
    base = base or load_task_config()
    train = {(t.name, place) for t in scene.object_types.values() for place, _ in t.places}
    seen_destinations = {d for _, d in train}
    novel: set[Pair] = set()
    for t in scene.object_types.values():
        listed = {place for place, _ in t.places}
        rooms = {scene.furniture[place].room for place in listed}
        candidates = sorted(f.name for f in scene.furniture.values()
                            if f.room in rooms and f.name not in listed and f.name in seen_destinations)
        rng = random.Random(f"{scene.name}:novel:{t.name}")
        novel.update((t.name, d) for d in rng.sample(candidates, min(base.novel_per_type, len(candidates))))
    return dataclasses.replace(base, train_pairs=frozenset(train), novel_pairs=frozenset(novel),
                               scenes=frozenset({scene.name}), source=f"the apartment's own file ({scene.name})")


def task_config_for(scene: Scene, override: TaskConfig | str | Path | None = None) -> TaskConfig:
    """The split of an apartment's suites: ``override`` (a tasks file or config) if given; else
    ``config/household_tasks.yaml`` for the apartments it names (``scenes``), the apartment's own
    split (:func:`scene_task_config`) for any other."""
    if isinstance(override, TaskConfig):
        return override
    if override is not None:
        return load_task_config(override)
    base = load_task_config()
    return base if scene.name in base.scenes else scene_task_config(scene, base)


def _parse_phrasing(spec: Mapping[str, Any]) -> Phrasing:
    rel_words = {str(k): tuple(v) for k, v in (spec.get("relation_words") or {}).items()}
    for rel in ("inside", "on"):
        if not rel_words.get(rel):
            raise ConfigError(f"phrasing.relation_words.{rel}: needs at least one word")
    count_words = {int(k): tuple(v) for k, v in (spec.get("count_words") or {}).items()}
    if not count_words.get(1):
        raise ConfigError("phrasing.count_words.1: needs at least one word")
    state_words = {**STATE_WORDS, **{str(k): tuple(v) for k, v in (spec.get("state_words") or {}).items()}}
    for rel, words in state_words.items():
        if rel not in STATE_WORDS or not words:
            raise ConfigError(f"phrasing.state_words.{rel}: expected one of {', '.join(STATE_WORDS)} "
                              "with at least one word")
    return Phrasing(tuple(spec.get("openers") or [""]), tuple(spec.get("verbs") or ["put"]), count_words,
                    rel_words, {k: dict(v) for k, v in (spec.get("nouns") or {}).items()},
                    float(spec.get("repeat_verb_probability", 0.5)), float(spec.get("period_probability", 0.5)),
                    state_words)


# ---------------------------------------------------------------------------- phrasing
def noun(obj_type: str, count: int, phrasing: Phrasing) -> str:
    """Surface form of an object type: ``cutlery_fork`` -> ``cutlery fork`` / ``cutlery forks``; a
    noun counted in pairs (``pair_nouns.PAIR_NOUNS``) -> ``pair of scissors`` / ``pairs of scissors``;
    a name that is already plural (``frozen_peas``) stays as it is."""
    override = phrasing.nouns.get(obj_type, {})
    form = "singular" if count == 1 else "plural"
    if form in override:
        return override[form]
    word = obj_type.replace("_", " ")
    if is_pair_noun(word):
        return f"{'pair' if count == 1 else 'pairs'} of {word}"
    if count == 1 or is_plural_name(word):
        return word
    if word.endswith(("s", "x", "z", "ch", "sh")):
        return word + "es"
    if word.endswith("y") and len(word) > 1 and word[-2] not in "aeiou":
        return word[:-1] + "ies"
    return word + "s"


def is_plural_name(text: str) -> bool:
    """Whether a rendered type name is already a plural (``frozen peas``, ``sticky notes``): its last
    word ends in ``s`` but not as ``glass``, ``asparagus`` or ``iris`` do."""
    return text.endswith("s") and not text.endswith(("ss", "us", "is"))


def count_word(count: int, noun_text: str, phrasing: Phrasing, rng: random.Random, in_scene: int = 0) -> str:
    """The COUNT of an item. One object whose name is a plural that is not a pair (``biscuits``) is
    "the biscuits" when the apartment has one, "one of the biscuits" when it has more ("one biscuits"
    is no English; "the biscuits" alone would mean all of them); ``in_scene`` 0: not known."""
    words = phrasing.count_words.get(count)
    if not words:
        raise ConfigError(f"phrasing.count_words has no word for {count}")
    word = rng.choice(words)  # drawn in every case, so the other tasks' words stay those of the seed
    if count == 1 and is_plural_name(noun_text) and not noun_text.startswith("pair of "):
        return "the" if in_scene == 1 else "one of the"
    if word == "a" and noun_text[:1] in "aeiou":
        return "an"
    return word


def item_phrase(item: GoalItem, phrasing: Phrasing, rng: random.Random, in_scene: int = 0) -> str:
    text = noun(item.obj_type, item.count, phrasing)
    rel = rng.choice(phrasing.relation_words[item.rel])
    return (f"{count_word(item.count, text, phrasing, rng, in_scene)} {text} {rel} the "
            f"{item.destination.replace('_', ' ')}")


def render_instruction(goal: Sequence[GoalItem], rng: random.Random, phrasing: Phrasing | None = None,
                       counts: Mapping[str, int] | None = None) -> str:
    """A natural-language instruction for a goal, following the grammar of the module docstring;
    ``counts`` (object type -> instances in the apartment) picks "the" or "one of the" for a type
    whose name is a plural."""
    phrasing = phrasing or load_task_config().phrasing
    counts = counts or {}
    opener = rng.choice(phrasing.openers)
    parts = [f"{rng.choice(phrasing.verbs)} {item_phrase(goal[0], phrasing, rng, counts.get(goal[0].obj_type, 0))}"]
    for item in goal[1:]:
        verb = f"{rng.choice(phrasing.verbs)} " if rng.random() < phrasing.repeat_verb_probability else ""
        parts.append(verb + item_phrase(item, phrasing, rng, counts.get(item.obj_type, 0)))
    return _sentence(opener, parts, rng, phrasing)


def _sentence(opener: str, parts: Sequence[str], rng: random.Random, phrasing: Phrasing) -> str:
    body = parts[0] if len(parts) == 1 else ", ".join(parts[:-1]) + " and " + parts[-1]
    if opener.strip() in ("could you", "can you"):
        end = "?"
    else:
        end = "." if rng.random() < phrasing.period_probability else ""
    return f"{opener}{body}{end}"


def render_state_instruction(goal: Sequence[GoalItem], rng: random.Random, phrasing: Phrasing | None = None,
                             counts: Mapping[str, int] | None = None) -> str:
    """A natural-language instruction for a goal with state items (the state suites' grammar of the
    module docstring): a state item whose thing is the destination of the placement said just
    before it is "it"."""
    phrasing = phrasing or load_task_config().phrasing
    counts = counts or {}
    opener = rng.choice(phrasing.openers)
    parts: list[str] = []
    for k, item in enumerate(goal):
        if not item.is_state:
            verb = rng.choice(phrasing.verbs)
            parts.append(f"{verb} {item_phrase(item, phrasing, rng, counts.get(item.obj_type, 0))}")
            continue
        words = rng.choice(phrasing.state_words[item.rel])
        pronoun = k > 0 and not goal[k - 1].is_state and goal[k - 1].destination == item.obj_type
        parts.append(f"{words} {'it' if pronoun else 'the ' + item.obj_type.replace('_', ' ')}")
    return _sentence(opener, parts, rng, phrasing)


# --------------------------------------------------------------------------- generation
@dataclass(frozen=True)
class _Pools:
    """The pairs and compositions of one scene, per suite."""

    train: tuple[Pair, ...]
    novel: tuple[Pair, ...]
    train_comps: tuple[tuple[Pair, Pair], ...]
    novel_comps: tuple[tuple[Pair, Pair], ...]


def suite_pools(household: Household, config: TaskConfig) -> _Pools:
    """Pairs of the configuration that exist in this scene, and the split compositions."""
    def usable(pair: Pair) -> bool:
        return pair[0] in household.scene.object_types and pair[1] in household.furniture_room

    train = tuple(sorted(p for p in config.train_pairs if usable(p)))
    novel = tuple(sorted(p for p in config.novel_pairs if usable(p)))
    comps = [(a, b) for a, b in combinations(train, 2) if a[0] != b[0]]
    train_comps = tuple(c for c in comps if config.is_training_composition(c))
    novel_comps = tuple(c for c in comps if not config.is_training_composition(c))
    if not train or not novel or not train_comps or not novel_comps:
        raise ConfigError(f"scene '{household.scene.name}' has too few usable task pairs in {config.source} "
                          f"(train {len(train)}, novel {len(novel)}, training compositions {len(train_comps)}, "
                          f"novel compositions {len(novel_comps)}): give more object types several places, or "
                          "pass a tasks file that names this apartment's types and furniture")
    return _Pools(train, novel, train_comps, novel_comps)


def _draw_pairs(suite: str, pools: _Pools, rng: random.Random) -> tuple[Pair, ...]:
    if suite == "simple":
        return (rng.choice(pools.train),)
    if suite == "novel_simple":
        return (rng.choice(pools.novel),)
    if suite == "comp":
        return rng.choice(pools.train_comps)
    if suite == "novel_comp2":
        return rng.choice(pools.novel_comps)
    while True:  # novel_comp3: three training pairs of different object types
        triple = tuple(rng.sample(pools.train, 3))
        if len({t for t, _ in triple}) == 3:
            return triple


def _draw_goal(suite: str, household: Household, pools: _Pools, config: TaskConfig, rng: random.Random) -> Goal:
    items = []
    for obj_type, dest in _draw_pairs(suite, pools, rng):
        many = SUITE_ITEMS[suite] > 1 and household.scene.object_types[obj_type].count >= 2
        count = 2 if many and rng.random() < config.count_two_probability else 1
        items.append(GoalItem(household.relation(dest), obj_type, dest, count))
    return tuple(items)


def unsatisfied_everywhere(household: Household, state: State, goal: Goal) -> bool:
    """Every goal item still needs work in ``state`` (no item already holds)."""
    return all(household.count_satisfied(state, item) < item.count for item in goal)


def generate_tasks(scene: Scene | str, suite: str, n: int, seed: int,
                   config: TaskConfig | str | Path | None = None) -> list[HouseholdTask]:
    """``n`` tasks of a suite in a scene, reproducible from ``seed`` (§3.1, Appendix A.2); the split
    is :func:`task_config_for` the scene (``config``: a tasks file or config that overrides it)."""
    if suite not in ALL_SUITES:
        raise ConfigError(f"unknown task suite '{suite}' (suites: {', '.join(ALL_SUITES)})")
    if n < 0:
        raise ConfigError(f"the number of tasks must be >= 0, got {n}")
    scene = load_scene(scene) if isinstance(scene, str) else scene
    config = task_config_for(scene, config)
    household = Household(scene)
    pools = suite_pools(household, config)
    rng = random.Random(f"{scene.name}:{suite}:{seed}")
    if suite in STATE_SUITES:
        return [_one_state_task(f"{scene.name}-{suite}-{seed}-{i:05d}", suite, household, pools, config, rng)
                for i in range(n)]
    return [_one_task(f"{scene.name}-{suite}-{seed}-{i:05d}", suite, household, pools, config, rng) for i in range(n)]


def _scene_counts(household: Household, goal: Goal) -> dict[str, int]:
    """How many instances of each goal item's object type the scene has (0 for a state item's thing)."""
    return {g.obj_type: sum(t == g.obj_type for t in household.object_type.values()) for g in goal}


def _one_task(task_id: str, suite: str, household: Household, pools: _Pools, config: TaskConfig,
              rng: random.Random) -> HouseholdTask:
    for _ in range(MAX_PLACEMENTS):
        placement_seed = rng.randrange(2**31)
        state = household.sample_initial_state(placement_seed)
        for _ in range(config.max_tries_per_task):
            goal = _draw_goal(suite, household, pools, config, rng)
            if unsatisfied_everywhere(household, state, goal):
                household.check_goal(goal)
                instruction = render_instruction(goal, rng, config.phrasing, _scene_counts(household, goal))
                return HouseholdTask(task_id, suite, instruction, goal, household.scene.name, placement_seed)
    raise ConfigError(f"no unsatisfied {suite} goal found in {MAX_PLACEMENTS} placements of scene "
                      f"'{household.scene.name}': its object distributions already satisfy every task pair")


def state_items(household: Household, state: State) -> list[GoalItem]:
    """The state items that need work in ``state``: each switchable thing the other way, each
    closed container open."""
    items = [state_goal(OFF if d in state.switched_on else SWITCHED_ON, d) for d in household.switchables]
    return items + [state_goal(OPEN, c) for c in household.scene.containers if c not in state.opened]


def _draw_state_goal(suite: str, household: Household, state: State, pools: _Pools, rng: random.Random) -> Goal:
    options = state_items(household, state)
    if suite == "states":
        k = min(len(options), rng.choice((1, 2)))
        goal = tuple(rng.sample(options, k))
        return goal if len({g.obj_type for g in goal}) == len(goal) else goal[:1]
    obj_type, dest = rng.choice(pools.train)
    place = GoalItem(household.relation(dest), obj_type, dest, 1)
    if household.is_container[dest] and rng.random() < 0.5:
        return place, state_goal(CLOSED, dest)
    return rng.choice(options), place


def _one_state_task(task_id: str, suite: str, household: Household, pools: _Pools, config: TaskConfig,
                    rng: random.Random) -> HouseholdTask:
    for _ in range(MAX_PLACEMENTS):
        placement_seed = rng.randrange(2**31)
        state = household.sample_initial_state(placement_seed)
        if not state_items(household, state):
            continue
        for _ in range(config.max_tries_per_task):
            goal = _draw_state_goal(suite, household, state, pools, rng)
            if household.satisfied(state, goal) or not all(
                    household.count_satisfied(state, g) < g.count for g in goal if g.rel != CLOSED):
                continue
            household.check_goal(goal)
            instruction = render_state_instruction(goal, rng, config.phrasing, _scene_counts(household, goal))
            return HouseholdTask(task_id, suite, instruction, goal, household.scene.name, placement_seed)
    raise ConfigError(f"no unsatisfied {suite} goal found in {MAX_PLACEMENTS} placements of scene "
                      f"'{household.scene.name}': it has no switchable thing or container a state goal can ask for")
