"""The one closed loop (no ROS) on both worlds: G-TAMP replanning after a failed step, the step
limit, and the ways a caller stops it between skills (cancel, deadline, a robot fault)."""
from __future__ import annotations

import time

import pytest

from llm_planner.domains.gtamp.sim import GTampSimWorld
from llm_planner.errors import LlmPlannerError
from llm_planner.domains.household.world.episode import SymbolicWorld, Task
from llm_planner.adapters.gtamp import GTampDomain
from llm_planner.adapters.household import HouseholdDomain
from llm_planner.execution import CANCELED, FAILED, SUCCEEDED, TIMED_OUT, SkillOutcome, run_episode
from llm_planner.domains.gtamp.domain import ConcreteAction
from llm_planner.domains.gtamp.problems import load_problem
from llm_planner.domains.gtamp.sim import GTampSim
from llm_planner.planners.base import create
from llm_planner.methods.stalm.planner import GTampTask
from llm_planner.domains.household.world.scene import load_scene
from llm_planner.domains.household.world.symbolic import GoalItem, Household


class FlakyRobot(GTampSimWorld):
    """GTampSim whose first ``fail_op`` step fails without changing anything (a slipped grasp)."""

    def __init__(self, sim: GTampSim, fail_op: str) -> None:
        super().__init__(sim)
        self.fail_op, self.failed = fail_op, False

    def execute(self, action: ConcreteAction) -> SkillOutcome:
        if action.action.op == self.fail_op and not self.failed:
            self.failed = True
            return SkillOutcome(False, "injected: the gripper slipped")
        return super().execute(action)


@pytest.fixture
def p2():
    problem = load_problem("P2")
    sim = GTampSim(problem)
    planner = create("stalm", backend="offline", seed=0)
    yield problem, sim, planner
    sim.close()
    if planner.ctx is not None:
        planner.ctx.model.world.close()


@pytest.mark.slow
@pytest.mark.parametrize("fail_op", ["pick", "place"])
def test_a_failed_gtamp_step_is_replanned_from_the_observed_state(p2, fail_op):
    problem, sim, planner = p2
    seen: list = []
    result = run_episode(GTampDomain, planner, GTampTask(problem, max_steps=20),
                         FlakyRobot(sim, fail_op), on_step=seen.append)
    assert result.success and result.outcome == SUCCEEDED, result.message
    assert [s.success for s in result.steps].count(False) == 1
    assert any(s.reason == "injected: the gripper slipped" for s in result.steps)
    assert planner.plans_asked >= 2                      # a new plan after the failure
    assert [s.step for s in seen] == list(range(1, len(result.steps) + 1))
    assert result.plan[-1].startswith("place(salter, ")
    assert "salter on" in result.steps[-1].observed and "hand empty" in result.steps[-1].observed


@pytest.mark.slow
def test_the_step_limit_stops_the_loop(p2):
    problem, sim, planner = p2
    result = run_episode(GTampDomain, planner, GTampTask(problem, max_steps=2), GTampSimWorld(sim))
    assert not result.success and len(result.steps) == 2 and "within 2 steps" in result.message


@pytest.fixture(scope="module")
def household():
    return Household(load_scene("apartment_seen"))


def _apple_task(household, max_steps=30):
    goal = (GoalItem("inside", "apple", "fridge", 1),)
    state = next(s for s in map(household.sample_initial_state, range(50)) if not household.satisfied(s, goal))
    return Task("put one apple inside the fridge", goal, household, max_steps), SymbolicWorld(household, state)


def test_a_stop_request_ends_the_episode_canceled_before_the_next_skill(household):
    task, world = _apple_task(household)
    seen: list = []
    result = run_episode(HouseholdDomain, create("classical"), task,
                         world, on_step=seen.append, should_stop=lambda: len(seen) >= 1)
    assert result.outcome == CANCELED and not result.success
    assert len(result.steps) == 1 and "canceled after 1 step(s)" in result.message


def test_the_deadline_ends_the_episode_timed_out(household):
    task, world = _apple_task(household)
    result = run_episode(HouseholdDomain, create("classical"), task, world, deadline=time.monotonic() - 1.0)
    assert result.outcome == TIMED_OUT and not result.steps and "time limit" in result.message


def test_a_robot_fault_ends_the_episode_failed_with_the_steps_so_far(household):
    task, world = _apple_task(household)
    calls = {"n": 0}
    execute = world.execute

    def dying_robot(action):
        calls["n"] += 1
        if calls["n"] == 2:
            raise LlmPlannerError("the simulator node '/simulator' did not answer")
        return execute(action)

    world.execute = dying_robot
    result = run_episode(HouseholdDomain, create("classical"), task, world)
    assert result.outcome == FAILED and len(result.steps) == 1
    assert "the simulator node '/simulator' did not answer (after 1 step(s))" == result.message
    assert result.steps[0].describe().startswith(f"{result.plan[0]} -> ok; observed: in ")


