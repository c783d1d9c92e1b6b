"""The household's switchable things in the simulator: what is on, how it looks, and the
``switchon`` / ``switchoff`` skills (VirtualHome's SWITCHON / SWITCHOFF, SayCanPay seed 004 §7.2).

The simulator holds which things are on (``SimHost.switched_on``) and reports it as each thing's
power reading (a joint ``<thing>/power``, :func:`~.perception.power_joint`), which perception reads
as ON / OFF like a door joint as OPEN / CLOSED. Each thing gets a look (the scene's ``look``), made
of visual-only bodies (no collision shape, no mass: objects' physics and the robot's checks do not
see them), with the parts that light up when the thing is on:

``screen``     a thin panel on a dark frame at the back of its furniture's top (a TV on its stand);
               the panel is dark when off, bright when on.
``lamp``       a pole beside its furniture's back corner, a shade and a bulb above the shade;
               bulb and shade are grey when off, bright yellow when on.
``appliance``  an indicator on the top front corner of the appliance; dark when off, lit when on.

The skill: the robot must stand at the thing's furniture (``Household.switch_at``); the arm reaches
the front of that furniture (a collision-checked motion, as for a door handle) and back, and the
thing changes state.
"""
from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from llm_planner.domains.bullet import pybullet as p
from llm_planner.domains.geometry import quat_from_yaw
from llm_planner.domains.household.sim.config import SimConfig
from llm_planner.domains.household.sim.host import SimHost
from llm_planner.domains.household.sim.layout import FurnitureLayout
from llm_planner.domains.household.sim.manipulation import Manipulation
from llm_planner.domains.household.sim.robot import ArmPose
from llm_planner.domains.household.sim.sensing import Sensing
from llm_planner.domains.household.sim.skills import SkillFailed, Vec3
from llm_planner.domains.household.world.scene import Scene

#: Colours of the looks when ``config/household_sim.yaml`` (world.colors) does not name them.
DEFAULT_COLORS: dict[str, tuple[float, float, float]] = {
    "switch_frame": (0.12, 0.12, 0.13),   # a TV's frame, a lamp's pole
    "shade_off": (0.8, 0.78, 0.72),
    "shade_on": (1.0, 0.88, 0.4),
    "screen_off": (0.05, 0.06, 0.08),
    "screen_on": (0.85, 1.0, 1.0),
    "bulb_off": (0.5, 0.5, 0.47),
    "bulb_on": (1.0, 1.0, 0.6),
    "indicator_off": (0.2, 0.2, 0.2),
    "indicator_on": (1.0, 0.45, 0.05),
}
_LAMP_HEIGHT = 1.5  # metres: a floor lamp's bulb


@dataclass(frozen=True)
class Look:
    """The visual bodies of one switchable thing: each of ``lights`` (body, colour name) takes the
    colour ``<name>_on`` or ``<name>_off`` with the thing's state."""

    look: str
    lights: tuple[tuple[int, str], ...]
    parts: tuple[int, ...]


def color(cfg: SimConfig, key: str) -> list[float]:
    """An RGBA colour of a look (world.colors, else :data:`DEFAULT_COLORS`)."""
    rgb = cfg.world.colors.get(key, DEFAULT_COLORS[key])
    return [float(c) for c in rgb] + [1.0]


def _visual(client: int, layout: FurnitureLayout, local: Vec3, half: Vec3, rgba: list[float],
            shape: int = p.GEOM_BOX) -> int:
    """A visual-only body (no collision, static) at a point of a furniture's frame."""
    if shape == p.GEOM_SPHERE:
        vis = p.createVisualShape(shape, radius=half[0], rgbaColor=rgba, physicsClientId=client)
    elif shape == p.GEOM_CYLINDER:
        vis = p.createVisualShape(shape, radius=half[0], length=2.0 * half[2], rgbaColor=rgba, physicsClientId=client)
    else:
        vis = p.createVisualShape(shape, halfExtents=list(half), rgbaColor=rgba, physicsClientId=client)
    x, y = layout.frame.to_world(local[0], local[1])
    return p.createMultiBody(0.0, -1, vis, basePosition=[x, y, local[2]],
                             baseOrientation=quat_from_yaw(layout.frame.yaw), physicsClientId=client)


def _screen(client: int, layout: FurnitureLayout, cfg: SimConfig) -> Look:
    d, w, h = layout.size
    width = min(0.75 * w, 1.3)
    height = 0.58 * width
    x = -d / 2.0 + 0.08
    z = h + 0.06 + height / 2.0
    frame = _visual(client, layout, (x - 0.01, 0.0, z), (0.02, width / 2.0 + 0.03, height / 2.0 + 0.03),
                    color(cfg, "switch_frame"))
    neck = _visual(client, layout, (x - 0.01, 0.0, h + 0.03), (0.05, 0.12, 0.03), color(cfg, "switch_frame"))
    panel = _visual(client, layout, (x + 0.015, 0.0, z), (0.008, width / 2.0, height / 2.0), color(cfg, "screen_off"))
    return Look("screen", ((panel, "screen"),), (frame, neck, panel))


