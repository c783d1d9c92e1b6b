"""A tiny grammar that turns a G-TAMP directive into the problem's goal atoms (no language model).

Two forms, over the names of the loaded problem (objects, regions, directions):

* ``solve the problem`` (also ``solve``, ``solve P2``, ``achieve the goal``): the goal of the
  problem file;
* clauses ``put|place|move|set [the] OBJ DIRECTION [the] REF``, joined by ``and`` or commas;
  a clause may leave out the verb and object to reuse the previous object
  (``put the salter on table 2 and right of bottle 1``). DIRECTION is ``on``/``onto``,
  ``left of``, ``right of``, ``in front of``, ``behind``; ``table 2`` means ``table2``.

Unknown names or an unparsable clause raise :class:`GoalError` saying what was wrong and what
the problem knows::

    atoms, how = parse_directive("put the salter on table 2", problem)
"""
from __future__ import annotations

import re

from llm_planner.domains.gtamp.domain import GoalAtom, ProblemSpec
from llm_planner.domains.gtamp.problems import parse_goal
from llm_planner.errors import GoalError

_SOLVE = re.compile(r"^(?:please )?(?:solve|achieve|complete|do)(?: (?:the|this))?(?: (?:problem|task|goal))?"
                    r"(?: (?P<name>p\d+))?$")
_DIRECTIONS = {"on top of": "on", "onto": "on", "on": "on", "to the left of": "left_of", "left of": "left_of",
               "to the right of": "right_of", "right of": "right_of", "in front of": "front_of",
               "front of": "front_of", "behind of": "behind_of", "behind": "behind_of"}
_DIR = "|".join(sorted((re.escape(d) for d in _DIRECTIONS), key=len, reverse=True))
_CLAUSE = re.compile(rf"^(?:(?:please )?(?:put|place|move|set|bring) (?:the )?(?P<obj>[a-z0-9_]+) )?"
                     rf"(?P<dir>{_DIR}) (?:the )?(?P<ref>[a-z0-9_]+)$")


def normalise(text: str) -> str:
    """Lower case, punctuation dropped, ``table 2`` -> ``table2``, single spaces."""
    text = re.sub(r"[.!?;:]+", " ", text.lower())
    text = re.sub(r"\b([a-z]+) (\d+)\b", r"\1\2", " ".join(text.split()))
    return text.strip()


def parse_directive(directive: str, problem: ProblemSpec) -> tuple[tuple[GoalAtom, ...], str]:
    """The goal atoms a directive asks for and a sentence saying how they were read."""
    text = normalise(directive)
    solve = _SOLVE.match(text)
    if solve:
        name = solve.group("name")
        if name and name.upper() != problem.name.upper():
            raise GoalError(f"the running problem is {problem.name}, not {name.upper()}")
        return problem.goal, f"the goal of problem {problem.name} ({problem.description.strip()})"
    atoms, obj = [], None
    for clause in (c for c in re.split(r",? and (?:then )?|, ", text) if c):
        match = _CLAUSE.match(clause)
        if not match:
            raise GoalError(f"cannot read {clause!r}: say 'solve the problem' or 'put the OBJECT on REGION' / "
                            "'put the OBJECT left of|right of|in front of|behind OBJECT'")
        obj = match.group("obj") or obj
        if obj is None:
            raise GoalError(f"{clause!r}: which object? say 'put the OBJECT {match.group('dir')} ...'")
        atoms.append([obj, _DIRECTIONS[match.group("dir")], match.group("ref")])
    goal = parse_goal(problem, atoms, where="directive")
    return goal, "the directive read as " + ", ".join(str(a) for a in goal)
