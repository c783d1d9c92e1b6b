"""One top-down drawing of a world, for every picture the package makes (matplotlib, headless).

A :class:`TopView` is plain data: rooms, walls, doorways, named footprints of furniture (or
G-TAMP regions and doors), objects, where objects started (drawn faded, with an arrow to where
they are), the robot and the path it drove, approach poses, and problems drawn in red. The
household and G-TAMP builders (:mod:`llm_planner.viz.household`, :mod:`llm_planner.viz.gtamp`)
fill it from a scene and what the sensors report; :func:`draw` draws it on a matplotlib axes,
:func:`save_png` writes it and returns a :class:`Picture` that maps world coordinates to pixels
(tests read the image back at the robot's start or goal).

Colours and sizes below are the pictures' style, chosen so a plan of a 12 x 10 m apartment stays
legible at the default size (1200 x 1000 pixels), and a long one (40 x 7 m) at one inch per metre
up to ``MAX_INCHES`` wide; names are placed where they overlap no other name (moved beside their
piece with a leader line when they would). :func:`used_extent` crops a picture to the rooms an
episode used.
"""
from __future__ import annotations

import dataclasses
import math
import textwrap
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from llm_planner.domains.shapes import Frame2D, Point, Problem, Rect, corners

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure
    from matplotlib.patches import Patch, Polygon

RGB = tuple[float, float, float]

# ---------------------------------------------------------------------------------- style
#: Robot body, its start marker, the path it drove, highlight of goal things, problems.
ROBOT_COLOR: RGB = (0.05, 0.25, 0.85)
START_COLOR: RGB = (0.0, 0.7, 0.2)
PATH_COLOR: RGB = (0.05, 0.55, 1.0)
GOAL_COLOR: RGB = (1.0, 0.0, 0.85)
PROBLEM_COLOR: RGB = (0.9, 0.0, 0.0)
APPROACH_COLOR: RGB = (0.35, 0.35, 0.35)
WALL_COLOR: RGB = (0.3, 0.28, 0.26)
DOORWAY_COLOR: RGB = (1.0, 1.0, 1.0)
FADED_ALPHA = 0.3
#: Pieces smaller than this (metres, half extent) get their label beside them, not on them.
SMALL_PIECE = 0.25
#: Notes under the plan: line height (inches) and the width of one character (pixels, 8 points).
NOTE_LINE_INCHES = 0.18
NOTE_CHAR_PIXELS = 6.2
#: Inches per metre of the default picture (at DPI dots per inch), and its bounds.
INCHES_PER_METRE = 1.0
DPI = 100
MAX_INCHES = 40.0      # the longer side; a 40 m apartment keeps one inch (100 pixels) per metre
MAX_AREA_INCHES2 = 400.0  # and no picture grows past this area (a 40 x 40 m plan is drawn smaller)
MIN_INCHES = 6.0
#: Margin (metres) around the rooms a cropped picture shows.
CROP_MARGIN = 0.3


@dataclass(frozen=True)
class Piece:
    """A named footprint: a furniture, a region, a door panel, an object.

    ``style``: ``solid`` (plain), ``goal`` (thick magenta outline, name in bold), ``faded``
    (where something was), ``problem`` (red outline). ``label`` is drawn on it (None: no text);
    ``round`` pieces are drawn as circles of radius ``max(hx, hy)``."""

    name: str
    rect: Rect
    color: RGB
    label: str | None = None
    style: str = "solid"
    round: bool = False


@dataclass(frozen=True)
class Arrow:
    start: Point
    end: Point
    color: RGB = GOAL_COLOR


