"""Word forms of the household's names, as sentences say them: ``kitchen_table`` is "kitchen
table", one apple, two "apples", "an apple". The household's sentences
(``llm_planner.domains.household.language.text``) and the directive reader (``llm_planner.reading``)
both use them; here so that neither imports the other."""
from __future__ import annotations

_VOWELS = "aeiou"


def name_to_text(name: str) -> str:
    """``kitchen_table`` -> ``kitchen table``; ``apple_1`` -> ``apple 1``."""
    return name.replace("_", " ").strip()


def clean_phrase(text: str) -> str:
    """A phrase or a name as words are compared: lower case, no underscores, no punctuation around it,
    single spaces (``" Kitchen_Table."`` -> ``kitchen table``)."""
    return " ".join(text.lower().replace("_", " ").strip(" .,;:!?\"'`").split())


def article(text: str) -> str:
    return "an" if text[:1].lower() in _VOWELS else "a"


def plural(noun: str) -> str:
    """Plural of a rendered type name for sentences (``apple`` -> ``apples``, ``glass`` -> ``glasses``)."""
    if noun.endswith(("s", "x", "ch", "sh")):
        return noun + "es"
    if noun.endswith("y") and noun[-2:-1] not in _VOWELS:
        return noun[:-1] + "ies"
    if noun.endswith("fe"):
        return noun[:-2] + "ves"
    return noun + "s"


def singular(word: str) -> str:
    """The singular of a plural word as people write them (``boxes`` -> ``box``, ``knives`` -> ``knife``)."""
    if word.endswith("ies"):
        return word[:-3] + "y"
    if word.endswith("ves"):
        return word[:-3] + "fe"
    if word.endswith(("ches", "shes", "sses", "xes")):
        return word[:-2]
    if word.endswith("s") and not word.endswith("ss"):
        return word[:-1]
    return word
