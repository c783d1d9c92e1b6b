"""The execution strip: one small labelled top view per step with the action written under it,
as one PNG (and an animated GIF), so a person sees a whole episode at a glance.

Frames come from a recorder (:mod:`llm_planner.viz.recorder`); each is a
:class:`~llm_planner.viz.topdown.TopView` drawn with ``detail="small"`` (no furniture names:
the goal's things, the robot, the path of that step).
"""
from __future__ import annotations

import math
import textwrap
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from llm_planner.viz.topdown import (
    DPI,
    PROBLEM_COLOR,
    TopView,
    crop,
    draw,
    new_figure,
    render_rgb,
    rgb_pixels,
    used_extent,
    write_image,
)

#: Strip layout: frames per row, width of one frame (inches), caption lines under a frame.
COLUMNS = 6
FRAME_INCHES = 2.6
CAPTION_LINES = 3
CAPTION_CHARS = 34
#: A frame of a long crop (more than LONG_ASPECT times wider than high) is drawn wider, up to MAX_WIDE times.
LONG_ASPECT = 3.0
MAX_WIDE = 4.0
#: Animated GIF: size of a frame relative to the full picture, and milliseconds per frame.
GIF_SCALE = 0.55
GIF_FRAME_MS = 1000


@dataclass(frozen=True)
class Frame:
    """One step of an episode: its number (0 = the start), the action, its outcome, the view after it."""

    step: int
    action: str
    success: bool
    reason: str
    view: TopView

    @property
    def caption(self) -> str:
        if self.step == 0:
            return f"start: {self.action}" if self.action else "start"
        text = f"{self.step}. {self.action}"
        return text if self.success else f"{text} FAILED: {self.reason}"


def cropped(frames: Sequence[Frame]) -> list[Frame]:
    """The frames cut to the rooms the episode used (:func:`~llm_planner.viz.topdown.used_extent`), so
    a step in a large apartment is not a thumbnail of the whole of it."""
    if not frames:
        return []
    extent = used_extent([f.view for f in frames])
    return [Frame(f.step, f.action, f.success, f.reason, crop(f.view, extent)) for f in frames]


def write_strip(frames: Sequence[Frame], path: str | Path, title: str = "", columns: int = COLUMNS) -> Path:
    """All frames in rows of ``columns``, each with its caption under it, as one PNG; the frames are
    cut to the rooms the episode used and a frame of a wide apartment is drawn wider."""
    if not frames:
        raise ValueError("an execution strip needs at least one frame")
    frames = cropped(frames)
    xmin, ymin, xmax, ymax = frames[0].view.extent
    wide = max(1.0, min(MAX_WIDE, (xmax - xmin) / max(ymax - ymin, 1e-6) / LONG_ASPECT))  # a long crop: wider frames
    frame_inches = FRAME_INCHES * wide
    columns = max(1, min(max(1, round(columns / wide)), len(frames)))
    rows = math.ceil(len(frames) / columns)
    plan_h = frame_inches * (ymax - ymin) / (xmax - xmin)
    cell_h = plan_h + 0.16 * CAPTION_LINES + 0.1
    title_h = 0.4 if title else 0.1
    fig = new_figure(columns * frame_inches, rows * cell_h + title_h)
    width, height = fig.get_size_inches()
    if title:
        fig.text(0.01, 1.0 - 0.12 / height, title, fontsize=9, va="top", ha="left", fontweight="bold")
    for k, frame in enumerate(frames):
        row, col = divmod(k, columns)
        top = height - title_h - row * cell_h
        ax = fig.add_axes((col * frame_inches / width + 0.003, (top - plan_h) / height,
                           frame_inches / width - 0.006, plan_h / height))
        view = frame.view
        view.title = ""
        draw(ax, view, detail="small")
        lines = textwrap.wrap(frame.caption, int(CAPTION_CHARS * wide))[:CAPTION_LINES]
        fig.text((col + 0.5) * frame_inches / width, (top - plan_h - 0.04) / height, "\n".join(lines), fontsize=6.5,
                 ha="center", va="top", color=(0.1, 0.1, 0.1) if frame.success else PROBLEM_COLOR,
                 fontweight="normal" if frame.success else "bold")
    return write_image(path, rgb_pixels(fig))


def write_gif(frames: Sequence[Frame], path: str | Path, frame_ms: int = GIF_FRAME_MS) -> Path:
    """The frames as an animated GIF (each with its caption as the title), looping."""
    from PIL import Image  # noqa: PLC0415 - heavy optional: Pillow only when an image is written

    if not frames:
        raise ValueError("an animation needs at least one frame")
    images = []
    for frame in cropped(frames):
        frame.view.title = textwrap.shorten(frame.caption, 90)
        rgb, _ = render_rgb(frame.view, GIF_SCALE)
        images.append(Image.fromarray(rgb).convert("P", palette=Image.Palette.ADAPTIVE, colors=96))
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    images[0].save(path, save_all=True, append_images=images[1:], duration=frame_ms, loop=0, optimize=True)
    return path


__all__ = ["Frame", "write_strip", "write_gif", "DPI"]