@dataclass
class TopView:
    """Everything one top-down picture shows (see the module docstring). Lengths in metres."""

    title: str
    extent: tuple[float, float, float, float]  # xmin, ymin, xmax, ymax
    rooms: list[tuple[str, tuple[float, float, float, float], RGB]] = field(default_factory=list)
    walls: list[Rect] = field(default_factory=list)
    doorways: list[Rect] = field(default_factory=list)
    furniture: list[Piece] = field(default_factory=list)
    objects: list[Piece] = field(default_factory=list)
    ghosts: list[Piece] = field(default_factory=list)
    moves: list[Arrow] = field(default_factory=list)
    approaches: list[tuple[str, Frame2D]] = field(default_factory=list)
    robot: Frame2D | None = None
    robot_radius: float = 0.3
    robot_start: Point | None = None
    path: list[Point] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # lines under the plan (goal, legend)
    inches_per_metre: float = INCHES_PER_METRE  # larger for small worlds with small objects

    def figure_size(self, scale: float = 1.0) -> tuple[float, float]:
        """Inches: one per metre, within bounds, plus room for the notes."""
        xmin, ymin, xmax, ymax = self.extent
        aspect = (ymax - ymin) / (xmax - xmin)
        w = max((xmax - xmin) * self.inches_per_metre, MIN_INCHES)
        w = min(w, MAX_INCHES / max(1.0, aspect), math.sqrt(MAX_AREA_INCHES2 / aspect)) * scale
        h = w * aspect
        return w, h + notes_height(self.notes, w)


def used_extent(views: Sequence[TopView], margin: float = CROP_MARGIN) -> tuple[float, float, float, float]:
    """The smallest box of whole rooms that holds everything the views show happening: the robot,
    its start and path, pieces highlighted or moved (goal and problem styles, ghosts, arrows).
    The first view's extent when its rooms are unknown or nothing happened."""
    if not views:
        raise ValueError("used_extent needs at least one view")
    full = views[0].extent
    points: list[Point] = []
    for v in views:
        points += list(v.path)
        if v.robot is not None:
            points.append((v.robot.x, v.robot.y))
        if v.robot_start is not None:
            points.append(v.robot_start)
        for piece in (*v.furniture, *v.objects):
            if piece.style in ("goal", "problem"):
                points.append((piece.rect.cx, piece.rect.cy))
        points += [(p.rect.cx, p.rect.cy) for p in v.ghosts]
        for a in v.moves:
            points += [a.start, a.end]
    rects = [r for _, r, _ in views[0].rooms if any(r[0] <= x <= r[2] and r[1] <= y <= r[3] for x, y in points)]
    if not rects:
        return full
    box = (min(r[0] for r in rects) - margin, min(r[1] for r in rects) - margin,
           max(r[2] for r in rects) + margin, max(r[3] for r in rects) + margin)
    return (max(box[0], full[0]), max(box[1], full[1]), min(box[2], full[2]), min(box[3], full[3]))


def crop(view: TopView, extent: tuple[float, float, float, float]) -> TopView:
    """The view limited to ``extent`` (what lies outside is cut off by the axes)."""

    return dataclasses.replace(view, extent=extent)


def wrap_notes(notes: Sequence[str], width_inches: float) -> list[str]:
    """The notes broken into lines that fit the figure's width (8-point text)."""

    chars = max(40, int(width_inches * DPI / NOTE_CHAR_PIXELS))
    return [part for note in notes for part in textwrap.wrap(note, chars, subsequent_indent="    ")]


def notes_height(notes: Sequence[str], width_inches: float) -> float:
    """Inches under the plan for the notes (and a margin)."""
    return NOTE_LINE_INCHES * len(wrap_notes(notes, width_inches)) + 0.45


@dataclass(frozen=True)
class Picture:
    """A written picture and the mapping of world coordinates to its pixels (row 0 at the top)."""

    path: Path
    width: int
    height: int
    scale: tuple[float, float]
    offset: tuple[float, float]

    def pixel(self, x: float, y: float) -> tuple[int, int]:
        """(column, row) of the world point (x, y)."""
        return (int(round(self.scale[0] * x + self.offset[0])),
                int(round(self.height - (self.scale[1] * y + self.offset[1]))))


