"""What the LLM-MCTS planners of one process share: the language model, its heuristic policy and the
prior belief per scene (built once, cached as JSON under the LLM cache directory), and the batch of
action sentences the search will embed, encoded before the first decision."""
from __future__ import annotations

import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from llm_planner.domains.household.language.model_resources import has_expert, warm_actions
from llm_planner.domains.household.language.text import WorldInfo, action_to_text
from llm_planner.domains.household.world.symbolic import Action, Goal, Household
from llm_planner.errors import LLMError
from llm_planner.llm.base import LanguageModel
from llm_planner.llm.factory import make_backend
from llm_planner.methods.llm_mcts.policy import HeuristicPolicy
from llm_planner.methods.llm_mcts.prior import PriorBelief, build_prior, cached_prior, scene_content_hash

BUILD_HINT = ("build it with `llm-planner dataset household --n 200 --seed 0 --out "
              "data/generated/expert_household.jsonl` "
              "(expert data D) and `llm-planner build-prior --scene SCENE --out FILE` (prior belief), or pass "
              "backend=/prior= explicitly")



@dataclass
class LLMRuntime:
    """One backend with its heuristic policy and priors, shared by the planners of a process so
    that answers cached in memory serve every episode (the paper's prompt buffer)."""

    backend: Any                      # llm_planner.llm.base.LanguageModel
    policy: Any                       # llm_planner.methods.llm_mcts.policy.HeuristicPolicy
    priors: dict[str, Any] = field(default_factory=dict)
    warmed: set = field(default_factory=set)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def describe(self) -> str:
        info = self.backend.describe()
        return f"{info.get('backend')} ({info.get('model')})"


_BACKENDS: dict[Any, Any] = {}
_RUNTIMES: dict[Any, LLMRuntime] = {}
_RUNTIMES_LOCK = threading.Lock()


def llm_runtime(backend: Any = None, llm_config: Mapping[str, Any] | None = None,
                default_backend: str = "offline", scope: str = "") -> LLMRuntime:
    """The process-wide runtime of a backend (a LanguageModel instance, or a backend name
    ``offline``/``openai`` with optional overrides of config/llm.yaml) for one ``scope``.

    Backends (with their data set, embeddings and prior) are shared by every scope; each scope
    (the planners use their method name and settings) has its own policy answers in memory, so
    one method's cost figures never include answers another method paid for."""

    with _RUNTIMES_LOCK:
        if isinstance(backend, LanguageModel):
            key: Any = ("instance", id(backend))
            _BACKENDS.setdefault(key, backend)
        else:
            name = str(backend or default_backend)
            key = (name, yaml.safe_dump(dict(llm_config or {}), sort_keys=True))
            if key not in _BACKENDS:
                _BACKENDS[key] = make_backend(dict(llm_config or {}), backend=name)
        if (key, scope) not in _RUNTIMES:
            lm = _BACKENDS[key]
            sibling = next((r for (k, _), r in _RUNTIMES.items() if k == key), None)
            runtime = LLMRuntime(lm, HeuristicPolicy(lm))
            if sibling is not None:  # priors and warm-up belong to the backend, not to the scope
                runtime.priors, runtime.warmed, runtime.lock = sibling.priors, sibling.warmed, sibling.lock
            _RUNTIMES[(key, scope)] = runtime
        return _RUNTIMES[(key, scope)]


def prior_for(runtime: LLMRuntime, household: Household, prior_file: str | Path | None = None,
              max_in_flight: int = 1, should_stop: Callable[[], bool] | None = None) -> Any:
    """The App. C.2 prior of the household's apartment: from ``prior_file`` when it matches the
    scene, backend, model and M, else built with the backend (``max_in_flight`` object types asked
    at once) and saved (atomically) to ``prior_file`` or the LLM cache directory, so the next
    process reuses it. A build ends on ``should_stop`` (DecisionCanceled; see :func:`build_prior`)."""
    world = WorldInfo.from_household(household)
    key = world.fingerprint()
    with runtime.lock:
        if key in runtime.priors:
            return runtime.priors[key]
        backend = runtime.backend
        if not prior_file:  # the disk cache keyed by scene content, backend, model and settings (prior.py)
            runtime.priors[key] = cached_prior(backend, world, household.scene.name,
                                               scene_content_hash(household.scene),
                                               max_in_flight=max_in_flight, should_stop=should_stop).prior
            return runtime.priors[key]
        m = int(backend.config.get("world_model.samples"))
        path = Path(prior_file)
        prior = None
        if path.is_file():
            try:
                found = PriorBelief.load(path)
            except LLMError:
                found = None
            if (found is not None and found.world_fingerprint == key and found.backend == backend.name
                    and found.model == backend.model and found.samples == m):
                prior = found
        if prior is None:
            if path.is_file():
                raise LLMError(f"{path}: the prior was built for another scene, backend, model or M; rebuild it "
                               f"with `llm-planner build-prior --scene {household.scene.name} --out {path}`")
            prior = build_prior(backend, world, scene=household.scene.name, m=m, max_in_flight=max_in_flight,
                                should_stop=should_stop)
            prior.save_to_cache(path)
        runtime.priors[key] = prior
        return prior


def likely_actions(household: Household, goal: Goal) -> list[Action]:
    """The ground actions an episode of ``goal`` can meet: every walk to a room or furniture, every
    open and close, the walks, grabs and puts of the goal's objects (the planners walk to and
    grab no other object: ``Household.legal_actions(state, objects)``) and the switches of the
    things it asks on or off."""
    hh = household
    containers = [f for f in hh.furniture if hh.is_container[f]]
    surfaces = [f for f in hh.furniture if not hh.is_container[f]]
    movers = [hh.objects[i] for i in hh.goal_objects(goal)]
    actions = [Action("walk", (t,)) for t in (*hh.rooms, *hh.furniture, *movers)]
    actions += [Action("grab", (o,)) for o in movers]
    actions += [Action(v, (c,)) for c in containers for v in ("open", "close")]
    actions += [Action("putin", (o, c)) for o in movers for c in containers]
    actions += [Action("puton", (o, s)) for o in movers for s in surfaces]
    actions += [Action(v, (d,)) for d in hh.goal_switchables(goal) for v in ("switchon", "switchoff")]
    return actions


def warm_up_actions(runtime: LLMRuntime, household: Household, goal: Goal = ()) -> None:
    """Embed the sentences of the actions an episode will meet in one batch: the policy grounds
    sampled answers onto admissible actions by cosine (§2.3), and one batch costs far less than the
    many small batches new tree nodes would otherwise ask for (texts already embedded cost nothing).
    The LLM layer's own warm-up of the apartment (``embeddings.warm_actions``) and the loading of the
    expert data set D (the K-shot examples of the policy prompt) run here too, at the start of the
    episode, so no decision pays for them (nor several of its question threads at once)."""
    key = (household.scene.name, household.objects, household.furniture, tuple(sorted({g.obj_type for g in goal})))
    with runtime.lock:
        if key in runtime.warmed:
            return
        resources = getattr(runtime.backend, "resources", None)
        if resources is not None:
            # D and what the backend derives from it
            getattr(runtime.backend, "prepare", lambda: has_expert(resources))()
            warm_actions(resources, WorldInfo.from_household(household))
            resources.embedder.encode([action_to_text(a) for a in likely_actions(household, goal)])
        runtime.warmed.add(key)
