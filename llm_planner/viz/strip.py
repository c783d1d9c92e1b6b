"""The execution strip: one small labelled top view per step with the action written under it,
as one PNG (and an animated GIF), so a person sees a whole episode at a glance.

Frames come from a recorder (:mod:`llm_planner.viz.recorder`); each is a
:class:`~llm_planner.viz.topdown.TopView` drawn with ``detail="small"`` (no furniture names:
the goal's things, the robot, the path of that step).
"""
from __future__ import annotations

import math
import textwrap
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

import numpy as np

from llm_planner.viz.topdown import DPI, PROBLEM_COLOR, TopView, draw, new_figure, render_rgb, write_image

#: Strip layout: frames per row, width of one frame (inches), caption lines under a frame.
COLUMNS = 6
FRAME_INCHES = 2.6
CAPTION_LINES = 3
CAPTION_CHARS = 34
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


def write_strip(frames: Sequence[Frame], path: str | Path, title: str = "", columns: int = COLUMNS) -> Path:
    """All frames in rows of ``columns``, each with its caption under it, as one PNG."""
    if not frames:
        raise ValueError("an execution strip needs at least one frame")
    columns = max(1, min(columns, len(frames)))
    rows = math.ceil(len(frames) / columns)
    xmin, ymin, xmax, ymax = frames[0].view.extent
    plan_h = FRAME_INCHES * (ymax - ymin) / (xmax - xmin)
    cell_h = plan_h + 0.16 * CAPTION_LINES + 0.1
    title_h = 0.4 if title else 0.1
    fig = new_figure(columns * FRAME_INCHES, rows * cell_h + title_h)
    width, height = fig.get_size_inches()
    if title:
        fig.text(0.01, 1.0 - 0.12 / height, title, fontsize=9, va="top", ha="left", fontweight="bold")
    for k, frame in enumerate(frames):
        row, col = divmod(k, columns)
        top = height - title_h - row * cell_h
        ax = fig.add_axes((col * FRAME_INCHES / width + 0.003, (top - plan_h) / height,
                           FRAME_INCHES / width - 0.006, plan_h / height))
        view = frame.view
        view.title = ""
        draw(ax, view, detail="small")
        lines = textwrap.wrap(frame.caption, CAPTION_CHARS)[:CAPTION_LINES]
        fig.text((col + 0.5) * FRAME_INCHES / width, (top - plan_h - 0.04) / height, "\n".join(lines), fontsize=6.5,
                 ha="center", va="top", color=(0.1, 0.1, 0.1) if frame.success else PROBLEM_COLOR,
                 fontweight="normal" if frame.success else "bold")
    fig.canvas.draw()
    rgb = np.asarray(fig.canvas.buffer_rgba())[:, :, :3].copy()
    return write_image(path, rgb)


def write_gif(frames: Sequence[Frame], path: str | Path, frame_ms: int = GIF_FRAME_MS) -> Path:
    """The frames as an animated GIF (each with its caption as the title), looping."""
    from PIL import Image

    if not frames:
        raise ValueError("an animation needs at least one frame")
    images = []
    for frame in frames:
        frame.view.title = textwrap.shorten(frame.caption, 90)
        rgb, _ = render_rgb(frame.view, GIF_SCALE)
        images.append(Image.fromarray(rgb).convert("P", palette=Image.Palette.ADAPTIVE, colors=96))
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    images[0].save(path, save_all=True, append_images=images[1:], duration=frame_ms, loop=0, optimize=True)
    return path


__all__ = ["Frame", "write_strip", "write_gif", "DPI"]
