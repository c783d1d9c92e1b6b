"""A model's goal: its words grounded onto the scene's names (:func:`ground_goal`), then checked
against the directive (:func:`check_model_goal`).

Grounding (LLM-MCTS seed 000, §2.2: "we precisely map the LLM-generated goal into the admissible
expressions"): every object and destination the model wrote becomes the scene name it grounds to by
Sentence-BERT cosine, never another kind of thing and never one of several of a kind without saying
which; a name below the grounding threshold raises GoalError naming the closest known names.

Is a model's goal what the directive asks for? A goal translated by a language model (LLM-MCTS
seed 000, §2.2 "Goal", App. F listing 3; the goal channel of Levy & Karpas, seed 001, Phase I) is
checked against the directive's own words before anything runs. A small model copies sub-goals from
the prompt's examples ("put one apple inside the fridge" came back as inside(apple, fridge) and
on(apple, kitchen_table)); grounding alone cannot see that, because every name is a real name of the
scene. The check refuses such a goal with a message naming the difference. Neither paper checks
this: LLM-MCTS grounds the model's goal onto admissible names and trusts it; Levy & Karpas check
goal and plan template for consistency with each other, not with the directive.

Two readings of the directive decide (both made offline, by :mod:`.directive_reading`):

1. **The offline goal parser** (the offline backend's own reading: rules plus Sentence-BERT
   grounding with margins). Where it reads the directive, the model's goal must be the same set of
   atoms; a difference is refused in plain words: "the model added 'an apple on the kitchen table',
   which the directive does not ask for", "the model dropped 'a plate on the kitchen table', which
   the directive asks for", "the model said two apples, the directive says one", "the model put
   the apple on the kitchen table, the directive says inside the fridge".
2. **Lexical support**, where the parser refuses the directive (it reads less than a model may):
   every atom's object type must be named in the directive (the scene's word, a synonym, a plural,
   or a phrase grounded onto it as clearly as the parser grounds), its destination must be the
   place the directive gives that object (said in its clause, a place its clause's verb implies such
   as "chill" -> fridge, or a shared place said later), and its count what the words before the
   object say ("one", "a", "the" = 1, "two", "both"; "all", "every" and "the <plural>" = every
   instance in the apartment); every object the directive places must be in the goal. Questions
   and directives in another language are not read, so no model goal for them is accepted.

What the reader refuses for what the words say (a count that is no positive whole number, a
negation or reversal, one object in two places: ``DirectiveRefused``) is refused here with the
reader's own message, whatever the model answered.

The offline backend's own answers are the parser's reading and are not checked again.

    >>> check_model_goal("put one apple inside the fridge", model_goal, world, backend.resources)
    UnsupportedGoal: refused the model's goal for 'put one apple inside the fridge': the model added
    'an apple on the kitchen table', which the directive does not ask for (...)
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from llm_planner.domains.household.language.kinds import kind_duplicates, same_kind
from llm_planner.domains.household.world.symbolic import (
    INSIDE,
    OFF,
    ON,
    STATE_RELATIONS,
    SWITCHED_ON,
    Goal,
    GoalItem,
    state_goal,
)
from llm_planner.domains.household.world.words import article, name_to_text, plural
from llm_planner.errors import DirectiveRefused, GoalError
from llm_planner.reading.directive_reading import directive_reader
from llm_planner.reading.mentions import DirectiveReading

if TYPE_CHECKING:
    from llm_planner.domains.household.language.grounding import Grounder
    from llm_planner.domains.household.language.text import WorldInfo
    from llm_planner.llm.resources import Resources

_NUMBER_WORDS = {1: "one", 2: "two", 3: "three", 4: "four", 5: "five", 6: "six", 7: "seven", 8: "eight"}


def ground_goal(items: tuple[tuple[str, str, str, int], ...], world: WorldInfo, grounder: Grounder,
                min_score: float) -> Goal:
    """Map (rel, object words, destination words, count) onto scene names; a state item (open, closed,
    on or off with no destination) names a thing, grounded onto the scene's switchable things and
    furniture (``Household.check_goal`` then says whether it can take the state). An item named twice
    is an error: two tuples may mean two objects or one said twice, and a count is never guessed."""
    merged: dict[tuple[str, str, str], int] = {}
    types = list(world.object_types)
    furniture = list(world.furniture)
    things = list(dict.fromkeys([*world.switch_at, *world.furniture]))
    states: list[GoalItem] = []
    for rel, obj, dest, count in items:
        if not dest and str(rel).lower() in STATE_RELATIONS:  # a state (rel, thing): "the fridge closed"
            item = state_goal(str(rel).lower(), _ground(obj, things, grounder, min_score, "thing", world))
            if item in states:
                raise GoalError(f"the goal names {item} twice; give it once")
            states.append(item)
            continue
        obj_type = _ground(obj, types, grounder, min_score, "object")
        destination = _ground(dest, furniture, grounder, min_score, "container or surface", world)
        rel = rel.lower()
        if rel not in (INSIDE, ON):
            rel = world.relation(destination)
        if count < 1:
            raise GoalError(f"the count of {obj_type} must be at least 1, got {count}")
        key = (rel, obj_type, destination)
        if key in merged:
            raise GoalError(f"the goal names {obj_type} {rel} the {destination} twice; give it once with its count, "
                            f"e.g. ({rel.upper()}, {obj_type}, {destination}, {merged[key] + int(count)})")
        merged[key] = int(count)
    return tuple(GoalItem(r, o, d, c) for (r, o, d), c in merged.items()) + tuple(states)


def _ground(text: str, names: list[str], grounder: Grounder, min_score: float, what: str,
            world: WorldInfo | None = None) -> str:
    """A name of the scene for a model's words: never another kind of thing (a "remote
    control" is not the game controller), never one of several of a kind without saying which."""
    if text in names:
        return text
    ranked = grounder.rank_names(text, names)
    closest = ", ".join(m.name for m in ranked[:3])
    if not ranked or ranked[0].score < min_score:
        raise GoalError(f"this apartment has no {what} '{text}'; the closest known names are {closest}")
    if what == "object" and not same_kind(text, ranked[0].name):
        raise GoalError(f"this apartment has no {what} '{text}'; the closest known names are {closest}, which are "
                        "other things: name one of them")
    several = kind_duplicates(text, world) if world is not None else []
    if what == "thing" and world is not None and text not in world.switch_at:  # "lamp": which one?
        words = set(name_to_text(text).split())
        several = [d for d in world.switch_at if words and words <= set(name_to_text(d).split())]
        several = several if len(several) > 1 else []
    if several and world is not None:
        rooms = {f: world.furniture_room.get(world.switch_at.get(f, f), "?") for f in several}
        listed = " or ".join(f"{f} ({rooms[f]})" for f in several)
        raise GoalError(f"which {text}: {listed}? say which one")
    return ranked[0].name



