"""Offline STaLM task plans: a classical planner on the prompt's predicate abstraction."""
from __future__ import annotations

from llm_planner.domains.gtamp.domain import TaskAction
from llm_planner.methods.stalm.plan_parser import Vocabulary, parse_plan
from llm_planner.domains.gtamp.predicates import Literals
from llm_planner.domains.gtamp.problems import load_problem
from llm_planner.methods.stalm.prompt import PromptOptions, create_prompt, replanning_prompt, saycan_prompt
from llm_planner.methods.stalm.offline_plans import plans_from_prompt, read_prompt

act = TaskAction.of
P2 = load_problem("P2")
VOCAB = Vocabulary(P2.object_names, P2.region_names, P2.door_names)
# P2 as the motion planner sees it: the salter behind both bottles, placements into the hall
# occluded by nothing (the door is open)
LITS = Literals(None, (), (("salter", "on", "counter2"), ("bottle2", "on", "counter2"), ("bottle3", "on", "counter2"),
                           ("bottle1", "on", "table2")),
                (("salter", "bottle2"), ("salter", "bottle3"), ("bottle2", "bottle3")), ())


def _plans(prompt: str, n: int = 5, seed: int = 0) -> list[tuple[TaskAction, ...]]:
    out = []
    for text in plans_from_prompt(prompt, n, seed):
        parsed = parse_plan(text, VOCAB)
        assert parsed.complete, parsed.errors
        out.append(parsed.actions)
    return out


def test_reads_objects_facts_and_goal_from_the_prompt_text():
    ab = read_prompt(create_prompt(P2, LITS))
    assert ab.objects == P2.object_names and "counter2" in ab.regions and ab.doors == ("kitchen_door",)
    assert ab.pick_occ["salter"] == {"bottle2", "bottle3"}
    assert ab.goal == (("salter", "on", "table2"), ("salter", "right_of", "bottle1"))
    assert ab.holding is None and ab.ask_challenges and ab.has_occlusion


def test_plans_clear_the_occluders_first_and_vary_between_samples():
    plans = _plans(create_prompt(P2, LITS))
    for plan in plans:
        picks = [a.args[0] for a in plan if a.op == "pick"]
        assert picks.index("salter") > max(picks.index("bottle2"), picks.index("bottle3"))
        assert plan[-1] == act("place", "salter", "right_of", "bottle1")
    assert len({p for p in plans}) > 1                              # varied temporary places / orders
    assert _plans(create_prompt(P2, LITS)) == plans                  # deterministic for a seed
    text = plans_from_prompt(create_prompt(P2, LITS), 1, 0)[0]
    assert text.index("## Possible challenges") < text.index("## Plan ##") and "`bottle2`" in text


def test_without_occlusion_literals_it_plans_naively():
    plans = _plans(create_prompt(P2, LITS, PromptOptions(occlusion_info=False)), n=2)
    assert all(p == (act("pick", "salter"), act("place", "salter", "right_of", "bottle1")) for p in plans)
    text = plans_from_prompt(create_prompt(P2, LITS, PromptOptions(ask_challenges=False)), 1, 0)[0]
    assert "challenges" not in text.lower()


def test_closed_door_is_opened_with_an_empty_hand():
    lits = Literals("bottle3", ("kitchen_door",), (("salter", "on", "counter2"), ("bottle1", "on", "table2")),
                    (("salter", "kitchen_door"),), ())
    plan = _plans(create_prompt(P2, lits), n=1)[0]
    assert plan[0].op == "place" and plan[0].args[0] == "bottle3"   # hand first emptied
    assert plan.index(act("open", "kitchen_door")) < plan.index(act("pick", "salter"))


def test_failed_step_in_the_feedback_is_avoided():
    failed = [((act("pick", "bottle3"), act("place", "bottle3", "on", "counter1")),
               "step 2 ('place', 'bottle3', 'on', 'counter1') was infeasible: placement collides with cup")]
    for plan in _plans(replanning_prompt(P2, LITS, failed), n=3):
        assert act("place", "bottle3", "on", "counter1") not in plan


def test_saycan_prompt_without_state_replays_the_history():
    plan = _plans(saycan_prompt(P2, [act("pick", "salter")]), n=1)[0]   # no state: bottle1 assumed on table2
    assert plan == (act("place", "salter", "right_of", "bottle1"),)


def test_garbage_prompts_answer_an_empty_plan():
    for prompt in ("", "(:goal (and", "((((((" * 1000, "(:objects\nx - movable_object)\n(:goal (and (AtPosition, x, on, y)))"):
        texts = plans_from_prompt(prompt, 2, 0)
        assert len(texts) == 2 and all("plan = [" in t for t in texts)


def test_a_moved_reference_object_is_brought_back():
    # bottle1 was moved to counter2; the goal wants the salter on table2 right of bottle1
    lits = Literals(None, (), (("salter", "on", "counter2"), ("bottle1", "on", "counter2")), (), ())
    plan = _plans(create_prompt(P2, lits), n=1)[0]
    assert act("place", "bottle1", "on", "table2") in plan
    assert plan.index(act("place", "bottle1", "on", "table2")) < plan.index(act("place", "salter", "right_of", "bottle1"))


def test_cyclic_put_back_occlusions_still_give_a_plan():
    p5 = load_problem("P5")
    # coke already beside the grill on counter2; each blocks placing the other back there
    lits = Literals(None, (), (("grill", "on", "counter2"), ("coke", "on", "counter2"), ("wine", "on", "table1")), (),
                    (("wine", "on", "counter2", "grill"), ("wine", "on", "counter2", "coke"),
                     ("coke", "on", "counter2", "grill"), ("grill", "on", "counter2", "coke")))
    vocab = Vocabulary(p5.object_names, p5.region_names, p5.door_names)
    text = plans_from_prompt(create_prompt(p5, lits), 1, 0)[0]
    plan = parse_plan(text, vocab).actions
    assert plan and plan[-1].op == "place" and act("place", "wine", "on", "counter2") in plan
