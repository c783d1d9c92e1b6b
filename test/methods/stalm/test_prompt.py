"""CreatePrompt (seed Figure 3) and its ablations; the baselines' prompts."""
from __future__ import annotations

from llm_planner.domains.gtamp.domain import TaskAction
from llm_planner.domains.gtamp.predicates import Literals
from llm_planner.methods.stalm.prompt import PromptOptions, create_prompt, replanning_prompt, saycan_prompt

LITS = Literals(None, ("kitchen_door",), (("salter", "on", "counter2"),), (("salter", "bottle2"),),
                (("salter", "on", "table1", "kitchen_door"),))


def test_prompt_has_the_seed_sections_in_order(p2):
    text = create_prompt(p2, LITS)
    keys = ["Task Instruction", "## Possible challenges", "## Plan ##", "Domain Description (Predicates)",
            "(:derived (UnsafePick", "Domain Description (Actions)", "(:action pick", "(:objects",
            "salter - movable_object", "counter1 - region", "kitchen_door - door", "(:init",
            "(HandAvailable, )", "(IsClosed, kitchen_door)", "(AtPosition, salter, on, counter2)",
            "(PickOccludedBy, salter, bottle2)", "(PlaceOccludedBy, salter, on, table1, kitchen_door)",
            "(:goal (and (AtPosition, salter, on, table2) (AtPosition, salter, right_of, bottle1)))"]
    positions = [text.find(k) for k in keys]
    assert all(p >= 0 for p in positions), [k for k, p in zip(keys, positions) if p < 0]
    assert positions == sorted(positions)


def test_ablations_drop_occlusions_or_the_challenges(p2):
    no_occ = create_prompt(p2, LITS, PromptOptions(occlusion_info=False))
    assert "(PickOccludedBy, salter" not in no_occ and "(AtPosition, salter, on, counter2)" in no_occ
    no_chal = create_prompt(p2, LITS, PromptOptions(ask_challenges=False))
    assert "challenges" not in no_chal.lower() and "(PickOccludedBy, salter, bottle2)" in no_chal


def test_baseline_prompts(p2):
    say = saycan_prompt(p2, [TaskAction.of("pick", "bottle3")])
    assert "(:init" not in say and "## Actions done so far ##\n[('pick', 'bottle3')]" in say
    rp = replanning_prompt(p2, LITS, [((TaskAction.of("pick", "salter"),), "step 1 ('pick', 'salter') was infeasible: x")])
    assert "## Previously failed plans ##" in rp and "Feedback 1: step 1 ('pick', 'salter') was infeasible" in rp
