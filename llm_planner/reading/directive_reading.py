"""The offline reading of a directive that a model's goal is checked against
(``llm_planner.reading.goal_support``): the offline goal parser's goal, and what the directive's words
name, found with the same lexicons and Sentence-BERT grounding as the parser (the scene's words,
the commonsense file's synonyms, plurals; a phrase grounded only when it is clearly the closest
name, ``offline.goal_parser`` of config/llm.yaml).

The words are cut into chunks at function words (prepositions, quantities, pronouns, verbs) and
clauses at "and", "then" and commas; a chunk names an object type when its last words ground onto
one ("red apples" -> apple), else a piece of furniture ("kitchen table"; "the table in the
kitchen" -> kitchen table). An object's count is what the quantity words just before it say, as the
parser counts them; a place after "from", "off" or "out of" is a source, not a destination.
Negations, questions and directives in another language are not read (the parser refuses them too).
"""
from __future__ import annotations

import re
from typing import TYPE_CHECKING

from llm_planner.clarification import CONFIRM, COUNT, clean_answer
from llm_planner.domains.household.world.pair_nouns import is_pair_noun
from llm_planner.domains.household.world.symbolic import Goal, GoalItem
from llm_planner.domains.household.world.words import name_to_text
from llm_planner.errors import DirectiveRefused, GoalError
from llm_planner.reading.goal_parser import (
    _QUESTION,
    _SPLIT,
    VERBS,
    GoalParser,
    _leading_verb,
    _strip_clause,
    check_english,
    goal_parser,
    refuse_what_words_say,
)
from llm_planner.reading.mentions import DirectiveReading, Mention
from llm_planner.reading.quantities import CUES, DEFINITE, quantity
from llm_planner.reading.states import StateSaid, state_said

if TYPE_CHECKING:
    from llm_planner.clarification import Option, Question
    from llm_planner.domains.household.language.text import WorldInfo
    from llm_planner.llm.resources import Resources

_TOKEN = re.compile(r"[a-z0-9]+(?:'[a-z]+)?|[,;&]")
#: Words that end a clause (the parser splits clauses on the same words).
_BOUNDARIES = {",", ";", "&", "and", "then", "also"}
#: Words before a place that make it where the object comes from, not where it goes.
_SOURCE_WORDS = {"from", "off", "out"}
#: Words that are never part of an object's or a place's name: prepositions, quantities, pronouns,
#: auxiliaries, adverbs (a verb of the parser's list is one too unless it names a scene thing:
#: "microwave").
_FUNCTION_WORDS = {
    "on", "top", "of", "inside", "into", "in", "onto", "to", "at", "upon", "within", "beside", "by", "back",
    "over", "next", "under", "near", "from", "off", "out", "up", "down", "away", "there", "here", "with",
    "couple", "pair", "pairs", "both", "it", "them", "those", "these", "me", "us", "you", "i", "we", "please",
    "could", "would", "can", "will", "should", "must", "be", "is", "are", "need", "needs", "want", "wants", "like",
    "go", "goes", "too", "again", "as", "well", "now", "first", "later", "cold", "cool", "warm", "hot", "clean",
    "safe", "fresh", "for", "carefully", "gently", "quickly", "just", "so", "if", "that", "have", "has", "let's",
    "let", "make", "sure", "end", "belongs", "belong", "somewhere", "anywhere", "wherever",
} | set(DEFINITE) | CUES.count_words
_QUANTITY_WORDS = {"of", *DEFINITE, *CUES.count_words}


