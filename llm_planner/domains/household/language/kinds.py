"""The kinds of things names say, by their words alone: ``nightstand_2`` and ``kitchen_sink`` say
their kind as "nightstand" and "sink" (:func:`furniture_forms`); a phrase and a name say the same
kind of thing when their head nouns agree (:func:`same_kind`: "remote control" is no game
controller); a phrase naming one of several furniture of a kind is no name (:func:`kind_duplicates`).
The directive reader (``llm_planner.reading``) and the offline provider's commonsense
(:mod:`.commonsense`) both keep to them."""
from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from llm_planner.domains.household.world.words import clean_phrase, name_to_text, singular

if TYPE_CHECKING:
    from llm_planner.domains.household.language.text import WorldInfo


#: Words that tell apart furniture of one kind ("dresser_left", "top_shelf"): not part of the kind.
POSITION_WORDS = frozenset({"left", "right", "upper", "lower", "top", "bottom", "front", "back", "middle", "big",
                            "small", "large", "little", "main", "tall", "low", "high", "wide", "narrow", "north",
                            "south", "east", "west", "first", "second", "third", "fourth", "other", "old", "new"})
#: Room words a furniture name may start with ("kitchen_sink", "bathroom_cabinet", "guest_bed").
GENERAL_ROOM_WORDS = frozenset({"kitchen", "living", "lounge", "bedroom", "bathroom", "guest", "master", "study",
                                "office", "hall", "hallway", "dining", "utility", "kids", "room"})
#: Head nouns that name a portion or a vessel of what their first words say ("bread slice", "jam jar").
PORTIONS = frozenset({"slice", "piece", "bottle", "jar", "can", "carton", "box", "bag", "packet", "pack", "loaf",
                      "tub", "tin", "bar", "roll", "stick"})


def furniture_forms(name: str, rooms: Sequence[str] = ()) -> list[str]:
    """The ways a furniture name may say its kind, most specific first: ``nightstand_2`` ->
    ["nightstand 2", "nightstand"]; ``kitchen_sink`` -> ["kitchen sink", "sink"]; ``dresser_left`` ->
    ["dresser left", "dresser"]; a room of ``rooms`` (or a general room word) in front is dropped.
    The last form is the head noun."""
    words = name_to_text(name).split()
    forms = [" ".join(words)]
    words = [w for w in words if not w.isdigit()]
    forms.append(" ".join(words))
    words = [w for w in words if w not in POSITION_WORDS] or words
    forms.append(" ".join(words))
    room_words = {w for r in rooms for w in name_to_text(r).split()} | GENERAL_ROOM_WORDS
    i = 0
    while i < len(words) - 1 and words[i] in room_words:
        i += 1
    forms.append(" ".join(words[i:]))
    forms.append(words[-1] if words else "")
    return [f for f in dict.fromkeys(forms) if f]


def same_kind(phrase: str, name: str) -> bool:
    """Whether a phrase and a name say the same kind of thing (grounding never swaps one
    thing for another): the same head noun (singular), a portion of it ("bread" is a bread slice),
    or the same words run together ("teddybear"). A "remote control" is not a game controller, and
    "pepper" is not a pepper mill."""
    said, named = clean_phrase(phrase).split(), name_to_text(name).split()
    if not said or not named:
        return False
    if len(named) >= 2 and named[-1] in PORTIONS:
        named = named[:-1]
    return singular(said[-1]) == singular(named[-1]) or "".join(said) == "".join(named)


def kind_duplicates(phrase: str, world: WorldInfo) -> list[str]:
    """Every furniture of the kind a phrase names when there are several ("nightstand" with
    nightstand_1 and nightstand_2, "table" with three tables); [] when the phrase is one name."""
    clean = clean_phrase(phrase)
    if clean in {name_to_text(f) for f in world.furniture}:
        return []
    rooms = list(world.rooms)
    found = [f for f in world.furniture if clean in furniture_forms(f, rooms)[1:]
             or singular(clean) in furniture_forms(f, rooms)[1:]]
    return found if len(found) >= 2 else []
