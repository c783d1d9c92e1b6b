"""Natural-language rendering of names, actions, observations and goals: the one mapping between
the symbolic household (``llm_planner.domains.household.world.symbolic``) and the sentences a language model reads
and writes (LLM-MCTS seed 000, App. A.4-A.5: "the action is translated into the sentence ...";
"relationships are translated to natural language descriptions ... 'an apple is inside the fridge'").

    >>> action_to_text(Action('putin', ('apple_1', 'fridge')))
    'put the apple 1 inside the fridge'
    >>> text_to_action('put the apple 1 inside the fridge', ['apple_1', 'fridge'])
    Action(verb='putin', args=('apple_1', 'fridge'))

Also: what a language model may be told about a scene (:class:`WorldInfo`: names, kinds and rooms,
never where objects are), and the formal goal text of App. F listing 3,
``(INSIDE, apple, fridge, 2)-(ON, plate, kitchen_table, 1)``.
"""
from __future__ import annotations

import re
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING

from llm_planner.domains.household.world.symbolic import INSIDE, ON, Action, Goal, GoalItem, Household, Observation
from llm_planner.domains.household.world.words import article, name_to_text, plural

if TYPE_CHECKING:
    from llm_planner.domains.household.world.scene import Scene

def text_to_name(text: str) -> str:
    """``Kitchen  table`` -> ``kitchen_table`` (no grounding; see grounding.py for that)."""
    return "_".join(text.lower().split())


# --------------------------------------------------------------------------- actions
_TEMPLATES = {
    "walk": "walk to the {0}",
    "grab": "grab the {0}",
    "open": "open the {0}",
    "close": "close the {0}",
    "putin": "put the {0} inside the {1}",
    "puton": "put the {0} on the {1}",
    "switchon": "switch on the {0}",
    "switchoff": "switch off the {0}",
}
_PATTERNS = {
    "walk": re.compile(r"^walk to (?:the )?(.+)$"),
    "grab": re.compile(r"^grab (?:the )?(.+)$"),
    "open": re.compile(r"^open (?:the )?(.+)$"),
    "close": re.compile(r"^close (?:the )?(.+)$"),
    "putin": re.compile(r"^put (?:the )?(.+?) inside (?:the )?(.+)$"),
    "puton": re.compile(r"^put (?:the )?(.+?) on (?:the )?(.+)$"),
    "switchon": re.compile(r"^(?:switch|turn) on (?:the )?(.+)$"),
    "switchoff": re.compile(r"^(?:switch|turn) off (?:the )?(.+)$"),
}


def action_to_text(action: Action) -> str:
    """The sentence of an action as prompts show it and grounding compares against."""
    return _TEMPLATES[action.verb].format(*(name_to_text(a) for a in action.args))


def action_phrases(text: str) -> tuple[str, tuple[str, ...]] | None:
    """(verb, argument phrases) of an action sentence in the prompts' words; None if it is not one.

        >>> action_phrases("put the apple 1 inside the fridge")
        ('putin', ('apple 1', 'fridge'))
    """
    clean = " ".join(text.lower().strip().rstrip(".").split())
    for verb, pattern in _PATTERNS.items():
        match = pattern.match(clean)
        if match:
            return verb, tuple(match.groups())
    return None


def text_to_action(text: str, names: Iterable[str]) -> Action | None:
    """Exact inverse of :func:`action_to_text` over known ``names``; None when the text is not one."""
    known = {name_to_text(n): n for n in names}
    parsed = action_phrases(text)
    if parsed and all(g in known for g in parsed[1]):
        return Action(parsed[0], tuple(known[g] for g in parsed[1]))
    return None