class UnsupportedGoal(GoalError):
    """A model's goal the directive does not support. ``differences`` holds one plain sentence per
    difference; ``goal`` is the refused goal; ``kind`` is ``parser`` (the offline parser read the
    directive otherwise) or ``lexical`` (the directive's words do not support an atom)."""

    def __init__(self, message: str, differences: tuple[str, ...], goal: Goal, kind: str,
                 reading: DirectiveReading | None = None) -> None:
        super().__init__(message)
        self.differences = differences
        self.goal = goal
        self.kind = kind
        self.reading = reading  # serves the check of further goals for the same directive


def check_model_goal(directive: str | DirectiveReading, goal: Goal, world: WorldInfo, resources: Resources,
                     complete: bool = True) -> DirectiveReading:
    """UnsupportedGoal unless a model's ``goal`` is what ``directive`` asks for (module docstring);
    returns the reading, which serves further goals for the same directive. ``complete`` false: an
    object the directive names but the goal leaves out is no difference (a goal channel that also
    reads step-by-step directives, Levy & Karpas, where "grab the apple" is a step, not a goal)."""
    reading = directive_reader(resources, world).read(directive) if isinstance(directive, str) else directive
    if reading.refused:  # a count that is no positive whole number, a negation: refused as on every path
        raise DirectiveRefused(reading.refused)
    if reading.parsed is not None:
        differences = compare(goal, reading.parsed, complete)
        if differences:
            _refuse(reading, goal, differences, "parser", f"the directive reads as: {_goal_phrase(reading.parsed)}")
        return reading
    differences = lexical_differences(reading, goal, complete)
    if differences:
        _refuse(reading, goal, differences, "lexical",
                f"the offline goal parser cannot read the directive either: {reading.parser_error}")
    return reading


