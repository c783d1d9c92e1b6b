"""How many a directive asks for: number words, "all"/"every", pairs ("two pairs of socks"), and
vague counts ("some apples"), which the offline goal parser refuses with a clear message."""
from __future__ import annotations

import re

from llm_planner.errors import GoalError

NUMBERS = {
    "a": 1, "an": 1, "one": 1, "single": 1, "another": 1, "the": 1, "this": 1, "that": 1, "my": 1,
    "two": 2, "both": 2, "couple": 2, "pair": 2, "three": 3, "four": 4, "five": 5, "six": 6,
    "seven": 7, "eight": 8, "nine": 9, "ten": 10,
}
COUNT_WORDS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9,
                "ten": 10, "single": 1, "another": 1, "a": 1, "an": 1}
ALL_WORDS = ("all", "every", "each")
VAGUE_COUNTS = ("some", "few", "several", "many", "bunch", "lot", "lots", "any", "more", "most")
DEFINITE = ("the", "my", "this", "that", "these", "those", "our", "your", "his", "her", "their")
FILLER_ADVERBS = re.compile(r"\b(?:away|back|up|down|over|please|carefully|gently|quickly|out)\b")


def quantity(words: list[str], trailing: bool = False) -> tuple[int | None, list[str], bool, bool]:
    """(count, remaining words, pairs, every) of quantity words: at the start of ``words``, or with
    ``trailing`` the run of quantity words that ends ``words`` (what precedes an object's name)."""
    count: int | None = None
    pairs = every = False
    words = [w for w in words if not FILLER_ADVERBS.fullmatch(w)]
    if trailing:  # walk back over the quantity phrase just before the name
        i = len(words)
        while i > 0:
            w = words[i - 1]
            if w in DEFINITE or w == "of":
                i -= 1
            elif w.isdigit():
                count, i = int(w), i - 1
            elif w in ALL_WORDS:
                every, i = True, i - 1
            elif w in ("pair", "pairs"):
                pairs, i = True, i - 1
                count = count if count is not None else 1
            elif w in ("couple", "both"):
                count, i = 2, i - 1
            elif w in COUNT_WORDS:
                if count is None or (pairs and count == 1):  # "a couple": 2; "two pairs": 2 pairs
                    count = COUNT_WORDS[w]
                i -= 1
            elif w in VAGUE_COUNTS:
                raise GoalError(f"'{w}' does not say how many; give a number, e.g. 'two'")
            else:
                break
        if words[i:i + 2] == ["one", "of"]:  # "one of the apples"
            count, every = 1, False
        return count, words[:i], pairs, every
    rest = list(words)
    while rest:
        w = rest[0]
        if w.isdigit():
            count = int(w)
        elif w in ALL_WORDS:
            every = True
        elif w in ("pair", "pairs"):
            pairs = True
        elif w in ("couple", "both"):
            count = 2
        elif w in COUNT_WORDS:
            count = COUNT_WORDS[w]
        elif w in VAGUE_COUNTS:
            raise GoalError(f"'{w}' does not say how many; give a number, e.g. 'two'")
        elif w in DEFINITE or w == "of":
            pass
        else:
            break
        rest = rest[1:]
    return count, rest, pairs, every