# --------------------------------------------------------------------------------- drawing
def draw(ax: Axes, view: TopView, detail: str = "full") -> None:
    """Draw ``view`` on ``ax``. ``detail="small"``: no furniture names and smaller text (strip frames)."""
    from matplotlib import patches  # noqa: PLC0415 - heavy optional: matplotlib only when a picture is drawn

    small = detail == "small"
    font = 5.0 if small else 8.0
    xmin, ymin, xmax, ymax = view.extent
    figure = ax.get_figure(root=True)
    assert figure is not None  # the axes of plan_axes are on a figure
    fig_w, fig_h = figure.get_size_inches()
    box = ax.get_position()  # the drawn scale (a strip frame is far smaller than a plan): labels are placed by it
    inches_per_metre = min(fig_w * box.width / (xmax - xmin), fig_h * box.height / (ymax - ymin))
    ax.set_xlim(xmin, xmax)
    ax.set_ylim(ymin, ymax)
    ax.set_aspect("equal")
    ax.set_axis_off()
    blocked = [(p.rect.cx - p.rect.hx, p.rect.cy - p.rect.hy, p.rect.cx + p.rect.hx, p.rect.cy + p.rect.hy)
               for p in view.furniture]
    for name, (x0, y0, x1, y1), color in view.rooms:
        ax.add_patch(patches.Rectangle((x0, y0), x1 - x0, y1 - y0, facecolor=color, edgecolor="none", zorder=0))
        size = font * (1.4 if not small else 1.2)
        text = name.replace("_", " ").upper()
        cx, cy = _room_label_spot((x0, y0, x1, y1), text, size / (72.0 * inches_per_metre), blocked)
        ax.text(cx, cy, text, ha="center", va="center", fontsize=size, color=(0.0, 0.0, 0.0, 0.22),
                fontweight="bold", zorder=1)
    for rect in view.walls:
        ax.add_patch(_polygon(rect, facecolor=WALL_COLOR, edgecolor="none", zorder=2))
    for rect in view.doorways:
        ax.add_patch(_polygon(rect, facecolor=DOORWAY_COLOR, edgecolor="none", zorder=2))
    labels = _Labels(inches_per_metre, font * 0.9)
    for piece in view.furniture:
        _draw_piece(ax, piece, font, zorder=3, names=not small or piece.style in ("goal", "problem"), labels=labels)
    for piece in view.ghosts:
        _draw_piece(ax, piece, font * 0.9, zorder=4, names=not small, labels=labels)
    for arrow in view.moves:
        ax.annotate("", xy=arrow.end, xytext=arrow.start, zorder=5,
                    arrowprops={"arrowstyle": "->", "color": arrow.color, "lw": 1.0 if small else 1.4,
                                "linestyle": (0, (3, 2))})
    for piece in sorted(view.objects, key=lambda p: p.style != "goal"):
        _draw_piece(ax, piece, font * 0.9, zorder=6, names=not small or piece.style == "goal", labels=labels)
    for _name, pose in view.approaches:
        ax.annotate("", xy=(pose.x + 0.22 * math.cos(pose.yaw), pose.y + 0.22 * math.sin(pose.yaw)),
                    xytext=(pose.x, pose.y), zorder=6, arrowprops={"arrowstyle": "-|>", "color": APPROACH_COLOR,
                                                                  "lw": 0.8, "mutation_scale": 7})
        ax.plot([pose.x], [pose.y], marker="o", markersize=2.5, color=APPROACH_COLOR, zorder=6)
    if view.path:
        xs, ys = zip(*view.path, strict=True)
        ax.plot(xs, ys, color=PATH_COLOR, lw=1.6 if small else 2.4, alpha=0.9, zorder=7, solid_capstyle="round")
    if view.robot_start is not None and view.robot is None:  # a plan without the robot: its footprint at the start
        ax.add_patch(patches.Circle(view.robot_start, view.robot_radius, facecolor=(*START_COLOR, 0.12),
                                    edgecolor=START_COLOR, lw=1.2, linestyle="--", zorder=8))
    if view.robot_start is not None:
        ax.plot([view.robot_start[0]], [view.robot_start[1]], marker="o", markersize=5 if small else 9,
                color=START_COLOR, markeredgecolor="white", zorder=8)
        if not small:
            ax.text(view.robot_start[0], view.robot_start[1] - 0.28, "start", ha="center", va="top", fontsize=font,
                    color=START_COLOR, fontweight="bold", zorder=8)
    if view.robot is not None:
        r = view.robot
        ax.add_patch(patches.Circle((r.x, r.y), view.robot_radius, facecolor=ROBOT_COLOR, edgecolor="white",
                                    lw=0.8, alpha=0.9, zorder=9))
        ax.plot([r.x, r.x + view.robot_radius * 1.5 * math.cos(r.yaw)],
                [r.y, r.y + view.robot_radius * 1.5 * math.sin(r.yaw)], color="white", lw=1.6, zorder=10)
        if not small:
            ax.text(r.x, r.y + view.robot_radius + 0.08, "robot", ha="center", va="bottom", fontsize=font,
                    color=ROBOT_COLOR, fontweight="bold", zorder=10)
    for problem in view.problems:
        _draw_problem(ax, problem, font)
    ax.set_title(view.title, fontsize=font * 1.25, loc="left")