# --------------------------------------------------------------------------- scenes
@dataclass(frozen=True, eq=False)
class WorldInfo:
    """What a language model is told about an apartment: rooms, furniture (container or surface,
    and its room), object instances and their types. Built from names only; it never carries where
    movable objects are (the simulator's hidden truth)."""

    rooms: tuple[str, ...]
    containers: tuple[str, ...]
    surfaces: tuple[str, ...]
    furniture_room: Mapping[str, str]
    object_type: Mapping[str, str]  # instance name -> type name, e.g. apple_2 -> apple
    #: switchable thing -> the furniture it is switched at (itself for an appliance); not part of
    #: :meth:`fingerprint`, which the furniture and objects already tell apart per apartment
    switch_at: Mapping[str, str] = field(default_factory=dict)

    @classmethod
    def from_household(cls, household: Household) -> WorldInfo:
        return cls(
            rooms=tuple(household.rooms),
            containers=tuple(f for f in household.furniture if household.is_container[f]),
            surfaces=tuple(f for f in household.furniture if not household.is_container[f]),
            furniture_room=dict(household.furniture_room),
            object_type=dict(household.object_type),
            switch_at=dict(household.switch_at),
        )

    @classmethod
    def from_scene(cls, scene: Scene) -> WorldInfo:
        return cls.from_household(Household(scene))

    @property
    def furniture(self) -> tuple[str, ...]:
        return self.containers + self.surfaces

    @property
    def object_types(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(self.object_type.values()))

    @property
    def objects(self) -> tuple[str, ...]:
        return tuple(self.object_type)

    def relation(self, furniture: str) -> str:
        return INSIDE if furniture in set(self.containers) else ON

    def count(self, obj_type: str) -> int:
        return sum(1 for t in self.object_type.values() if t == obj_type)

    @property
    def names(self) -> tuple[str, ...]:
        """Every name a model may use: rooms, furniture, object instances, switchable things."""
        return self.rooms + self.furniture + self.objects + self.switchables

    @property
    def switchables(self) -> tuple[str, ...]:
        """The switchable things that are no furniture (the tv, lamps; appliances are furniture)."""
        furniture = set(self.furniture)
        return tuple(d for d in self.switch_at if d not in furniture)

    def fingerprint(self) -> str:
        """A stable text of the whole description (part of cache keys of world-dependent answers)."""
        return self._fingerprint

    def __eq__(self, other: object) -> bool:
        return isinstance(other, WorldInfo) and other._fingerprint == self._fingerprint

    def __hash__(self) -> int:
        return hash(self._fingerprint)

    @cached_property
    def _fingerprint(self) -> str:
        return "|".join([",".join(self.rooms), ",".join(self.containers), ",".join(self.surfaces),
                         ",".join(f"{f}@{self.furniture_room[f]}" for f in self.furniture),
                         ",".join(self.objects)])


# --------------------------------------------------------------------------- observations
def relation_to_text(rel: str, obj: str, furniture: str) -> str:
    """``('inside', 'apple_1', 'fridge')`` -> ``an apple 1 is inside the fridge``."""
    text = name_to_text(obj)
    return f"{article(text)} {text} is {'inside' if rel == INSIDE else 'on'} the {name_to_text(furniture)}"


def observation_to_text(obs: Observation, world: WorldInfo, switches: Collection[str] = ()) -> str:
    """App. A.5 style: the room's furniture with open/closed state, then what is seen where, then
    the on/off state of those of ``switches`` (a goal's switchable things) the room shows; the
    other switchable things are not mentioned."""
    parts = [f"you are in the {name_to_text(obs.room)}"]
    if obs.near:
        parts.append(f"you are close to the {name_to_text(obs.near)}")
    parts.append(f"you are holding the {name_to_text(obs.holding)}" if obs.holding else "your hand is empty")
    for furniture in world.furniture:
        if world.furniture_room.get(furniture) != obs.room:
            continue
        text = name_to_text(furniture)
        sentence = f"{article(text)} {text} is inside the {name_to_text(obs.room)}"
        if furniture in obs.open_containers:
            sentence += f" and the {text} is open"
        elif furniture in obs.closed_containers:
            sentence += f" and the {text} is closed"
        parts.append(sentence)
    parts.extend(relation_to_text(*r) for r in sorted(obs.relations, key=lambda r: (r[2], r[1])))
    parts.extend(switch_states_text(obs, switches))
    return ", ".join(parts) + "."


def switch_states_text(obs: Observation, switches: Collection[str]) -> list[str]:
    """``the tv is on`` for each of ``switches`` whose state the observation shows, in that order."""
    return [f"the {name_to_text(d)} is {'on' if d in obs.switched_on else 'off'}"
            for d in switches if d in obs.switched_on or d in obs.switched_off]


def actions_to_text(actions: Sequence[Action]) -> str:
    return ", ".join(action_to_text(a) for a in actions) if actions else "none"


# --------------------------------------------------------------------------- goals
_NUMBER_WORDS = {1: "one", 2: "two", 3: "three", 4: "four", 5: "five", 6: "six"}


def goal_item_to_text(item: GoalItem) -> str:
    """``put two apples inside the fridge``; a state item: ``make sure the fridge is closed``."""
    if item.is_state:
        return f"make sure the {name_to_text(item.obj_type)} is {item.rel}"
    noun = name_to_text(item.obj_type)
    count = _NUMBER_WORDS.get(item.count, str(item.count))
    noun = noun if item.count == 1 else plural(noun)
    rel = "inside" if item.rel == INSIDE else "on"
    return f"put {count} {noun} {rel} the {name_to_text(item.destination)}"


def goal_to_text(goal: Goal) -> str:
    return " and ".join(goal_item_to_text(g) for g in goal)


def goal_to_formal(goal: Sequence[GoalItem]) -> str:
    """App. F listing 3: ``(INSIDE, apple, fridge, 2)-(ON, plate, kitchen_table, 1)``; a state item
    is ``(CLOSED, fridge)``."""
    return "-".join(f"({g.rel.upper()}, {g.obj_type})" if g.is_state
                    else f"({g.rel.upper()}, {g.obj_type}, {g.destination}, {g.count})" for g in goal)
