"""Prompt templates (``llm_planner/domains/household/language/prompts/*.txt``) and their filling.

The templates follow the seeds' formats in our own wording: ``policy.txt`` LLM-MCTS App. F
listing 1 (goal, completed actions, current observation, then the answer), ``world_model.txt``
listing 2 (Question/Answer about possible positions, three fixed examples), ``translate.txt``
listing 3 (formal goal tuples joined by "-"). STaLM's prompt (Figure 3) is built from geometric
predicates by ``llm_planner.methods.stalm.prompt`` and reaches the backends whole through ``task_plans``.
Few-shot examples of the policy and of translation are drawn from the expert data set D
(``llm_planner.domains.household.language.retrieval``). Templates use ``$name`` fields (string.Template), so
text inserted into a prompt is never interpreted.

Answers are asked for at the size the planner reads (each question kind's ``max_tokens`` and ``stop``
in config/llm.yaml are sized to it). Where this departs from App. F of seed 000: listing 1 asks for
"Next actions:" and its examples show the whole remaining plan ("grab the apple, walk to the
fridge, open the fridge, ..., done."), but §2.3 keeps only alpha_i, "the first action of the answer";
so the policy prompt asks for the "Next action:" only, on one line, and each example shows the
expert's next action (or "done"). The same alpha_i for a tenth of the tokens: a small model asked for
a plan rambles to its token limit (384 tokens took 23 s on 2 CPU cores, 24 tokens 1.4 s). The world
model (listing 2) and translation (listing 3) prompts add "on one line" to the seed's wording.

SayCanPay's Say when it plans offline (seed 004 §4: "O = {o_0}", o_t empty for t > 0; §5 Say: top-m
candidates given the goal and the plan so far, "done task" among the actions) has its own form,
``plan.txt``: the goal, the *initial* observation (every object where it is, every container open
or closed), the planned actions so far (not yet executed) and the "Next action:" on one line, or
"done task". It is the §6 input format of Can and Pay (``<Goal> g <Initial State> o_0 <Step 1> a_1 ...
<NXT>``) in the policy prompt's words; its examples are expert plans from D cut after as many steps
as are planned (the last one shows "done task").

Beyond the seed's listing 1, the policy prompt names the apartment's furniture (kind and room) and
its object types with their counts, and the translation prompt the counts: a model cannot plan a
search in an apartment whose cupboards it was never told, nor read "all the apples" without knowing
how many there are. Nothing there is hidden state (:class:`WorldInfo` carries names only), and it
is everything a model needs to answer from the prompt alone.
"""
from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from pathlib import Path
from string import Template

from llm_planner.domains.household.language.text import (
    WorldInfo,
    action_to_text,
    actions_to_text,
    goal_to_formal,
    observation_to_text,
    relation_to_text,
)
from llm_planner.domains.household.world.symbolic import Action, Goal, Observation
from llm_planner.domains.household.world.words import name_to_text
from llm_planner.errors import LLMError

#: Say's answer when the planned actions reach the goal (seed 004 §4, the "done task" action).
DONE_TASK = "done task"

PROMPTS_DIR = Path(__file__).resolve().parent / "prompts"


@cache
def load_template(name: str) -> Template:
    path = PROMPTS_DIR / f"{name}.txt"
    try:
        return Template(path.read_text())
    except OSError as exc:
        raise LLMError(f"prompt template {path} is missing: {exc}") from None


def render(name: str, **fields: str) -> str:
    """Fill template ``name``; a missing field is an error naming it."""
    try:
        return load_template(name).substitute(**fields).rstrip("\n")
    except KeyError as exc:
        raise LLMError(f"prompt template '{name}' needs the field {exc}") from None


def _names(names: Sequence[str]) -> str:
    return ", ".join(name_to_text(n) for n in names)


def furniture_text(world: WorldInfo) -> str:
    """``fridge (container in the kitchen), sofa (surface in the living room)``."""
    kinds = [(f, "container") for f in world.containers] + [(f, "surface") for f in world.surfaces]
    return ", ".join(f"{name_to_text(f)} ({kind} in the {name_to_text(world.furniture_room.get(f, 'house'))})"
                     for f, kind in kinds)


def objects_text(world: WorldInfo, as_text: bool = True) -> str:
    """``apple (2), bread slice (1)``: every object type and how many the house has."""
    return ", ".join(f"{name_to_text(t) if as_text else t} ({world.count(t)})" for t in world.object_types)


def world_model_prompt(world: WorldInfo, obj_type: str) -> str:
    return render("world_model", rooms=_names(world.rooms), containers=_names(world.containers),
                  surfaces=_names(world.surfaces), object=name_to_text(obj_type))


