"""The offline goal parser: a household directive to goal tuples from rules plus embeddings, the
offline answer to the goal-interpretation question of LLM-MCTS (seed 000, §2.2 "Goal", App. F
listing 3: "put one apple into the fridge" -> (apple, inside, fridge)).

Rules handle the grammar: polite wrappers ("could you ... please"), clauses joined by "and",
"then" or commas, counts as words or digits ("two", "a couple of", "3", "both", "all"),
relations (in/inside/into -> INSIDE, on/onto/on top of -> ON, "to"/"at" -> by the furniture's
kind), objects listed before one shared destination ("an apple and a banana in the fridge").
Names are grounded to the scene in three steps: the scene's own word for a name (singular or
plural), the commonsense file's synonyms (refrigerator -> fridge, couch -> sofa, phone ->
cellphone), then Sentence-BERT cosine over the scene's names. Below the threshold the parser
raises GoalError naming the closest known names.

Imperfect where rules are: it does not understand negation ("everything except the apple"),
references ("put it back"), or destinations given as rooms.
"""
from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass

from llm_planner.errors import GoalError
from llm_planner.llm.commonsense import Commonsense
from llm_planner.llm.grounding import Grounder
from llm_planner.llm.text import WorldInfo, name_to_text, plural
from llm_planner.world.symbolic import INSIDE, ON

NUMBERS = {
    "a": 1, "an": 1, "one": 1, "single": 1, "another": 1, "the": 1, "this": 1, "that": 1, "my": 1,
    "two": 2, "both": 2, "couple": 2, "pair": 2, "three": 3, "four": 4, "five": 5, "six": 6,
    "seven": 7, "eight": 8, "nine": 9, "ten": 10,
}
ALL_WORDS = ("all", "every", "each")
VERBS = (
    "put", "place", "move", "bring", "take", "store", "set", "leave", "carry", "get", "drop", "stash",
    "load", "keep", "pop", "stick", "transfer", "return", "lay", "stack", "position", "relocate", "hang",
    "toss", "throw", "slide", "stow", "tidy", "deliver", "fetch", "rearrange", "arrange", "shift", "insert",
)
_GERUNDS = {"putting": "put", "placing": "place", "moving": "move", "bringing": "bring", "taking": "take",
            "storing": "store", "setting": "set", "leaving": "leave", "carrying": "carry", "getting": "get",
            "dropping": "drop", "loading": "load", "keeping": "keep", "stacking": "stack", "laying": "lay",
            "returning": "return", "transferring": "transfer", "tossing": "toss", "throwing": "throw"}
_POLITE_START = re.compile(
    r"^(?:(?:hey|hi|hello|ok|okay)\s+)?(?:robot\s*[,:]?\s*)?"
    r"(?:(?:please|kindly|now|then|just|also|first|next|finally|and)\s+"
    r"|would\s+you\s+mind\s+|(?:could|can|would|will)\s+you(?:\s+please)?(?:\s+kindly)?\s+|do\s+me\s+a\s+favou?r\s+and\s+|go\s+ahead\s+and\s+|make\s+sure\s+(?:that\s+)?(?:you\s+)?"
    r"|i(?:\s+want|\s+need|\s+would\s+like|'d\s+like|\s+d\s+like)\s+(?:you\s+)?to\s+|let'?s\s+|help\s+me\s+"
    r"|(?:your\s+)?task\s+is\s+to\s+|you\s+should\s+|try\s+to\s+|remember\s+to\s+)+"
)
_POLITE_END = re.compile(
    r"(?:\s*,?\s*(?:please|for\s+me|thanks|thank\s+you|if\s+you\s+can|if\s+you\s+could|when\s+you\s+can"
    r"|right\s+now|now|asap|as\s+well|too))+$"
)
_SPLIT = re.compile(r"\s*(?:,|;|\band\s+then\b|\bthen\b|\bafter\s+that\b|\balso\b|\bas\s+well\s+as\b|\band\b|&)\s*")
# Prepositions that start the destination, longest first.
_RELATIONS = (
    ("on top of", ON), ("inside of", INSIDE), ("back into", INSIDE), ("back inside", INSIDE),
    ("back in", INSIDE), ("back onto", ON), ("back on", ON), ("back to", ""), ("over to", ""),
    ("inside", INSIDE), ("into", INSIDE), ("in", INSIDE), ("onto", ON), ("on", ON), ("to", ""),
    ("at", ""), ("upon", ON), ("within", INSIDE), ("beside", ""), ("by", ""),
)
_REL_PATTERN = re.compile(r"\b(" + "|".join(re.escape(w) for w, _ in _RELATIONS) + r")\b")
_REL_OF = dict(_RELATIONS)
_DETERMINERS = re.compile(r"^(?:the|a|an|some|my|our|your|this|that|these|those|of)\s+")
_FILLER_ADVERBS = re.compile(r"\b(?:away|back|up|down|over|please|carefully|gently|quickly)\b")


