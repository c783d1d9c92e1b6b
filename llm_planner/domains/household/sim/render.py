"""Headless images of the household world with PyBullet's TinyRenderer (no GPU, no display).

``top`` is a plan view of the whole apartment (+y up), taken by a distant narrow camera so that it
is nearly orthographic (TinyRenderer does not take an orthographic matrix); ``perspective``
looks at it obliquely from the south (or from ``look_from``: north, east, west). Given a ``room``,
either view frames that room alone (e.g. a lit lamp and a bright TV screen up close). Images are
written as 8-bit RGB PNG with the standard library.
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
#: Where the perspective camera stands: the unit vector from the view's centre towards it.
SIDES = {"south": (0.0, -1.0), "north": (0.0, 1.0), "east": (1.0, 0.0), "west": (-1.0, 0.0)}
_ROOM_CAMERA = (0.15, 0.65)  # a room's perspective camera: how far past its edge and how high, per its span
_CAMERA_HEIGHT = 80.0  # metres: a distant, narrow camera gives a near-orthographic plan view


class Drawable(Protocol):
    """A built apartment in a PyBullet client (a ``HouseholdSim``)."""

    @property
    def scene(self) -> Scene: ...

    @property
    def cfg(self) -> SimConfig: ...

    @property
    def client(self) -> int: ...


def render_rgb(sim: Drawable, width: int = 640, height: int = 480, view: str = "top", room: str | None = None,
               look_from: str = "south") -> np.ndarray:
    """The current scene (or one ``room`` of it) as an (height, width, 3) uint8 array."""
    if view not in VIEWS:
        raise ValueError(f"unknown view '{view}' (views: {', '.join(VIEWS)})")
    if width < 1 or height < 1:
        raise ValueError(f"image size must be positive, got {width}x{height}")
    if look_from not in SIDES:
        raise ValueError(f"unknown side '{look_from}' to look from (sides: {', '.join(SIDES)})")
    xmin, ymin, xmax, ymax = _extent(sim, room)
    cx, cy = (xmin + xmax) / 2.0, (ymin + ymax) / 2.0
    if view == "top":
        _, half_h = _fit((xmax - xmin) / 2.0, (ymax - ymin) / 2.0, width / height)
        view_m = p.computeViewMatrix([cx, cy, _CAMERA_HEIGHT], [cx, cy, 0.0], [0, 1, 0])
        fov = 2.0 * math.degrees(math.atan(half_h / _CAMERA_HEIGHT))
        proj_m = p.computeProjectionMatrixFOV(fov, width / height, _CAMERA_HEIGHT / 2.0, 2.0 * _CAMERA_HEIGHT)
    else:
        span = max(xmax - xmin, ymax - ymin)
        sx, sy = SIDES[look_from]
        back, up = (0.45, 0.75) if room is None else _ROOM_CAMERA  # a room: closer, so it fills the picture
        eye = [_beyond(xmin, xmax, cx, sx, back * span), _beyond(ymin, ymax, cy, sy, back * span), up * span]
        view_m = p.computeViewMatrix(eye, [cx, cy, 0.0], [0, 0, 1])
        proj_m = p.computeProjectionMatrixFOV(50.0, width / height, 0.1, 4.0 * span)
    _, _, rgba, _, _ = p.getCameraImage(
        width, height, viewMatrix=view_m, projectionMatrix=proj_m, renderer=p.ER_TINY_RENDERER,
        lightDirection=list(sim.cfg.light_direction), shadow=0, physicsClientId=sim.client)
    return np.asarray(rgba, dtype=np.uint8).reshape(height, width, 4)[:, :, :3]


def render_png(sim: Drawable, path: Path, width: int = 640, height: int = 480, view: str = "top",
               room: str | None = None, look_from: str = "south") -> Path:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    write_png(path, render_rgb(sim, width, height, view, room, look_from))
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


def _extent(sim: Drawable, room: str | None = None) -> tuple[float, float, float, float]:
    """The rooms' (or one room's) bounds with the render margin around."""
    if room is not None and room not in sim.scene.rooms:
        raise ValueError(f"unknown room '{room}' (rooms: {', '.join(sim.scene.rooms)})")
    rects = [r.rect for name, r in sim.scene.rooms.items() if room in (None, name)]
    m = sim.cfg.render_margin
    return (min(r[0] for r in rects) - m, min(r[1] for r in rects) - m,
            max(r[2] for r in rects) + m, max(r[3] for r in rects) + m)


def _beyond(lo: float, hi: float, centre: float, side: float, distance: float) -> float:
    """A camera coordinate ``distance`` past the low or high edge (``side`` -1 or 1), or the centre (0)."""
    if side < 0:
        return lo - distance
    return hi + distance if side > 0 else centre


def _fit(half_w: float, half_h: float, aspect: float) -> tuple[float, float]:
    """Grow one half extent so the view has the image's aspect ratio."""
    if half_w / half_h > aspect:
        return half_w, half_w / aspect
    return half_h * aspect, half_h
