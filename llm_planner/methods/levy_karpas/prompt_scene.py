"""The scene and state lines of the Phase I prompt (seed 001, Phase I: "we encode each fact in the
state of the world as text"), written by the openai channels, and read back from a prompt.

What the prompt tells a model is what the offline channels are given (a :class:`Household` and,
for the D+S input, the :class:`State`): the rooms; the containers and surfaces, each with its room;
the object types, each with how many the house has (the seed's robot is clairvoyant and plans on
PDDL objects it knows; the room of a piece of furniture is how "the table" becomes the one in the
robot's room); and, for D+S, the robot's room and where every object is::

    Rooms: kitchen, living_room
    Containers: fridge (kitchen), kitchen_cabinet (kitchen)
    Surfaces: kitchen_table (kitchen), sofa (living_room)
    Object types: apple (2), book (1)
    State: the robot is in the kitchen; apple 1 is inside the fridge; apple 2 is on the kitchen table; ...

:func:`scene_lines` / :func:`state_text` write them, :func:`read_household` / :func:`read_state`
read them back into a :class:`Household` and a :class:`State` over the names the prompt lists
(nothing else: no scene file, no positions). Furniture is listed containers first, so the rebuilt
household orders its furniture that way; names, rooms, counts and placements are the same.
"""
from __future__ import annotations

import re

from llm_planner.domains.household.language.text import relation_to_text, text_to_name
from llm_planner.domains.household.world.scene import CONTAINER, SURFACE, Furniture, ObjectType, Room, Scene
from llm_planner.domains.household.world.symbolic import Household, State
from llm_planner.domains.household.world.words import name_to_text

#: ``name (note)`` items of a listing line; the note is a room or a count
_ITEM = re.compile(r"\s*(?P<name>[^,()]+?)\s*(?:\((?P<note>[^()]*)\))?\s*(?:,|$)")
_ROBOT = re.compile(r"^the robot is in the (?P<room>.+)$")
_FACT = re.compile(r"^(?P<obj>.+?) is (?P<rel>inside|on) the (?P<place>.+)$")


class UnreadableScene(ValueError):
    """A Phase I prompt whose scene lines cannot be read back."""


def scene_lines(household: Household) -> dict[str, str]:
    """The values of the prompt's ``Rooms``, ``Containers``, ``Surfaces`` and ``Object types`` lines."""
    h = household
    furniture = {kind: ", ".join(f"{f} ({h.furniture_room[f]})" for f in h.furniture if h.is_container[f] == inside)
                 for kind, inside in (("containers", True), ("surfaces", False))}
    counts = {t: sum(1 for o in h.objects if h.object_type[o] == t) for t in h.scene.object_types}
    return {"rooms": ", ".join(h.rooms), **furniture, "types": ", ".join(f"{t} ({n})" for t, n in counts.items())}


def state_text(household: Household, state: State) -> str:
    """The seed's state encoding: every fact as text ("apple 1 is inside the fridge")."""
    facts = [f"the robot is in the {name_to_text(state.room)}"]
    facts += [relation_to_text(household.relation(f), o, f).split(" ", 1)[1]
              for o, f in zip(household.objects, state.placement, strict=True) if f is not None]
    return "; ".join(facts)


def listed(value: str) -> list[tuple[str, str]]:
    """``fridge (kitchen), kitchen_table`` -> ``[("fridge", "kitchen"), ("kitchen_table", "")]``."""
    return [(text_to_name(m.group("name")), (m.group("note") or "").strip())
            for m in _ITEM.finditer(value) if m.group("name").strip()]


def listed_names(value: str) -> list[str]:
    """The names of a listing line, without their notes."""
    return [name for name, _note in listed(value)]


def read_household(rooms: str, containers: str, surfaces: str, types: str) -> Household:
    """The household the four listing lines describe (UnreadableScene says what is missing)."""
    room_names = listed_names(rooms)
    furniture: dict[str, Furniture] = {}
    for value, kind in ((containers, CONTAINER), (surfaces, SURFACE)):
        for name, room in listed(value):
            room = text_to_name(room)
            if room not in room_names:
                raise UnreadableScene(f"the {kind} '{name}' is listed in no room of the prompt (got '{room}')")
            furniture[name] = Furniture(name, kind, room, (0.0, 0.0), 0.0, (0.0, 0.0, 0.0))
    object_types = {}
    for name, count in listed(types):
        if not count.isdigit():
            raise UnreadableScene(f"the object type '{name}' is listed without how many the house has")
        object_types[name] = ObjectType(name, int(count), (0.0, 0.0, 0.0), (0.0, 0.0, 0.0), ())
    if not room_names or not furniture or not object_types:
        raise UnreadableScene("the prompt lists no rooms, furniture or object types")
    scene = Scene("prompt", None, room_names[0], {r: Room(r, (0.0, 0.0, 0.0, 0.0)) for r in room_names}, (),
                  furniture, object_types)
    return Household(scene)


def read_state(household: Household, text: str) -> State:
    """Inverse of :func:`state_text` over the household's names (an unlisted object is held; the
    text tells no switchable thing on, so none is)."""
    room = None
    placement: dict[str, str] = {}
    for part in text.strip().rstrip(".").split(";"):
        part = part.strip()
        if (m := _ROBOT.match(part)):
            room = text_to_name(m.group("room"))
        elif (m := _FACT.match(part)):
            obj, place = text_to_name(m.group("obj")), text_to_name(m.group("place"))
            if obj not in household.index or place not in household.furniture_room:
                raise UnreadableScene(f"the state names '{part}', which the prompt's scene does not have")
            placement[obj] = place
    if room not in household.rooms:
        raise UnreadableScene(f"the state says no room of the prompt the robot is in: {text[:120]!r}")
    return State(room, None, None, tuple(placement.get(o) for o in household.objects), frozenset())