@dataclass(frozen=True)
class ParsedItem:
    rel: str            # INSIDE / ON
    obj_type: str       # scene type name
    destination: str    # scene furniture name
    count: int


@dataclass(frozen=True)
class _Clause:
    count: int | None   # None: not said (1, or all of them for a plural noun)
    obj: str            # object phrase
    rel: str            # relation word ("" when none was said)
    dest: str           # destination phrase ("" when none was said)
    pairs: bool         # counted in pairs ("two pairs of glasses")


class GoalParser:
    """Rules + embeddings goal parser for one scene (see the module docstring)."""

    def __init__(self, world: WorldInfo, commonsense: Commonsense, grounder: Grounder,
                 min_score: float = 0.58) -> None:
        self.world = world
        self.grounder = grounder
        self.min_score = min_score
        self.types = list(world.object_types)
        self.furniture = list(world.furniture)
        self.type_words = self._type_words(commonsense)
        self.place_words = self._place_words(commonsense)

    # ---------------------------------------------------------------- lexicons
    def _type_words(self, cs: Commonsense) -> dict[str, tuple[str, bool]]:
        """Surface word -> (scene type, plural?): the scene's own names first, then the aliases."""
        words: dict[str, tuple[str, bool]] = {}
        index = cs.alias_index()
        by_entry: dict[str, list[str]] = {}
        for word, entry in index.items():
            by_entry.setdefault(entry, []).append(word)
        for t in self.types:
            text = name_to_text(t)
            for w in (text, t, text.replace(" ", "")):
                words.setdefault(w, (t, False))
            words.setdefault(plural(text), (t, True))
        for t in self.types:
            text = name_to_text(t)
            entry = index.get(text) or index.get(text.replace(" ", ""))
            for word in by_entry.get(entry, []) if entry else []:
                words.setdefault(word, (t, False))
                words.setdefault(plural(word), (t, True))
        return words

    def _place_words(self, cs: Commonsense) -> dict[str, str]:
        words: dict[str, str] = {}
        for f in self.furniture:
            text = name_to_text(f)
            for w in (text, f, text.replace(" ", ""), plural(text)):
                words.setdefault(w, f)
        for place, aliases in cs.place_aliases.items():
            target = words.get(place)
            if target is None:
                continue
            for w in aliases:
                words.setdefault(w, target)
        return words

    # ------------------------------------------------------------------ parse
    def parse(self, directive: str) -> list[ParsedItem]:
        text = normalize(directive)
        if not text:
            raise GoalError("the directive is empty; say what to move where, e.g. 'put one apple inside the fridge'")
        clauses = [self._split_clause(c) for c in (_strip_clause(c) for c in _SPLIT.split(text)) if c]
        # Objects listed before a shared destination take the next destination (else the previous).
        for i, clause in enumerate(clauses):
            if clause.dest:
                continue
            source = next((c for c in clauses[i + 1:] if c.dest), None) or \
                next((c for c in reversed(clauses[:i]) if c.dest), None)
            if source is None:
                raise GoalError(f"say where to put the {clause.obj or 'object'} (e.g. 'inside the fridge' or "
                                f"'on the kitchen table')")
            clauses[i] = dataclasses.replace(clause, rel=source.rel, dest=source.dest)
        items: dict[tuple[str, str, str], int] = {}
        for clause in clauses:
            if not clause.obj:
                raise GoalError(f"say which object to put {clause.rel} the {clause.dest}")
            obj_type, is_plural = self.ground_type(clause.obj)
            destination = self.ground_place(clause.dest)
            rel = _REL_OF.get(clause.rel, "") or self.world.relation(destination)
            count = clause.count
            if count is None:
                count = self.world.count(obj_type) if is_plural else 1
            if clause.pairs and not name_to_text(obj_type).endswith("s"):
                count *= 2  # "a pair of apples" is two apples; "a pair of glasses" one pair of glasses
            key = (rel, obj_type, destination)
            items[key] = items.get(key, 0) + count
        return [ParsedItem(r, o, d, c) for (r, o, d), c in items.items()]

    def _split_clause(self, clause: str) -> "_Clause":
        match = _REL_PATTERN.search(clause)
        if match is None:
            head, rel, dest = clause, "", ""
        else:
            head, rel, dest = clause[:match.start()].strip(), match.group(1), clause[match.end():].strip()
        count, obj, pairs = _count_and_object(head)
        return _Clause(count, obj, rel, _clean_place(dest), pairs)

    # -------------------------------------------------------------- grounding
    def ground_type(self, phrase: str) -> tuple[str, bool]:
        """(scene type, whether the phrase was plural)."""
        phrase = _DETERMINERS.sub("", phrase.strip())
        for candidate in (phrase, _singular(phrase)):
            if candidate in self.type_words:
                obj_type, is_plural = self.type_words[candidate]
                return obj_type, is_plural or candidate != phrase
        if phrase in self.place_words or _singular(phrase) in self.place_words:
            furniture = self.place_words.get(phrase) or self.place_words[_singular(phrase)]
            raise GoalError(f"'{phrase}' is furniture ({furniture}) and cannot be moved; the robot moves objects "
                            f"such as {', '.join(self.types[:3])} into or onto furniture")
        match = self.grounder.ground_name(phrase, self.types, self.min_score)
        if match is None:
            raise GoalError(f"this apartment has no '{phrase}'; the closest objects are "
                            f"{self._closest(phrase, self.types)}")
        text = name_to_text(match.name)
        return match.name, phrase.endswith("s") and not text.endswith("s")

    def ground_place(self, phrase: str) -> str:
        if phrase in self.place_words:
            return self.place_words[phrase]
        singular = _singular(phrase)
        if singular in self.place_words:
            return self.place_words[singular]
        for room in self.world.rooms:  # "the table in the kitchen" -> "the table" + room context
            suffix = f" in the {name_to_text(room)}"
            if phrase.endswith(suffix):
                phrase = f"{name_to_text(room)} {phrase[:-len(suffix)]}"
                if phrase in self.place_words:
                    return self.place_words[phrase]
        if phrase in (name_to_text(r) for r in self.world.rooms):
            raise GoalError(f"'{phrase}' is a room; say on or in which furniture to put it "
                            f"(e.g. {self._closest(phrase, self.furniture)})")
        match = self.grounder.ground_name(phrase, self.furniture, self.min_score)
        if match is None:
            raise GoalError(f"this apartment has no '{phrase}' to put things in or on; the closest are "
                            f"{self._closest(phrase, self.furniture)}")
        return match.name

    def _closest(self, phrase: str, names: list[str], k: int = 3) -> str:
        return ", ".join(m.name for m in self.grounder.rank_names(phrase, names)[:k])


