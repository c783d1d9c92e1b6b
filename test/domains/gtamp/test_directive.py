"""The G-TAMP directive grammar (domains/gtamp/directive.py): the phrasings it accepts, read into
the problem's goal atoms, and clear refusals that say what was wrong and what the problem knows."""
from __future__ import annotations

import pytest

from llm_planner.domains.gtamp.directive import normalise, parse_directive
from llm_planner.domains.gtamp.domain import GoalAtom
from llm_planner.errors import GoalError

SALTER_ON_TABLE2 = GoalAtom("salter", "on", "table2")
SALTER_RIGHT_OF_BOTTLE1 = GoalAtom("salter", "right_of", "bottle1")


def test_normalise_lowers_drops_punctuation_and_joins_numbered_names():
    assert normalise("  Put the Salter on Table 2!  ") == "put the salter on table2"


@pytest.mark.parametrize("directive", ["solve the problem", "Please solve P2.", "solve", "achieve the goal",
                                       "complete this task", "do the problem p2"])
def test_solve_phrasings_give_the_problem_file_goal(p2, directive):
    goal, how = parse_directive(directive, p2)
    assert goal == p2.goal == (SALTER_ON_TABLE2, SALTER_RIGHT_OF_BOTTLE1)
    assert how.startswith("the goal of problem P2") and p2.description.strip() in how


@pytest.mark.parametrize("directive, expected", [
    ("put the salter on table 2 and right of bottle 1", (SALTER_ON_TABLE2, SALTER_RIGHT_OF_BOTTLE1)),
    ("place salter onto table2, to the right of bottle1", (SALTER_ON_TABLE2, SALTER_RIGHT_OF_BOTTLE1)),
    ("move the salter on top of the table 2 and then right of the bottle 1",
     (SALTER_ON_TABLE2, SALTER_RIGHT_OF_BOTTLE1)),
    ("Place the salter to the right of bottle1, and put bottle2 on counter1",
     (SALTER_RIGHT_OF_BOTTLE1, GoalAtom("bottle2", "on", "counter1"))),
    ("set bottle3 in front of bottle2 and behind bottle1",
     (GoalAtom("bottle3", "front_of", "bottle2"), GoalAtom("bottle3", "behind_of", "bottle1"))),
    ("put the salter left of bottle1", (GoalAtom("salter", "left_of", "bottle1"),)),
])
def test_put_clauses_become_goal_atoms_in_order(p2, directive, expected):
    goal, how = parse_directive(directive, p2)
    assert goal == expected
    assert how.startswith("the directive read as (AtPosition, ")


@pytest.mark.parametrize("directive, says", [
    ("solve P3", "the running problem is P2, not P3"),
    ("put the fork on table2", "unknown object 'fork'"),
    ("put the salter on the moon", "'on' needs a region, got 'moon'"),
    ("right of bottle1", "which object?"),
    ("put the salter under table2", "cannot read 'put the salter under table2'"),
    ("put the salter left of salter", "cannot be left_of itself"),
    ("make me a sandwich", "say 'solve the problem' or 'put the OBJECT on REGION'"),
])
def test_refusals_say_what_was_wrong(p2, directive, says):
    with pytest.raises(GoalError) as info:
        parse_directive(directive, p2)
    assert says in str(info.value)


def test_refusals_name_what_the_problem_knows(p2):
    with pytest.raises(GoalError, match=r"objects: bottle1, bottle2, bottle3, salter"):
        parse_directive("put the fork on table2", p2)
    with pytest.raises(GoalError, match=r"regions: counter1, counter2, .*table2"):
        parse_directive("put the salter on the moon", p2)