def lexical_differences(reading: DirectiveReading, goal: Goal, complete: bool = True) -> list[str]:
    """Plain sentences naming each atom of ``goal`` the directive's words do not support (and with
    ``complete`` each object the directive places that the goal leaves out)."""
    if reading.unread:
        return [f"the directive cannot be checked: {reading.unread}"]
    world = reading.world
    out = lexical_state_differences(reading, [g for g in goal if g.is_state], complete)
    for item in goal:
        if item.is_state:
            continue
        mentions = [m for m in reading.objects if m.name == item.obj_type]
        if not mentions:
            out.append(f"the model added '{item_phrase(item)}', which the directive does not ask for: it names "
                       f"no {name_to_text(item.obj_type)}")
            continue
        placed = [m for m in mentions if item.destination in reading.places_for(m)]
        if not placed:
            said = sorted({p for m in mentions for p in reading.places_for(m)})
            if any(i.obj_type == item.obj_type and i.destination in said for i in goal):  # said elsewhere too
                out.append(f"the model added '{item_phrase(item)}', which the directive does not ask for")
                continue
            where = " or ".join(f"{_rel(world, p)} the {name_to_text(p)}" for p in said)
            out.append(f"the model put the {name_to_text(item.obj_type)} {_rel(world, item.destination)} the "
                       f"{name_to_text(item.destination)}, " +
                       (f"the directive says {where}" if said else "and the directive names no place for it"))
            continue
        if any(m.count is None for m in placed):
            vague = next(m for m in placed if m.count is None)
            out.append(f"the directive does not say how many {plural(name_to_text(item.obj_type))} "
                       f"('{vague.said}'), so the model's {item.count} is a guess")
            continue
        counts = {m.count for m in placed if m.count is not None}
        if len(placed) > 1:  # "an apple and another apple in the fridge"
            counts.add(sum(m.count or 0 for m in placed))
        if item.count not in counts:
            out.append(f"the model said {_count_phrase(item.count, item.obj_type, True)}, the directive says "
                       f"{' or '.join(_NUMBER_WORDS.get(c, str(c)) for c in sorted(counts))} ('{placed[0].said}')")
    if complete:
        for m in reading.objects:
            places = reading.places_for(m)
            if places and not any(i.obj_type == m.name and i.destination in places for i in goal):
                dropped = GoalItem(world.relation(places[0]), m.name, places[0], m.count or 1)
                out.append(f"the model dropped '{item_phrase(dropped)}', which the directive asks for")
    return out


def lexical_state_differences(reading: DirectiveReading, model: Sequence[GoalItem], complete: bool) -> list[str]:
    """The state items of a model's goal the directive's state clauses do not ask: a thing named
    with that state (the last state said of it), or "it" with that state where the directive names
    the thing; with ``complete`` a thing the directive names with a state the goal leaves out."""
    named: dict[tuple[str, bool], str] = {}  # (thing, kind) -> the last state said of it
    pronoun_states = set()
    for rel, things in reading.states:
        for thing in things:
            named[(thing, _switch(rel))] = rel
        if not things:
            pronoun_states.add(rel)
    words = f" {' '.join(reading.directive.lower().split())} "
    out = []
    for g in model:
        said = named.get((g.obj_type, _switch(g.rel)))
        if g.count != 1:
            out.append(_state_count(g))
        elif said == g.rel:
            continue
        elif said is not None:
            out.append(f"the model asked the {name_to_text(g.obj_type)} {g.rel}, the directive says {said}")
        elif g.rel in pronoun_states and (g.obj_type in {p.name for p in reading.places}
                                          or f" {name_to_text(g.obj_type)} " in words):
            continue
        else:
            out.append(f"the model added '{state_phrase(g.rel, g.obj_type)}', which the directive does not ask for")
    if complete:
        kept = {(g.obj_type, _switch(g.rel)) for g in model}
        out += [f"the model dropped '{state_phrase(rel, thing)}', which the directive asks for"
                for (thing, switch), rel in named.items() if (thing, switch) not in kept]
    return out


def compare(goal: Goal, reading: Goal, complete: bool = True) -> list[str]:
    """Plain sentences naming each difference of a model's ``goal`` from the parser's ``reading``
    (empty: the same goal); ``complete`` false: atoms the model left out are no difference. State
    items are compared by thing and kind (on/off, open/closed): "the model asked the tv on, the
    directive says off"."""
    states = state_differences([g for g in goal if g.is_state], [g for g in reading if g.is_state], complete)
    goal = tuple(g for g in goal if not g.is_state)
    reading = tuple(g for g in reading if not g.is_state)
    return _compare_placements(goal, reading, complete) + states