class DirectiveReader:
    """Reads directives of one scene (see the module docstring) on that scene's goal parser."""

    def __init__(self, parser: GoalParser) -> None:
        self.parser = parser
        self.world: WorldInfo = parser.world
        single = {w for w in (*parser.type_words, *parser.place_words) if " " not in w}
        self._stop = _FUNCTION_WORDS | (set(VERBS) - single)
        self._rooms = {name_to_text(r) for r in self.world.rooms}

    def read(self, directive: str) -> DirectiveReading:
        """The parser's goal (or why it refuses) and the objects and places the words name."""
        try:
            items = self.parser.parse(directive, ask=False)  # counts as said; the check compares them
            parsed = tuple(GoalItem(i.rel, i.obj_type, i.destination, i.count) for i in items)
            error = ""
        except DirectiveRefused as exc:  # what the words say is refused on every path, with this message
            reading = DirectiveReading(directive, self.world, None, str(exc), refused=str(exc))
            reading.unread = str(exc)
            return reading
        except GoalError as exc:
            parsed, error = None, str(exc)
        reading = DirectiveReading(directive, self.world, parsed, error)
        try:
            check_english(directive)
        except GoalError:
            reading.unread = "it is not in English, and the check reads English directives only"
            return reading
        text = refuse_what_words_say(directive)  # self-corrections applied, as the parser reads them
        if _QUESTION.match(text) and str(directive).strip().endswith("?"):
            reading.unread = "it is a question, not a request"
            return reading
        self._mentions(_TOKEN.findall(text), reading)
        self._states(text, reading)
        return reading

    def _states(self, text: str, reading: DirectiveReading) -> None:
        """The state each clause asks ("close the fridge") and the things it names, "it" as the
        parser reads it (the thing said last that can take the state); none where not grounded."""
        previous: StateSaid | None = None
        mentions: list[str] = []  # the things and places said, in order
        for clause in _SPLIT.split(text):
            said = state_said(clause)
            if said is None and previous is not None and not _leading_verb(clause):
                said = self.parser.same_state(previous, _strip_clause(clause))  # "turn off the tv and the lamp"
            previous = said
            if said is None:
                mentions.extend(self._clause_places(clause))
                continue
            try:
                things = tuple(self.parser.state_things(said, mentions))
            except GoalError:
                things = ()
            mentions.extend(things)
            reading.states.append((said.rel, things))

    def _clause_places(self, clause: str) -> list[str]:
        """The furniture a placement clause names as its place ([] when none is clear)."""
        try:
            return self.parser.said_place(self.parser._split_clause(clause, _strip_clause(clause)).dest)
        except GoalError:
            return []

    def goal(self, directive: str) -> tuple[GoalItem, ...]:
        """The parser's goal, asking where one answer settles it (NeedsAnswer); GoalError saying why
        it does not read the directive (DirectiveRefused: what the words say is refused)."""
        return tuple(GoalItem(i.rel, i.obj_type, i.destination, i.count) for i in self.parser.parse(directive))

    def _mentions(self, tokens: list[str], reading: DirectiveReading) -> None:
        clause, start = 0, None
        chunks: list[tuple[int, int, int]] = []
        for i, tok in enumerate([*tokens, ","]):
            if tok in _BOUNDARIES or tok in self._stop or tok.isdigit():
                if start is not None:
                    chunks.append((start, i, clause))
                    start = None
                if tok in _BOUNDARIES:
                    clause += 1
            elif start is None:
                start = i
        clause = 0
        for tok in tokens:  # verbs implying a place ("chill the milk": the fridge)
            if tok in _BOUNDARIES:
                clause += 1
            elif tok in self.parser.commonsense.verb_places:
                place = self.parser.place_words.get(self.parser.commonsense.verb_places[tok][0])
                if place:
                    reading.verb_places.setdefault(clause, []).append(place)
        for begin, end, clause in chunks:
            obj = self._object(tokens, begin, end, clause)
            if obj is not None:
                last = reading.objects[-1] if reading.objects else None
                if last is None or (last.name, last.clause) != (obj.name, obj.clause):  # "a slice of bread": one
                    reading.objects.append(obj)
                continue
            where = self._place(tokens, begin, end, clause)
            if where is not None:
                reading.places.append(where)

    def _object(self, tokens: list[str], begin: int, end: int, clause: int) -> Mention | None:
        """The object a chunk names (its last words: "red apples" -> apple) and the count said before it."""
        for start in range(begin, end):
            try:
                obj_type, is_plural = self.parser.ground_type(" ".join(tokens[start:end]))
            except GoalError:
                continue
            first = begin  # the quantity words just before the name, for messages
            while first > 0 and (tokens[first - 1] in _QUANTITY_WORDS or tokens[first - 1].isdigit()):
                first -= 1
            said = " ".join(tokens[first:end])
            try:
                amount, _rest = quantity(tokens[:begin], trailing=True)
            except GoalError:  # no count the reader reads
                return Mention(obj_type, start, end, clause, None, said)
            if amount.vague or amount.choices:  # "some", "a few", "two or three": no count
                return Mention(obj_type, start, end, clause, None, said)
            count = self._count(obj_type, amount.count, is_plural, amount.pairs, amount.every)
            return Mention(obj_type, start, end, clause, count, said)
        return None

    def _count(self, obj_type: str, said: int | None, is_plural: bool, pairs: bool, every: bool) -> int:
        """The count the words say, as the offline parser counts (``GoalParser._count``)."""
        text = name_to_text(obj_type)
        pair_noun = is_pair_noun(text)
        if every or (said is None and is_plural and not pair_noun):
            return self.world.count(obj_type)
        count = 1 if said is None else said
        return count * 2 if pairs and not pair_noun else count

    def _place(self, tokens: list[str], begin: int, end: int, clause: int) -> Mention | None:
        after = [t for t in tokens[end:end + 4] if t not in DEFINITE]
        room = next((r for r in (" ".join(after[1:3]), " ".join(after[1:2])) if r in self._rooms), "") \
            if after[:1] == ["in"] else ""
        for start in range(begin, end):
            phrase = " ".join(tokens[start:end])
            for candidate in ([f"{room} {phrase}"] if room else []) + [phrase]:  # "the table in the kitchen"
                try:
                    place = self.parser.ground_place(candidate)
                except GoalError:
                    continue
                prev = [t for t in tokens[max(0, begin - 3):begin] if t not in DEFINITE]
                source = bool(prev) and (prev[-1] in _SOURCE_WORDS or prev[-2:] == ["out", "of"])
                return Mention(place, start, end, clause, source=source, said=phrase)
        return None