def _room_label_spot(rect: tuple[float, float, float, float], text: str, metres_per_point_font: float,
                     blocked: Sequence[tuple[float, float, float, float]]) -> Point:
    """Where a room's name goes: its centre, else the nearest spot on its middle lines that no
    furniture covers (a table in the middle of a room would hide it)."""
    x0, y0, x1, y1 = rect
    w, h = 0.35 * metres_per_point_font * len(text) * 1.0, 0.8 * metres_per_point_font
    cx, cy = (x0 + x1) / 2.0, (y0 + y1) / 2.0
    spots = [(cx, cy)] + [(cx, cy + f * (y1 - y0)) for f in (0.15, -0.15, 0.25, -0.25, 0.33, -0.33)] + \
            [(cx + f * (x1 - x0), cy) for f in (0.2, -0.2, 0.3, -0.3)]
    for x, y in spots:
        if not any(b[0] < x + w and x - w < b[2] and b[1] < y + h and y - h < b[3] for b in blocked):
            return x, y
    return cx, cy


class _Labels:
    """Places the labels of small pieces (objects) where they overlap no earlier label: above,
    below, then further out, with a leader line when moved away from the piece."""

    def __init__(self, inches_per_metre: float, font: float) -> None:
        metres_per_point = 1.0 / (72.0 * inches_per_metre)
        self.char_w = 0.6 * font * metres_per_point
        self.line_h = 1.5 * font * metres_per_point
        self.taken: list[tuple[float, float, float, float]] = []

    def reserve(self, x: float, y: float, text: str) -> None:
        """A label drawn centred at (x, y) that later labels must avoid."""
        w, h = self.char_w * len(text) / 2.0 + 0.02, self.line_h / 2.0
        self.taken.append((x - w, y - h, x + w, y + h))

    def place(self, x: float, y: float, clear: float, text: str, centred: bool = False) -> tuple[float, float, bool]:
        """Centre of the label box and whether it was moved off the first choice (``centred``: the
        first choice is on the piece, for furniture; else above it, for small objects)."""
        w, h = self.char_w * len(text) / 2.0 + 0.02, self.line_h / 2.0
        first: tuple[float, float, tuple[float, float, float, float]] | None = None
        offsets = [(0, 0), *_LABEL_OFFSETS] if centred else _LABEL_OFFSETS
        for k, (dx, dy) in enumerate(offsets):
            cx, cy = x + dx * (w + clear), y + dy * (clear + h + 0.02) + (dy * 1.2 * self.line_h * (k // 6))
            box = (cx - w, cy - h, cx + w, cy + h)
            first = first or (cx, cy, box)
            if not any(a[0] < box[2] and box[0] < a[2] and a[1] < box[3] and box[1] < a[3] for a in self.taken):
                self.taken.append(box)
                return cx, cy, k > (0 if centred else 1)
        assert first is not None  # there is always at least one offset
        cx, cy, box = first
        self.taken.append(box)
        return cx, cy, False


#: Label positions tried around a small piece, in units of (half label width + clearance, height).
_LABEL_OFFSETS = [(0, 1), (0, -1), (1, 1), (-1, 1), (1, -1), (-1, -1)] * 4


def _draw_piece(ax: Axes, piece: Piece, font: float, zorder: int, names: bool,
                labels: _Labels | None = None) -> None:
    from matplotlib import patches  # noqa: PLC0415 - heavy optional: matplotlib only when a picture is drawn

    face = (*piece.color, FADED_ALPHA if piece.style == "faded" else 0.95)
    edge = {"goal": GOAL_COLOR, "problem": PROBLEM_COLOR}.get(piece.style, (0.15, 0.15, 0.15))
    lw = {"goal": 2.2, "problem": 2.2}.get(piece.style, 0.6)
    r = piece.rect
    patch: Patch
    if piece.round:
        patch = patches.Circle((r.cx, r.cy), max(r.hx, r.hy), facecolor=face, edgecolor=edge, lw=lw, zorder=zorder,
                               linestyle="--" if piece.style == "faded" else "-")
    else:
        patch = _polygon(r, facecolor=face, edgecolor=edge, lw=lw, zorder=zorder,
                         linestyle="--" if piece.style == "faded" else "-")
    ax.add_patch(patch)
    if piece.label and names:
        bold = piece.style in ("goal", "problem")
        color = {"goal": GOAL_COLOR, "problem": PROBLEM_COLOR}.get(piece.style, (0.1, 0.1, 0.1))
        x, y, moved = r.cx, r.cy, False
        if labels is not None and max(r.hx, r.hy) < SMALL_PIECE:
            x, y, moved = labels.place(r.cx, r.cy, max(r.hx, r.hy), piece.label)
        elif labels is not None:  # on the piece, else beside it where no other name is
            x, y, moved = labels.place(r.cx, r.cy, min(r.hx, r.hy), piece.label, centred=True)
        if moved:
            ax.plot([r.cx, x], [r.cy, y], color=color, lw=0.5, alpha=0.7, zorder=zorder + 4)
        ax.text(x, y, piece.label, ha="center", va="center", fontsize=font, color=color,
                fontweight="bold" if bold else "normal", alpha=0.55 if piece.style == "faded" else 1.0,
                zorder=zorder + 5, bbox={"boxstyle": "round,pad=0.12", "facecolor": "white", "alpha": 0.7,
                                         "edgecolor": "none"})


def _draw_problem(ax: Axes, problem: Problem, font: float) -> None:
    from matplotlib import patches  # noqa: PLC0415 - heavy optional: matplotlib only when a picture is drawn

    for rect in problem.rects:
        ax.add_patch(_polygon(rect, facecolor=(*PROBLEM_COLOR, 0.18), edgecolor=PROBLEM_COLOR, lw=2.0, zorder=11,
                              hatch="///"))
    for x, y in problem.points:
        ax.add_patch(patches.Circle((x, y), 0.2, facecolor="none", edgecolor=PROBLEM_COLOR, lw=2.0, zorder=11))
        ax.plot([x], [y], marker="x", color=PROBLEM_COLOR, markersize=8, mew=2, zorder=11)
    anchor = problem.points[0] if problem.points else ((problem.rects[0].cx, problem.rects[0].cy) if problem.rects
                                                       else None)
    if anchor is not None and problem.text:
        ax.text(anchor[0], anchor[1] + 0.25, problem.text, ha="center", va="bottom", fontsize=font, color=PROBLEM_COLOR,
                fontweight="bold", zorder=12, bbox={"boxstyle": "round,pad=0.15", "facecolor": "white", "alpha": 0.8,
                                                    "edgecolor": PROBLEM_COLOR})


def _polygon(rect: Rect, **style: Any) -> Polygon:
    from matplotlib import patches  # noqa: PLC0415 - heavy optional: matplotlib only when a picture is drawn

    c = corners(rect)  # (-,-), (-,+), (+,-), (+,+)
    return patches.Polygon([c[0], c[2], c[3], c[1]], closed=True, **style)


# ------------------------------------------------------------------------------- files
def new_figure(width: float, height: float) -> Figure:
    """A figure on the Agg canvas (no pyplot, no display, no global state)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg  # noqa: PLC0415 - heavy optional: matplotlib only when a picture is drawn
    from matplotlib.figure import Figure  # noqa: PLC0415 - heavy optional: matplotlib only when a picture is drawn

    fig = Figure(figsize=(width, height), dpi=DPI)
    FigureCanvasAgg(fig)
    return fig


def rgb_pixels(fig: Figure) -> np.ndarray:
    """Draw ``fig`` and return its pixels as an (h, w, 3) uint8 array (figures of :func:`new_figure`)."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg  # noqa: PLC0415 - heavy optional: matplotlib only when a picture is drawn

    canvas = fig.canvas
    assert isinstance(canvas, FigureCanvasAgg)  # new_figure puts every figure on the Agg canvas
    canvas.draw()
    return np.asarray(canvas.buffer_rgba())[:, :, :3].copy()


def plan_axes(fig: Figure, view: TopView) -> Axes:
    """Axes for the plan, leaving the bottom strip of the figure for the notes."""
    w, h = fig.get_size_inches()
    notes = notes_height(view.notes, w)
    ax = fig.add_axes((0.01, notes / h, 0.98, 1.0 - notes / h - 0.35 / h))
    color = (0.1, 0.1, 0.1)
    for i, line in enumerate(wrap_notes(view.notes, w)):
        if not line.startswith("    "):
            color = PROBLEM_COLOR if line.startswith("error") else (0.1, 0.1, 0.1)
        fig.text(0.01, (notes - 0.2 - NOTE_LINE_INCHES * i) / h, line, fontsize=8, va="top", ha="left", color=color)
    return ax


def render_rgb(view: TopView, scale: float = 1.0) -> tuple[np.ndarray, tuple[tuple[float, float], tuple[float, float]]]:
    """The picture as an (h, w, 3) uint8 array, with the world-to-pixel scale and offset."""
    fig = new_figure(*view.figure_size(scale))
    ax = plan_axes(fig, view)
    draw(ax, view)
    rgb = rgb_pixels(fig)
    (x0, y0), (x1, y1) = ax.transData.transform([(0.0, 0.0), (1.0, 1.0)])
    return rgb, ((x1 - x0, y1 - y0), (x0, y0))


def save_png(view: TopView, path: str | Path, scale: float = 1.0) -> Picture:
    """Write ``view`` as a PNG (default size: about 100 pixels per metre)."""
    rgb, (scale_xy, offset) = render_rgb(view, scale)
    write_image(path, rgb)
    return Picture(Path(path), rgb.shape[1], rgb.shape[0], scale_xy, offset)


def write_image(path: str | Path, rgb: np.ndarray) -> Path:
    """Write an (h, w, 3) uint8 array as an optimised PNG (pillow)."""
    from PIL import Image  # noqa: PLC0415 - heavy optional: Pillow only when an image is written

    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    Image.fromarray(rgb).save(path, format="PNG", optimize=True)
    return path


def rect_of_box(lo: Sequence[float], hi: Sequence[float]) -> Rect:
    """An axis-aligned footprint from a box's corners."""
    return Rect((lo[0] + hi[0]) / 2.0, (lo[1] + hi[1]) / 2.0, 0.0, (hi[0] - lo[0]) / 2.0, (hi[1] - lo[1]) / 2.0)
