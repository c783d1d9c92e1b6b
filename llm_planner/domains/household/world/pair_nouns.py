"""Nouns counted in pairs: a fact of the household world's language that both the task generator
(``tasks.py``: "a pair of scissors") and the language-model layer (the offline goal parser reads
"a pair of scissors" as one scissors) use; here so that neither imports the other."""
from __future__ import annotations

#: Nouns with no singular, counted in pairs ("a pair of scissors", "two pairs of headphones"): one
#: object of such a type is one pair. The instruction generator says "a pair of ..." for them, and
#: the offline goal parser reads "a pair of scissors" as one scissors (not two).
PAIR_NOUNS = ("glasses", "spectacles", "sunglasses", "goggles", "binoculars", "pants", "trousers", "jeans", "shorts",
              "leggings", "tights", "pyjamas", "pajamas", "overalls", "scissors", "shears", "pliers", "tongs",
              "tweezers", "clippers", "headphones", "earphones", "earbuds", "earrings", "shoes", "boots", "sandals",
              "sneakers", "trainers", "slippers", "socks", "gloves", "mittens", "chopsticks")


def is_pair_noun(text: str) -> bool:
    """Whether a rendered type name (``nail clippers``) is counted in pairs (its last word in PAIR_NOUNS)."""
    words = text.split()
    return bool(words) and (text in PAIR_NOUNS or words[-1] in PAIR_NOUNS)
