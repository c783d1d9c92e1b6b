"""Headless images of the household world with PyBullet's TinyRenderer (no GPU, no display).

``top`` is a plan view of the whole apartment (+y up), taken by a distant narrow camera so that it
is nearly orthographic (TinyRenderer does not take an orthographic matrix); ``perspective``
looks at it obliquely from the south. Images are written as 8-bit RGB PNG with the standard library.
"""
from __future__ import annotations

import math
import struct
import zlib
from pathlib import Path
from typing import Protocol

import numpy as np

from llm_planner.domains.bullet import pybullet as p
from llm_planner.domains.household.sim.config import SimConfig
from llm_planner.domains.household.world.scene import Scene

VIEWS = ("top", "perspective")
_CAMERA_HEIGHT = 80.0  # metres: a distant, narrow camera gives a near-orthographic plan view


class Drawable(Protocol):
    """A built apartment in a PyBullet client (a ``HouseholdSim``)."""

    @property
    def scene(self) -> Scene: ...

    @property
    def cfg(self) -> SimConfig: ...

    @property
    def client(self) -> int: ...


def render_rgb(sim: Drawable, width: int = 640, height: int = 480, view: str = "top") -> np.ndarray:
    """The current scene as an (height, width, 3) uint8 array."""
    if view not in VIEWS:
        raise ValueError(f"unknown view '{view}' (views: {', '.join(VIEWS)})")
    if width < 1 or height < 1:
        raise ValueError(f"image size must be positive, got {width}x{height}")
    xmin, ymin, xmax, ymax = _extent(sim)
    cx, cy = (xmin + xmax) / 2.0, (ymin + ymax) / 2.0
    if view == "top":
        _, half_h = _fit((xmax - xmin) / 2.0, (ymax - ymin) / 2.0, width / height)
        view_m = p.computeViewMatrix([cx, cy, _CAMERA_HEIGHT], [cx, cy, 0.0], [0, 1, 0])
        fov = 2.0 * math.degrees(math.atan(half_h / _CAMERA_HEIGHT))
        proj_m = p.computeProjectionMatrixFOV(fov, width / height, _CAMERA_HEIGHT / 2.0, 2.0 * _CAMERA_HEIGHT)
    else:
        span = max(xmax - xmin, ymax - ymin)
        view_m = p.computeViewMatrix([cx, ymin - 0.45 * span, 0.75 * span], [cx, cy, 0.0], [0, 0, 1])
        proj_m = p.computeProjectionMatrixFOV(50.0, width / height, 0.1, 4.0 * span)
    _, _, rgba, _, _ = p.getCameraImage(
        width, height, viewMatrix=view_m, projectionMatrix=proj_m, renderer=p.ER_TINY_RENDERER,
        lightDirection=list(sim.cfg.light_direction), shadow=0, physicsClientId=sim.client)
    return np.asarray(rgba, dtype=np.uint8).reshape(height, width, 4)[:, :, :3]


def render_png(sim: Drawable, path: Path, width: int = 640, height: int = 480, view: str = "top") -> Path:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    write_png(path, render_rgb(sim, width, height, view))
    return path


def write_png(path: Path, rgb: np.ndarray) -> None:
    """Write an (h, w, 3) uint8 array as a PNG file (no filter, zlib compressed)."""
    if rgb.ndim != 3 or rgb.shape[2] != 3 or rgb.dtype != np.uint8:
        raise ValueError(f"expected an (h, w, 3) uint8 image, got {rgb.shape} {rgb.dtype}")
    h, w, _ = rgb.shape
    raw = b"".join(b"\x00" + rgb[row].tobytes() for row in range(h))

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    header = struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0)
    Path(path).write_bytes(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(raw, 6))
                           + chunk(b"IEND", b""))


def read_png_size(path: Path) -> tuple[int, int]:
    """(width, height) from a PNG header."""
    data = Path(path).read_bytes()[:24]
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError(f"{path}: not a PNG file")
    return struct.unpack(">II", data[16:24])


def _extent(sim: Drawable) -> tuple[float, float, float, float]:
    rects = [r.rect for r in sim.scene.rooms.values()]
    m = sim.cfg.render_margin
    return (min(r[0] for r in rects) - m, min(r[1] for r in rects) - m,
            max(r[2] for r in rects) + m, max(r[3] for r in rects) + m)


def _fit(half_w: float, half_h: float, aspect: float) -> tuple[float, float]:
    """Grow one half extent so the view has the image's aspect ratio."""
    if half_w / half_h > aspect:
        return half_w, half_w / aspect
    return half_h * aspect, half_h
