"""Clauses of a directive: the unit both translation channels read (seed 001 feeds whole
directives to a sequence model; our offline channels read them clause by clause).

    >>> split_clauses("Please go to the kitchen, pick up the apple and then put it in the fridge.")
    ['go to the kitchen', 'pick up the apple', 'put it in the fridge']

Clause labels (what a clause asks for): ``walk``, ``grab``, ``open``, ``close`` and ``put`` (one
household action each) and ``bring`` (a goal: fetch an object and leave it somewhere).
"""
from __future__ import annotations

import re

from llm_planner.reading import normalize

LABELS = ("walk", "grab", "open", "close", "put", "bring")
PRONOUNS = ("it", "them", "that", "this one")

_SPLIT = re.compile(r"\s*(?:[,;.!?]+|\band\s+then\b|\bafter\s+that\b|\bthen\b|\band\b)\s*")


def split_clauses(text: str) -> list[str]:
    """Lower-cased clauses without polite wrappers (``llm_planner.reading.normalize`` on each fragment)."""
    text = text.lower().replace("\u2019", "'").replace("\u2018", "'")
    out = []
    for fragment in _SPLIT.split(text):
        clean = normalize(fragment) if fragment.strip() else ""
        if clean:
            out.append(clean)
    return out