def directive_reader(resources: Resources, world: WorldInfo) -> DirectiveReader:
    """The directive reader of one scene, built once per backend resources and scene."""
    return resources.shared(("directive_reader", world.fingerprint(), tuple(sorted(world.switch_at.items()))),
                            lambda: DirectiveReader(goal_parser(resources, world)))


def read_directive(text: str, world: WorldInfo, resources: Resources) -> Goal:
    """The goal a directive asks for in one scene, read with no language model: every path that
    reads a directive reads it here (the offline backend's translation, the reader's goal that a
    model backend keeps, the Levy-Karpas channel held to the reader). GoalError says why it is not
    read (another language, a phrasing the reader lacks); NeedsAnswer (a GoalError) carries the
    question one answer settles (which table, how many); DirectiveRefused what no path accepts (a
    count that is no positive whole number, a negation). ``resources`` are the backend's: the
    Sentence-BERT grounder and the configuration (``offline.goal_parser``, ``offline.commonsense``)."""
    return directive_reader(resources, world).goal(text)


def read_answer(question: Question, answer: str, world: WorldInfo, resources: Resources) -> Option | None:
    """The option an answer to ``question`` picks, read as directives are: first what the
    question itself reads (an option's name or room, "the second one", "two", "yes"); then the
    answer grounded with the scene's lexicons and Sentence-BERT ("the dining table" is the kitchen
    table, "the wineglass" the wine glass). None when it names no option, or another thing."""

    option = question.read(answer)
    if option is not None or question.kind in (COUNT, CONFIRM):
        return option
    phrase = clean_answer(answer)
    if not phrase or len(phrase.split()) > 6:
        return None
    by_value = {o.value: o for o in question.options}
    parser = directive_reader(resources, world).parser
    for ground in (parser.ground_place, lambda p: parser.ground_type(p)[0]):
        try:
            name = ground(phrase)
        except GoalError:
            continue
        if name in by_value:
            return by_value[name]
    return None