@pytest.mark.slow
def test_every_step_carries_the_llm_requests_of_its_decision_and_the_belief_after_its_observation(household):
    from llm_planner.planners.base import HELD

    goal = (GoalItem("inside", "cutlery_fork", "dishwasher", 1),)  # the fork is in a closed cabinet
    task = Task("put one fork inside the dishwasher", goal, household, 30)
    result = run_episode(HouseholdDomain, create("llm_mcts", backend="offline", seed=0), task,
                         SymbolicWorld(household, household.sample_initial_state(0)))
    assert result.success, result.message
    forks = [o for o in household.objects if household.object_type[o] == "cutlery_fork"]
    for record in result.steps:
        assert [b.obj for b in record.belief] == forks
        for belief in record.belief:
            probs = [p for _, p in belief.places]
            assert probs == sorted(probs, reverse=True) and 0 < sum(probs) <= 1.0 + 1e-9
        seen = {o: f for _, o, f in record.observation.relations}
        for belief in record.belief:  # an object the observation shows is where it was seen, with certainty
            if belief.obj in seen:
                assert belief.places == ((seen[belief.obj], 1.0),), (record.step, belief)
            if belief.obj == record.observation.holding:
                assert belief.places == ((HELD, 1.0),)
    assert len(result.steps[0].belief[0].places) > 1  # not seen yet: the prior spread over its places
    decisions = [r.decision_llm_requests for r in result.steps]
    assert all(n >= 0 for n in decisions) and sum(decisions) > 0
    assert result.steps[-1].llm_requests - sum(decisions) == result.steps[0].llm_requests - decisions[0]  # the prior
    classical = run_episode(HouseholdDomain, create("classical"), *_apple_task(household))
    assert classical.success and all(r.belief == () and r.decision_llm_requests == 0 for r in classical.steps)


class ScriptedPlanner:
    """A household planner that plays a fixed list of actions (then gives up)."""

    name = "scripted"
    domain = "household"
    needs_full_state = False

    def __init__(self, actions):
        from llm_planner.planners.base import PlannerStats

        self.actions, self.stats, self.task = list(actions), PlannerStats(), None

    def start(self, task, observation, full_state=None):
        self.task = task

    def decide(self, observation, full_state=None):
        from llm_planner.planners.base import Decision

        return Decision(self.actions.pop(0) if self.actions else None, "script done")

    def record(self, action, success, reason, observation):
        pass

    def describe_belief(self, k=3):
        return ()

    def belief_key(self):
        return None


class LearningPlanner(ScriptedPlanner):
    """A scripted planner whose belief changes at every step (it learns something each time it looks)."""

    def belief_key(self):
        return len(self.actions)


def _apple_on_a_surface(household):
    """The apple task from a start where an apple and a non-goal object share a surface."""
    goal = (GoalItem("inside", "apple", "fridge", 1),)
    for seed in range(500):
        state = household.sample_initial_state(seed)
        places = dict(zip(household.objects, state.placement))
        apple = next((o for o in household.objects if household.object_type[o] == "apple"
                      and not household.is_container[places[o]]), None)
        if apple is None:
            continue
        other = next((o for o in household.objects if places[o] == places[apple] and household.object_type[o] != "apple"), None)
        if other is not None and not household.satisfied(state, goal):
            return Task("put one apple inside the fridge", goal, household, 30), SymbolicWorld(household, state), \
                apple, other, places[apple]
    raise AssertionError("no start state with an apple next to another object")


def test_a_loop_in_the_world_ends_the_episode_with_a_message_naming_its_steps(household):
    from llm_planner.domains.household.world.symbolic import Action
    from llm_planner.execution import REPEATED_STATE_VISITS

    task, world, apple, other, place = _apple_on_a_surface(household)
    room = household.furniture_room[place]
    grab, put = Action("grab", (other,)), Action("puton", (other, place))
    script = [Action("walk", (room,)), Action("walk", (place,))] + [grab, put] * 5
    result = run_episode(HouseholdDomain, ScriptedPlanner(script), task, world)
    assert REPEATED_STATE_VISITS == 2
    # after walk(place) the world is in state S; grab/put returns to S after steps 4 and 6: stop at 6
    assert result.outcome == FAILED and len(result.steps) == 6, result.message
    assert "stopped at step 6: the world is back in the state it was in at step 2, step 4 (a loop)" in result.message
    assert result.message.endswith(f"it repeated grab({other}) puton({other}, {place})")
    assert result.unrelated_moves == 2  # steps 3 and 5 grabbed an object the goal does not name


def test_moving_only_goal_objects_counts_no_unrelated_move(household):
    from llm_planner.domains.household.world.symbolic import Action

    task, world, apple, other, place = _apple_on_a_surface(household)
    script = [Action("walk", (household.furniture_room[place],)), Action("walk", (place,)), Action("grab", (apple,)),
              Action("walk", ("fridge",)), Action("open", ("fridge",)), Action("putin", (apple, "fridge"))]
    result = run_episode(HouseholdDomain, ScriptedPlanner(script), task, world)
    assert result.success and result.unrelated_moves == 0, result.message


def test_a_return_to_a_state_with_a_changed_belief_is_exploring_not_a_loop(household):
    """The loop guard counts a repeat only when the state and the planner's belief both repeat: the
    same grab/put round by a planner whose belief changed each time runs on to the step limit."""
    from llm_planner.domains.household.world.symbolic import Action

    task, world, apple, other, place = _apple_on_a_surface(household)
    room = household.furniture_room[place]
    grab, put = Action("grab", (other,)), Action("puton", (other, place))
    script = [Action("walk", (room,)), Action("walk", (place,))] + [grab, put] * 5
    result = run_episode(HouseholdDomain, LearningPlanner(script), task, world)
    assert len(result.steps) == 12 and "a loop" not in result.message, result.message
