"""The safe parser of LLM task plans: the seed's format, sloppy spellings, hostile text."""
from __future__ import annotations

import builtins

import pytest

from llm_planner.domains.gtamp.domain import TaskAction
from llm_planner.methods.stalm.plan_parser import MAX_STEPS, Vocabulary, parse_plan

act = TaskAction.of
VOCAB = Vocabulary(["salter", "bottle1", "beef_grill"], ["counter2", "table1"], ["kitchen_door"])


def test_seed_appendix_e_response_with_typographic_quotes_and_comments():
    text = """## Possible Challenges for unachieved goals based on current state ##
1. (pick, salter) is occluded by `bottle1` -- a tuple in the challenges is not the plan
## Plan ##
plan = [ (\u2019open\u2019, \u2019kitchen door\u2019), # Open the kitchen door to prevent occlusion
(\u2019pick\u2019, \u2019bottle1\u2019), # Pick bottle1 from table2
("place", "bottle1", "left of", "salter"),
('pick', 'Beef Grill'),
('place', 'beef grill', 'on', 'Counter2') # finally
]"""
    parsed = parse_plan(text, VOCAB)
    assert parsed.complete
    assert parsed.actions == (act("open", "kitchen_door"), act("pick", "bottle1"),
                              act("place", "bottle1", "left_of", "salter"), act("pick", "beef_grill"),
                              act("place", "beef_grill", "on", "counter2"))


def test_plan_is_cut_at_the_first_bad_step_with_the_reason():
    parsed = parse_plan("plan = [('pick', 'salter'), ('place', 'salter', 'on', 'sink'), ('pick', 'bottle1')]", VOCAB)
    assert parsed.actions == (act("pick", "salter"),)
    assert parsed.errors == ("step 2: unknown name 'sink'",)
    assert "unknown action 'teleport'" in parse_plan("plan = [('teleport', 'salter')]", VOCAB).errors[0]
    assert "takes 1 argument" in parse_plan("plan = [('pick', 'salter', 'bottle1')]", VOCAB).errors[0]
    assert "unknown direction" in parse_plan("plan = [('place', 'salter', 'under', 'table1')]", VOCAB).errors[0]


def test_validator_from_the_model_is_applied():
    parsed = parse_plan("plan = [('pick', 'salter'), ('pick', 'bottle1')]", VOCAB,
                        validate=lambda a: "nope" if a.args == ("bottle1",) else "")
    assert parsed.actions == (act("pick", "salter"),) and parsed.errors == ("step 2: nope",)


@pytest.mark.parametrize("text, error", [
    ("plan = [__import__('os').system('rm -rf /'), ('pick', 'salter')]", "unknown action 'os'"),
    ("plan = [('pick', exec('print(1)'))]", "nested brackets"),
    ("plan = [('pick', 'salter\n", "unterminated string"),
    ("plan = [('pick', 'salter'", "unterminated step"),
    ("plan = [('pick', '" + "x" * 500 + "')]", "token too long"),
    ("plan = [('pick', 'sal;ter')]", "unexpected characters"),
    ("I cannot help with that.", "no plan found"),
    ("", "no plan found"),
])
def test_hostile_or_broken_text_gives_errors_and_is_never_evaluated(monkeypatch, text, error):
    def refuse(*_a, **_k):
        raise AssertionError("the parser must not evaluate text")

    monkeypatch.setattr(builtins, "eval", refuse)
    monkeypatch.setattr(builtins, "exec", refuse)
    parsed = parse_plan(text, VOCAB)
    assert error in " ".join(parsed.errors)


def test_bounds_on_size_and_length():
    long_plan = "plan = [" + ", ".join(["('pick', 'salter')"] * (MAX_STEPS + 5)) + "]"
    parsed = parse_plan(long_plan, VOCAB)
    assert len(parsed.actions) == MAX_STEPS and "longer than" in parsed.errors[0]
    assert parse_plan("(" * 200_000, VOCAB).errors
    assert parse_plan(None, VOCAB).errors == ("response is not text",)  # type: ignore[arg-type]
    assert parse_plan("## Plan ##\nplan = []", VOCAB).actions == ()