def _lamp(client: int, layout: FurnitureLayout, cfg: SimConfig) -> Look:
    d, w, _ = layout.size
    x, y = -d / 2.0 + 0.2, w / 2.0 + 0.22
    pole = _visual(client, layout, (x, y, _LAMP_HEIGHT / 2.0), (0.015, 0.015, _LAMP_HEIGHT / 2.0),
                   color(cfg, "switch_frame"), p.GEOM_CYLINDER)
    foot = _visual(client, layout, (x, y, 0.01), (0.12, 0.12, 0.01), color(cfg, "switch_frame"), p.GEOM_CYLINDER)
    shade = _visual(client, layout, (x, y, _LAMP_HEIGHT - 0.08), (0.18, 0.18, 0.1), color(cfg, "shade_off"),
                    p.GEOM_CYLINDER)
    bulb = _visual(client, layout, (x, y, _LAMP_HEIGHT + 0.04), (0.12, 0.12, 0.12), color(cfg, "bulb_off"),
                   p.GEOM_SPHERE)
    return Look("lamp", ((bulb, "bulb"), (shade, "shade")), (pole, foot, shade, bulb))


def _indicator(client: int, layout: FurnitureLayout, cfg: SimConfig) -> Look:
    d, w, h = layout.size
    light = _visual(client, layout, (d / 2.0 - 0.04, w / 2.0 - 0.07, h + 0.012), (0.04, 0.04, 0.012),
                    color(cfg, "indicator_off"))
    return Look("appliance", ((light, "indicator"),), (light,))


_BUILDERS = {"screen": _screen, "lamp": _lamp, "appliance": _indicator}


def build_looks(client: int, scene: Scene, layouts: Mapping[str, FurnitureLayout], cfg: SimConfig) -> dict[str, Look]:
    """The visual bodies of every switchable thing of the scene, all shown off."""
    return {name: _BUILDERS[thing.look](client, layouts[thing.at], cfg) for name, thing in scene.switchables.items()}


class Switches:
    """What is on, its looks, and the ``switchon`` / ``switchoff`` skills of
    :class:`~llm_planner.domains.household.sim.world.HouseholdSim`."""

    def __init__(self, host: SimHost, sensing: Sensing, arm: Manipulation, looks: Mapping[str, Look]) -> None:
        self.host = host
        self.sensing = sensing
        self.arm = arm
        self.looks = dict(looks)

    def set_on(self, things: Iterable[str]) -> None:
        """Switch exactly ``things`` on and every other thing off (no robot motion; a reset).

        Raises ValueError naming a thing the scene cannot switch."""
        wanted = set(things)
        unknown = sorted(wanted - set(self.host.scene.switchables))
        if unknown:
            raise ValueError(f"not switchable in {self.host.scene.name}: {', '.join(unknown)} "
                             f"(switchable: {', '.join(self.host.scene.switchables) or 'nothing'})")
        for name in self.host.scene.switchables:
            self._show(name, name in wanted)

    def switch_skill(self, thing: str, on: bool) -> None:
        """``switchon`` / ``switchoff``: at the thing's furniture, reach it, change its state."""
        scene = self.host.scene
        if thing not in scene.switchables:
            raise SkillFailed(f"{thing} cannot be switched on or off "
                              f"(switchable: {', '.join(scene.switchables) or 'nothing'})")
        at = scene.switchables[thing].at
        view = self.sensing.view()
        if view.near != at:
            raise SkillFailed(f"not close to {thing}" if at == thing else f"not close to {at}, where {thing} is")
        if on and thing in view.switched_on:
            raise SkillFailed(f"{thing} is already on")
        if not on and thing not in view.switched_on:
            raise SkillFailed(f"{thing} is already off")
        with self.arm.undo_on_failure([]):
            reach = self._plan_reach(thing, self.host.layouts[at])
            self.arm.run(reach)
            self._show(thing, on)
            try:
                self.arm.run(list(reversed(reach)))
            except SkillFailed:
                self._show(thing, not on)
                raise

    def _plan_reach(self, thing: str, layout: FurnitureLayout) -> list[ArmPose]:
        """An arm motion to just before the front of the furniture, near its top (where a switch is)."""
        robot = self.host.cfg.robot
        d, _, h = layout.size
        z = min(max(0.8 * h, robot.lift.min), robot.lift.max)
        x, y = layout.frame.to_world(d / 2.0 + self.arm.load_radius(), 0.0)
        what = f"the switch of {thing}"
        grip = self.arm.ik((x, y, z), what)
        travel = self.host.robot.arm_pose()
        return self.arm.free_route(travel, grip.with_(wrist=travel.wrist), what)

    def _show(self, thing: str, on: bool) -> None:
        if on:
            self.host.switched_on.add(thing)
        else:
            self.host.switched_on.discard(thing)
        look = self.looks.get(thing)
        for body, key in look.lights if look is not None else ():
            p.changeVisualShape(body, -1, rgbaColor=color(self.host.cfg, f"{key}_{'on' if on else 'off'}"),
                                physicsClientId=self.host.client)
