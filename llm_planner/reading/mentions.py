"""What the directive reader finds in a directive: the objects and places it names (lexical
support) and how the offline parser reads it; :mod:`.directive_reading` fills it,
:mod:`.goal_support` checks a model's goal against it."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from llm_planner.domains.household.world.symbolic import Goal

if TYPE_CHECKING:
    from llm_planner.domains.household.language.text import WorldInfo


@dataclass(frozen=True)
class Mention:
    """An object or a place the directive names: the scene name it grounds to, its word span and
    clause; an object's count as said (None: a vague quantity such as "some")."""

    name: str
    start: int
    end: int
    clause: int
    count: int | None = 1
    said: str = ""          # the words naming it, with their quantity ("two apples")
    source: bool = False    # a place the object comes from ("off the table")


@dataclass
class DirectiveReading:
    """What a directive names (lexical support) and how the offline parser reads it."""

    directive: str
    world: WorldInfo
    parsed: Goal | None                      # the offline parser's goal; None: it refused
    parser_error: str = ""
    unread: str = ""                         # why the words are not read (negation, question, language)
    refused: str = ""                        # the reader's refusal of what the words say (every path's message)
    objects: list[Mention] = field(default_factory=list)
    places: list[Mention] = field(default_factory=list)
    verb_places: dict[int, list[str]] = field(default_factory=dict)  # clause -> places its verb implies
    #: the states the clauses ask, in order: (state, the things named; () for "it" or words not grounded)
    states: list[tuple[str, tuple[str, ...]]] = field(default_factory=list)

    def places_for(self, obj: Mention) -> list[str]:
        """Where the directive puts the object it names at ``obj``: a place after it in its clause;
        else the place its clause's verb implies ("chill the milk"); else the next place said in a
        later clause ("an apple and a banana in the fridge"); else the place an earlier clause's
        verb implies ("chill the milk and the juice"); else the last place said before it."""
        places = [p for p in self.places if not p.source]
        own = [p for p in places if p.clause == obj.clause and p.start >= obj.end]
        if own:
            return [own[0].name]
        if self.verb_places.get(obj.clause):
            return list(self.verb_places[obj.clause])
        later = [p for p in places if p.start >= obj.end]
        if later:
            return [later[0].name]
        earlier = [c for c in self.verb_places if c < obj.clause]
        if earlier:
            return list(self.verb_places[max(earlier)])
        before = [p for p in places if p.end <= obj.start]
        return [before[-1].name] if before else []
