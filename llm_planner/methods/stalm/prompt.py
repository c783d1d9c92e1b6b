"""CreatePrompt (seed 003 §3.2, Figure 3, Appendix F) and the prompts of the LLM baselines.

The STaLM prompt has a task instruction (asking first for the possible challenges, then for a
plan in the tuple format), the domain description (predicates, derived UnsafePick/UnsafePlace,
the three actions), the objects, the initial state with the geometric predicates computed by
motion planning, and the goal. Ablations (seed Table 4): without the occlusion predicates,
without asking for challenges.

Baselines: SayCan's prompt has the instruction, the goal and the action history but no state
(seed §4.2); Iterative-Replanning appends previously failed plans with the step that failed.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from llm_planner.domains.gtamp.domain import GoalAtom, ProblemSpec, TaskAction
from llm_planner.domains.gtamp.predicates import Literals

INSTRUCTION = ("You are an expert proficient in PDDL and planning actions for a problem. "
               "Your response should follow this template:")
TEMPLATE_CHALLENGES = ("## Possible challenges for unachieved goals based on given state ##\n\n"
                       "## Plan ##\nplan = [('action_type', 'args_1', 'args_2',...), ]")
TEMPLATE_PLAN = "## Plan ##\nplan = [('action_type', 'args_1', 'args_2',...), ]"

DOMAIN_PREDICATES = """(define (domain shop)
(:requirements :typing :derived-predicates)
(:types movable_object region door - object)
(:constants on left_of right_of front_of behind_of - direction)
(:derived (UnsafePick ?s)
  (exists (?occluder) (PickOccludedBy ?s ?occluder)))
(:derived (UnsafePlace ?s ?dir ?ref)
  (exists (?occluder) (PlaceOccludedBy ?s ?dir ?ref ?occluder)))
(:predicates
  (RobotHolding ?o) ; True if robot is holding movable_object
  (HandAvailable) ; True if robot hand is available
  (AtPosition ?s ?dir ?ref) ; True if s is at direction of ref
  (IsClosed ?o) ; True if the door is closed
  (PickOccludedBy ?o ?occ) ; True if (pick, o) is occluded by occ.
  (PlaceOccludedBy ?o ?dir ?ref ?occ) ; True if (place, o, dir, ref) is occluded by occ
)"""

DOMAIN_ACTIONS = """(:action place
  :parameters (?o ?dir ?ref)
  :precondition (and (RobotHolding ?o) (not (UnsafePlace ?o ?dir ?ref)))
  :effect (and (not (RobotHolding ?o)) (HandAvailable) (AtPosition ?o ?dir ?ref)))
(:action open
  :parameters (?o)
  :precondition (and (IsClosed ?o) (HandAvailable))
  :effect (and (not (IsClosed ?o))))
(:action pick
  :parameters (?o)
  :precondition (and (HandAvailable) (not (UnsafePick ?o)))
  :effect (and (not (HandAvailable)) (RobotHolding ?o))))"""

HISTORY_HEADER = "## Actions done so far ##"
FAILED_HEADER = "## Previously failed plans ##"


@dataclass(frozen=True)
class PromptOptions:
    """Seed Table 4 ablations."""

    occlusion_info: bool = True
    ask_challenges: bool = True


def fact_text(fact: Sequence[str]) -> str:
    return "(" + ", ".join(fact) + (", )" if len(fact) == 1 else ")")


def objects_block(problem: ProblemSpec) -> str:
    lines = [f"{o} - movable_object" for o in problem.object_names]
    lines += [f"{r} - region" for r in problem.region_names]
    lines += [f"{d} - door" for d in problem.door_names]
    return "(:objects\n" + "\n".join(lines) + ")"


def goal_block(goal: Sequence[GoalAtom]) -> str:
    return "(:goal (and " + " ".join(str(a) for a in goal) + "))"


def instruction_block(options: PromptOptions) -> str:
    template = TEMPLATE_CHALLENGES if options.ask_challenges else TEMPLATE_PLAN
    return f"Task Instruction\n{INSTRUCTION}\n{template}"


def create_prompt(problem: ProblemSpec, literals: Literals, options: PromptOptions = PromptOptions()) -> str:
    """CreatePrompt(s, G) of Algorithm 1 (Figure 3)."""
    init = ",\n ".join(fact_text(f) for f in literals.facts(options.occlusion_info))
    return "\n\n".join([
        instruction_block(options),
        "Domain Description (Predicates)\n" + DOMAIN_PREDICATES,
        "Domain Description (Actions)\n" + DOMAIN_ACTIONS,
        objects_block(problem),
        "Initial state information\n(:init\n[" + init + "])",
        goal_block(problem.goal),
        "Generate a plan to achieve the goals from init.",
    ])


def plan_tokens(problem: ProblemSpec, literals: Literals, options: PromptOptions, tokens_per_action: int,
                challenge_tokens: int) -> int:
    """The answer budget a plan for ``problem`` from ``literals`` needs (what the prompt asks for,
    Figure 3): the challenges when asked for, and a plan that picks and places once every object of
    the goal and of the occlusion literals (the objects in the way) and opens every closed door."""
    moved = {a.obj for a in problem.goal} | {occ for _, occ in literals.pick_occluded}
    moved |= {occ for *_, occ in literals.place_occluded}
    steps = 2 * len(moved) + len(literals.closed_doors)
    return (challenge_tokens if options.ask_challenges else 0) + tokens_per_action * steps


def history_block(history: Sequence[TaskAction]) -> str:
    return HISTORY_HEADER + "\n[" + ", ".join(a.literal() for a in history) + "]"


def saycan_prompt(problem: ProblemSpec, history: Sequence[TaskAction]) -> str:
    """SayCan's prompt (seed §4.2): task instruction, domain actions, objects, goal and the action
    history; no state information (no ``(:init``)."""
    return "\n\n".join([
        instruction_block(PromptOptions(ask_challenges=False)),
        "Domain Description (Actions)\n" + DOMAIN_ACTIONS,
        objects_block(problem),
        goal_block(problem.goal),
        history_block(history),
        "Generate the rest of the plan, starting after the actions done so far.",
    ])


def failed_plans_block(failed: Sequence[tuple[Sequence[TaskAction], str]]) -> str:
    """Previously failed plans with the feedback of the step that failed (Iterative-Replanning)."""
    parts = [FAILED_HEADER]
    for k, (plan, feedback) in enumerate(failed, 1):
        steps = ", ".join(a.literal() for a in plan)
        parts.append(f"Failed plan {k}: plan = [{steps}]\nFeedback {k}: {feedback}")
    return "\n".join(parts)


def replanning_prompt(problem: ProblemSpec, literals: Literals, failed: Sequence[tuple[Sequence[TaskAction], str]],
                      options: PromptOptions = PromptOptions()) -> str:
    """Our prompt plus up to two previously failed plans and why they failed (seed §4.2)."""
    base = create_prompt(problem, literals, options)
    if not failed:
        return base
    return base + "\n\n" + failed_plans_block(failed) + "\nGenerate a new plan that avoids these failures."
