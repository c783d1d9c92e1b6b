"""Prompt templates (``llm_planner/llm/prompts/*.txt``) and their filling.

The templates follow the seeds' formats in our own wording: ``policy.txt`` LLM-MCTS App. F
listing 1 (goal, completed actions, current observation, then the answer), ``world_model.txt``
listing 2 (Question/Answer about possible positions, three fixed examples), ``translate.txt``
listing 3 (formal goal tuples joined by "-"). STaLM's prompt (Figure 3) is built from geometric
predicates by ``llm_planner.methods.stalm.prompt`` and reaches the backends whole through ``task_plans``.
Few-shot examples of the policy and of translation are drawn from the expert data set D
(``llm_planner.llm.retrieval``). Templates use ``$name`` fields (string.Template), so
text inserted into a prompt is never interpreted.

Answers are asked for at the size the planner reads (each question kind's ``max_tokens`` and ``stop``
in config/llm.yaml are sized to it). Where this departs from App. F of seed 000: listing 1 asks for
"Next actions:" and its examples show the whole remaining plan ("grab the apple, walk to the
fridge, open the fridge, ..., done."), but §2.3 keeps only alpha_i, "the first action of the answer";
so the policy prompt asks for the "Next action:" only, on one line, and each example shows the
expert's next action (or "done"). The same alpha_i for a tenth of the tokens: a small model asked for
a plan rambles to its token limit (384 tokens took 23 s on 2 CPU cores, 24 tokens 1.4 s). The world
model (listing 2) and translation (listing 3) prompts add "on one line" to the seed's wording.

Beyond the seed's listing 1, the policy prompt names the apartment's furniture (kind and room) and
its object types with their counts, and the translation prompt the counts: a model cannot plan a
search in an apartment whose cupboards it was never told, nor read "all the apples" without knowing
how many there are. Nothing there is hidden state (:class:`WorldInfo` carries names only), and it
is everything a served model (``llm_planner.llm.offline.served``) needs to answer from the prompt alone.
"""
from __future__ import annotations

from collections.abc import Sequence
from functools import cache
from pathlib import Path
from string import Template

from llm_planner.domains.household.world.symbolic import Action, Goal, Observation
from llm_planner.errors import LLMError
from llm_planner.llm.text import (
    WorldInfo,
    action_to_text,
    actions_to_text,
    goal_to_formal,
    name_to_text,
    observation_to_text,
)

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
                  examples: Sequence[str]) -> str:
    return render("policy", rooms=_names(world.rooms), furniture=furniture_text(world), objects=objects_text(world),
                  examples="\n\n".join(examples), goal=instruction.strip(),
                  completed=actions_to_text(history), observation=observation_to_text(observation, world))