def state_differences(model: Sequence[GoalItem], read: Sequence[GoalItem], complete: bool = True) -> list[str]:
    """Plain sentences naming each state item of ``model`` that ``read`` (the directive's reading)
    does not ask, says otherwise, or (with ``complete``) asks and the model left out."""
    asked = {(g.obj_type, _switch(g.rel)): g.rel for g in read}
    out = []
    for g in model:
        said = asked.get((g.obj_type, _switch(g.rel)))
        if g.count != 1:
            out.append(_state_count(g))
        elif said is None:
            out.append(f"the model added '{state_phrase(g.rel, g.obj_type)}', which the directive does not ask for")
        elif said != g.rel:
            out.append(f"the model asked the {name_to_text(g.obj_type)} {g.rel}, the directive says {said}")
    if complete:
        kept = {(g.obj_type, _switch(g.rel)) for g in model}
        out += [f"the model dropped '{state_phrase(rel, thing)}', which the directive asks for"
                for (thing, switch), rel in asked.items() if (thing, switch) not in kept]
    return out


def _state_count(item: GoalItem) -> str:
    return f"the model counted {item.count} of '{state_phrase(item.rel, item.obj_type)}': a state holds or not"


def _switch(rel: str) -> bool:
    return rel in (SWITCHED_ON, OFF)


def state_phrase(rel: str, thing: str) -> str:
    """'the fridge closed', 'the tv on'."""
    return f"the {name_to_text(thing)} {rel}"


def _compare_placements(goal: Goal, reading: Goal, complete: bool) -> list[str]:
    model = {(g.obj_type, g.destination): g for g in goal}
    parsed = {(g.obj_type, g.destination): g for g in reading}
    out = []
    elsewhere = set()  # parser atoms said as "the model put X elsewhere"
    for key, g in model.items():
        if key in parsed:
            if parsed[key].count != g.count:
                out.append(f"the model said {_count_phrase(g.count, g.obj_type, True)}, the directive says "
                           f"{_NUMBER_WORDS.get(parsed[key].count, str(parsed[key].count))}")
            continue
        moved = [p for p in reading if p.obj_type == g.obj_type and (p.obj_type, p.destination) not in model]
        if len(moved) == 1:
            p = moved[0]
            elsewhere.add((p.obj_type, p.destination))
            if p.count == g.count:
                out.append(f"the model put {_the(g)} {g.rel} the {name_to_text(g.destination)}, the directive says "
                           f"{p.rel} the {name_to_text(p.destination)}")
            else:  # place and count both differ
                out.append(f"the model put {_count_phrase(g.count, g.obj_type, True)} {g.rel} the "
                           f"{name_to_text(g.destination)}, the directive says {item_phrase(p, number=True)}")
        else:
            out.append(f"the model added '{item_phrase(g)}', which the directive does not ask for")
    if complete:
        out += [f"the model dropped '{item_phrase(p)}', which the directive asks for"
                for key, p in parsed.items() if key not in model and key not in elsewhere]
    return out


# ------------------------------------------------------------------------------ phrases
def item_phrase(item: GoalItem, number: bool = False) -> str:
    """'an apple on the kitchen table' ('one apple ...' with ``number``), 'two apples inside the fridge'."""
    return f"{_count_phrase(item.count, item.obj_type, number)} {item.rel} the {name_to_text(item.destination)}"


def _count_phrase(count: int, obj_type: str, number: bool = False) -> str:
    """'an apple' ('one apple' with ``number``), 'two apples'."""
    text = name_to_text(obj_type)
    if count == 1:
        return f"one {text}" if number else f"{article(text)} {text}"
    return f"{_NUMBER_WORDS.get(count, str(count))} {plural(text)}"


def _the(item: GoalItem) -> str:
    text = name_to_text(item.obj_type)
    return f"the {text}" if item.count == 1 else f"the {_NUMBER_WORDS.get(item.count, str(item.count))} {plural(text)}"


def _goal_phrase(goal: Sequence[GoalItem]) -> str:
    return "; ".join(state_phrase(g.rel, g.obj_type) if g.is_state else item_phrase(g) for g in goal)


def _rel(world: WorldInfo, furniture: str) -> str:
    return "inside" if world.relation(furniture) == INSIDE else "on"


def _refuse(reading: DirectiveReading, goal: Goal, differences: Sequence[str], kind: str, context: str) -> None:
    message = (f"refused the model's goal for '{reading.directive.strip()}': " + "; ".join(differences) +
               f" ({context}). Nothing was run: say the directive again more plainly, one object and one place "
               "per clause (e.g. 'put one apple inside the fridge'), or use the offline backend")
    raise UnsupportedGoal(message, tuple(differences), goal, kind, reading)
