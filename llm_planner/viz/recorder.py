"""Recorders: what a closed loop calls after each step to keep the geometry for the pictures.

Both recorders are callbacks of the one closed loop, :func:`llm_planner.execution.run_episode`:
``on_step`` takes its ``StepRecord`` (``step``, ``action_text``, ``success``, ``reason``). Each
reads the world's geometry itself (a callable given once), so the loop stays unaware of pictures::

    recorder = HouseholdRecorder.for_sim(sim, goal=task.goal)      # PyBullet world in process
    result = run_episode(domain, planner, task, world, on_step=recorder.on_step)
    recorder.write("runs/report")   # before.png, after.png, strip.png, strip.gif

A ROS node that receives the geometry as messages calls ``recorder.add(step, action, ok, reason,
geometry)`` with the converted :class:`~llm_planner.domains.geometry.GeometrySnapshot` instead.
Frames are drawn only when written; recording costs one geometry read per step.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from llm_planner.domains.gtamp.sim import GTampSimWorld
from llm_planner.viz.gtamp import problem_view
from llm_planner.viz.household import snapshot_view
from llm_planner.viz.strip import Frame, write_gif, write_strip
from llm_planner.viz.topdown import TopView, crop, save_png, used_extent

if TYPE_CHECKING:
    from llm_planner.domains.geometry import GeometrySnapshot
    from llm_planner.domains.gtamp.domain import ConcreteAction, GState, ProblemSpec
    from llm_planner.domains.gtamp.sim import GTampSim
    from llm_planner.domains.household.sim.config import SimConfig
    from llm_planner.domains.household.sim.world import HouseholdSim
    from llm_planner.domains.household.world.scene import Scene
    from llm_planner.domains.skill import SkillOutcome
    from llm_planner.execution import StepRecord

Point = tuple[float, float]


@dataclass
class _Step:
    step: int
    action: str
    success: bool
    reason: str
    world: Any           # GeometrySnapshot (household) or GState (G-TAMP)
    path: list[Point] = field(default_factory=list)


class EpisodeRecorder:
    """Steps with the world after each; pictures of the start, the end and every step."""

    def __init__(self, observe: Callable[[], Any], path: Callable[[], Sequence[Point]] | None = None,
                 title: str = "") -> None:
        self._observe = observe
        self._path = path
        self.title = title
        self.steps: list[_Step] = []

    # -------------------------------------------------------------------------- recording
    def start(self, label: str = "") -> None:
        """Record the world before the first step (done on the first step if not called)."""
        self.steps = [_Step(0, label, True, "", self._observe())]

    def add(self, step: int, action: str, success: bool, reason: str = "", world: Any = None,
            path: Sequence[Point] | None = None) -> None:
        """Record one executed step and the world after it (read now unless given)."""
        if not self.steps:
            self.start()
        world = world if world is not None else self._observe()
        if path is None:
            path = list(self._path()) if self._path is not None else []
        if not path and success:
            path = [self._robot_xy(self.steps[-1].world), self._robot_xy(world)]
        self.steps.append(_Step(step, action, success, reason, world, list(path)))

    # --------------------------------------------------------------------------- pictures
    def frames(self) -> list[Frame]:
        first = self.steps[0].world
        return [Frame(s.step, s.action, s.success, s.reason,
                      self.view(s.world, start=first if s.step else None, path=s.path,
                                title=f"{self.title}: step {s.step}" if s.step else f"{self.title}: start"))
                for s in self.steps]

    def before_view(self) -> TopView:
        return self.view(self.steps[0].world, title=f"{self.title}: before")

    def after_view(self) -> TopView:
        trail = [q for s in self.steps for q in s.path]
        return self.view(self.steps[-1].world, start=self.steps[0].world, path=trail, title=f"{self.title}: after "
                         f"{len(self.steps) - 1} step(s)")

    def report_extent(self) -> tuple[float, float, float, float]:
        """What before.png and after.png show: the rooms the episode used (all of a small flat)."""
        return used_extent([self.before_view(), self.after_view()])

    def write(self, directory: str | Path, gif: bool = True) -> dict[str, Path]:
        """before.png, after.png, strip.png (and strip.gif) in ``directory``."""
        if not self.steps:
            raise ValueError("nothing recorded: call start() or add() first")
        directory = Path(directory)
        extent = self.report_extent()
        out = {"before": save_png(crop(self.before_view(), extent), directory / "before.png").path,
               "after": save_png(crop(self.after_view(), extent), directory / "after.png").path,
               "strip": write_strip(self.frames(), directory / "strip.png", title=self.title)}
        if gif:
            out["gif"] = write_gif(self.frames(), directory / "strip.gif")
        return out

    def on_step(self, record: StepRecord) -> None:
        """``run_episode(..., on_step=recorder.on_step)``."""
        self.add(record.step, record.action_text or str(record.action), bool(record.success), str(record.reason))

    # ------------------------------------------------------------------------ per domain
    def view(self, world: Any, start: Any = None, path: Sequence[Point] = (), title: str = "") -> TopView:
        raise NotImplementedError

    @staticmethod
    def _robot_xy(world: Any) -> Point:
        raise NotImplementedError


class HouseholdRecorder(EpisodeRecorder):
    """Household episodes: views from :func:`llm_planner.viz.household.snapshot_view`."""

    def __init__(self, scene: Scene, geometry: Callable[[], GeometrySnapshot], goal: Sequence | None = None,
                 path: Callable[[], Sequence[Point]] | None = None, title: str = "",
                 config: SimConfig | None = None) -> None:
        super().__init__(geometry, path, title or scene.name)
        self.scene = scene
        self.goal = goal
        self.config = config

    @classmethod
    def for_sim(cls, sim: HouseholdSim, goal: Sequence | None = None, title: str = "") -> HouseholdRecorder:
        """Record a :class:`~llm_planner.domains.household.sim.world.HouseholdSim` in this process (with the
        paths it drives)."""
        return cls(sim.scene, sim.geometry, goal, lambda: sim.last_path, title, sim.cfg)

    def view(self, world: GeometrySnapshot, start: GeometrySnapshot | None = None, path: Sequence[Point] = (),
             title: str = "") -> TopView:
        return snapshot_view(self.scene, world, goal=self.goal, start=start, path=path, title=title, cfg=self.config)

    @staticmethod
    def _robot_xy(world: GeometrySnapshot) -> Point:
        return (world.robot_position[0], world.robot_position[1])


class GTampRecorder(EpisodeRecorder):
    """G-TAMP episodes: views from :func:`llm_planner.viz.gtamp.problem_view`; the base path of an
    executed action is its sampled trajectory when ``path`` gives it, else a straight line."""

    def __init__(self, problem: ProblemSpec, observe: Callable[[], GState],
                 path: Callable[[], Sequence[Point]] | None = None, title: str = "") -> None:
        super().__init__(observe, path, title or problem.name)
        self.problem = problem

    def view(self, world: GState, start: GState | None = None, path: Sequence[Point] = (),
             title: str = "") -> TopView:
        return problem_view(self.problem, world, start=start, path=path, title=title)

    @staticmethod
    def _robot_xy(world: GState) -> Point:
        return (world.base.x, world.base.y)


class PathTap(GTampSimWorld):
    """The G-TAMP simulator as a world of the closed loop that remembers the base trajectory of
    the last executed concrete action, for :class:`GTampRecorder`'s ``path``."""

    def __init__(self, sim: GTampSim) -> None:
        super().__init__(sim)
        self.last_path: list[Point] = []

    def execute(self, action: ConcreteAction) -> SkillOutcome:
        kappa = getattr(action, "kappa", None)
        self.last_path = [(q.x, q.y) for q in kappa.base_path] if kappa is not None else []
        return super().execute(action)
