"""The input of the Can and Pay models (seed 004, §6.1-6.2): goal, initial observation, the plan
so far and the next action, in the seed's format::

    <Goal> put one apple inside the fridge <Initial State> the robot is in the living room. the
    fridge is in the kitchen. ... the apple 1 is on the kitchen table. <Step 1> walk to the
    kitchen <Step 2> walk to the apple 1 <NXT> grab the apple 1

``o_0`` is the *full* initial state in words (the seed's environments describe every object in the
initial observation: "Room 1 has purple ball. Room 2 has yellow key, agent ..."), with the on/off
state of the switchable things the goal names ("the tv is at the tv stand and off"). The structured
:class:`Example` is what the features read; :func:`model_input` is its text form (what a BERT
model of the seed would read; shown by ``llm-planner train saycanpay --show-examples``).
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from llm_planner.domains.household.language.text import action_to_text, goal_to_text
from llm_planner.domains.household.world.symbolic import Action, Goal, Household, State
from llm_planner.domains.household.world.words import name_to_text

DONE = Action("done", ())        # the seed's "done task" action (§4; footnote 2: its precondition is the goal)
DONE_TEXT = "done task"


def step_text(action: Action) -> str:
    """An action in the model input's words; :data:`DONE` is "done task"."""
    return DONE_TEXT if action == DONE else action_to_text(action)


@dataclass(frozen=True)
class Example:
    """One (goal, o_0, history, next action) input; ``relevant``: the o_0 facts about the next
    action's arguments and about the goal's objects (the parts of <Initial State> that matter)."""

    goal: str
    initial_state: tuple[str, ...]
    history: tuple[str, ...]
    action: str
    relevant: tuple[str, ...] = ()


def model_input(example: Example) -> str:
    """The seed's text format: ``<Goal> g <Initial State> o_0 <Step 1> a_1 ... <NXT> a_t``."""
    steps = " ".join(f"<Step {i}> {a}" for i, a in enumerate(example.history, start=1))
    state = ". ".join(example.initial_state)
    parts = (f"<Goal> {example.goal}", f"<Initial State> {state}.", steps, f"<NXT> {example.action}")
    return " ".join(p for p in parts if p)


def state_facts(household: Household, state: State, switchables: Sequence[str] = ()) -> dict[str, str]:
    """o_0 as sentences keyed by the name each one is about (robot, furniture, objects, and the
    switchable things of ``switchables``: a goal's, whose on/off state the goal asks)."""
    facts = {"robot": f"the robot is in the {name_to_text(state.room)}"}
    for f in household.furniture:
        facts[f] = f"the {name_to_text(f)} is in the {name_to_text(household.furniture_room[f])}" + (
            " and open" if f in state.opened else "")
    for obj, place in zip(household.objects, state.placement, strict=True):
        if place is not None:
            facts[obj] = f"the {name_to_text(obj)} is {household.relation(place)} the {name_to_text(place)}"
        else:
            facts[obj] = f"the robot holds the {name_to_text(obj)}"
    for thing in switchables:
        state_word = "on" if thing in state.switched_on else "off"
        if thing in facts:  # an appliance is furniture: its fact says where it is already
            facts[thing] += f" and switched {state_word}"
        else:
            at = name_to_text(household.switch_at[thing])
            facts[thing] = f"the {name_to_text(thing)} is at the {at} and {state_word}"
    return facts


class ExampleBuilder:
    """Examples of one episode: the goal and o_0 are fixed, history and next action vary."""

    def __init__(self, household: Household, goal: Goal, initial: State) -> None:
        self.goal = goal_to_text(goal)
        self.facts = state_facts(household, initial, household.goal_switchables(goal))
        self.initial = tuple(self.facts.values())
        types = {g.obj_type for g in goal}
        self.goal_objects = tuple(o for o in household.objects if household.object_type[o] in types)
        #: the things whose state the goal asks (open/closed containers, switchable things)
        self.goal_things = tuple(dict.fromkeys(g.obj_type for g in goal if g.is_state))

    def __call__(self, history: Sequence[Action], action: Action) -> Example:
        names = dict.fromkeys((*action.args, *self.goal_objects, *self.goal_things))
        relevant = tuple(self.facts[a] for a in names if a in self.facts)
        return Example(self.goal, self.initial, tuple(step_text(a) for a in history), step_text(action),
                       relevant)