def normalize(directive: str) -> str:
    """Lower case, plain quotes, no trailing punctuation, polite wrappers removed, gerunds as verbs."""
    text = directive.lower().replace("\u2019", "'").replace("\u2018", "'")
    text = re.sub(r"[.!?;]+(?=\s+\S)", ",", text)  # sentences inside a directive are clauses
    text = re.sub(r"[\"!?.]+", " ", text)
    text = re.sub(r"\s+", " ", text).strip(" ,;:")
    previous = None
    while previous != text:
        previous = text
        text = _POLITE_START.sub("", text).strip(" ,;:")
        text = _POLITE_END.sub("", text).strip(" ,;:")
    words = text.split()
    return " ".join(_GERUNDS.get(w, w) for w in words)


def _strip_clause(clause: str) -> str:
    clause = clause.strip(" ,;:")
    clause = _POLITE_START.sub("", clause).strip()
    words = clause.split()
    while words and (words[0] in VERBS or words[0] in _GERUNDS):
        words = words[1:]
    return " ".join(words)


def _count_and_object(head: str) -> tuple[int | None, str, bool]:
    """(count or None, object phrase, whether it was counted in pairs: "two pairs of glasses")."""
    words = _FILLER_ADVERBS.sub(" ", head).split()
    count: int | None = None
    pairs = False
    while words:
        w = words[0]
        if w.isdigit():
            count = int(w)
        elif w in ALL_WORDS:
            count = None  # "all the apples": every one in the scene (decided by the plural noun)
        elif w in ("pair", "pairs"):
            pairs = True
        elif w == "couple":
            count = 2
        elif w in NUMBERS and w not in ("the", "this", "that", "my"):
            count = NUMBERS[w]
        elif w in ("the", "this", "that", "my", "of", "some", "our", "your", "these", "those"):
            pass
        else:
            break
        words = words[1:]
    return count, " ".join(words), pairs


def _clean_place(phrase: str) -> str:
    phrase = _FILLER_ADVERBS.sub(" ", phrase)
    phrase = _DETERMINERS.sub("", " ".join(phrase.split()))
    phrase = re.sub(r"^(?:top of|the top of|inside of)\s+(?:the\s+)?", "", phrase)
    return " ".join(phrase.split())


def _singular(word: str) -> str:
    if word.endswith("ies"):
        return word[:-3] + "y"
    if word.endswith("ves"):
        return word[:-3] + "fe"
    if word.endswith(("ches", "shes", "sses", "xes")):
        return word[:-2]
    if word.endswith("s") and not word.endswith("ss"):
        return word[:-1]
    return word