def translate_prompt(world: WorldInfo, directive: str, examples: Sequence[tuple[str, Goal]]) -> str:
    """Listing 3 with K (instruction, goal) examples, from D when available."""
    shots = "\n".join(render("translate_example", directive=d, formal=goal_to_formal(g)) for d, g in examples)
    return render("translate", objects=objects_text(world, as_text=False), containers=", ".join(world.containers),
                  surfaces=", ".join(world.surfaces), rooms=", ".join(world.rooms), examples=shots,
                  directive=directive.strip())


def policy_example(instruction: str, completed: Sequence[Action], observation: str, upcoming: Sequence[Action]) -> str:
    """One K-shot block: an expert's situation and its next action ("done." when none is left; the
    seed's listing 1 shows all remaining actions, see the module docstring)."""
    nxt = f"{action_to_text(upcoming[0])}." if upcoming else "done."
    return render("policy_example", goal=instruction, completed=actions_to_text(completed),
                  observation=observation, next=nxt)


def policy_prompt(world: WorldInfo, instruction: str, observation: Observation, history: Sequence[Action],
                  examples: Sequence[str], switches: Sequence[str] = ()) -> str:
    """Listing 1 with K examples. With ``switches`` (the switchable things the goal names) the prompt
    also allows switching, names the house's switchable things and where each is switched, and the
    observation tells their on/off state where the robot sees them; without, none of it is said."""
    return render("policy", rooms=_names(world.rooms), furniture=furniture_text(world), objects=objects_text(world),
                  examples="\n\n".join(examples), goal=instruction.strip(), completed=actions_to_text(history),
                  observation=observation_to_text(observation, world, switches),
                  switch_actions=", switch on <thing>, switch off <thing>" if switches else "",
                  switch_things=f"\nThings that switch on and off: {switchables_text(world)}." if switches else "")


def switchables_text(world: WorldInfo) -> str:
    """``tv (switched at the tv stand in the living room), stove (in the kitchen)``."""
    def where(thing: str, at: str) -> str:
        room = name_to_text(world.furniture_room.get(at, "house"))
        return f"in the {room}" if at == thing else f"switched at the {name_to_text(at)} in the {room}"

    return ", ".join(f"{name_to_text(d)} ({where(d, at)})" for d, at in world.switch_at.items())



def initial_observation_to_text(obs: Observation, world: WorldInfo) -> str:
    """o_0 as the plan prompt shows it (seed 004 §4, §6 "<Initial State>"): where the robot is, what
    it holds, every container of the house it knows open or closed, and every object it knows where it is."""
    parts = [f"you are in the {name_to_text(obs.room)}"]
    if obs.near:
        parts.append(f"you are close to the {name_to_text(obs.near)}")
    parts.append(f"you are holding the {name_to_text(obs.holding)}" if obs.holding else "your hand is empty")
    for container in world.containers:
        state = "open" if container in obs.open_containers else "closed" if container in obs.closed_containers else ""
        if state:
            parts.append(f"the {name_to_text(container)} is {state}")
    parts.extend(relation_to_text(*r) for r in sorted(obs.relations, key=lambda r: (r[2], r[1])))
    return ", ".join(parts) + "."


def expert_initial_observation(observations: Sequence[Observation]) -> Observation:
    """An expert trajectory's o_0 as far as its partial observations show it: the first observation's
    room and hand, each object where it was first seen, each container as first seen (objects move
    only once seen, so the first sight is the initial place)."""
    first = observations[0]
    place: dict[str, tuple[str, str]] = {}
    state: dict[str, bool] = {}
    for obs in observations:
        for rel, obj, furniture in obs.relations:
            place.setdefault(obj, (rel, furniture))
        for c in obs.open_containers:
            state.setdefault(c, True)
        for c in obs.closed_containers:
            state.setdefault(c, False)
    relations = frozenset((rel, obj, f) for obj, (rel, f) in place.items())
    return Observation(first.room, first.near, first.holding, relations,
                       frozenset(c for c, is_open in state.items() if is_open),
                       frozenset(c for c, is_open in state.items() if not is_open),
                       frozenset(f for _r, _o, f in relations) | frozenset(state))


def plan_example(instruction: str, first: str, planned: Sequence[Action], upcoming: Sequence[Action]) -> str:
    """One K-shot block of the plan prompt: an expert's o_0, its first steps and the next one ("done
    task" after the last)."""
    nxt = f"{action_to_text(upcoming[0])}." if upcoming else f"{DONE_TASK}."
    return render("plan_example", goal=instruction.strip(), observation=first, planned=actions_to_text(planned),
                  next=nxt)


def plan_prompt(world: WorldInfo, instruction: str, first: Observation, planned: Sequence[Action],
                examples: Sequence[str]) -> str:
    """Say of SayCanPay's offline planning (seed 004 §4-5; module docstring): goal, o_0, the plan so far."""
    return render("plan", rooms=_names(world.rooms), furniture=furniture_text(world), objects=objects_text(world),
                  examples="\n\n".join(examples), goal=instruction.strip(),
                  observation=initial_observation_to_text(first, world), planned=actions_to_text(planned))
