"""PNG writing and TinyRenderer snapshots."""
from __future__ import annotations

import struct
import zlib

import numpy as np
import pytest

from llm_planner.cli import main
from llm_planner.domains.household.sim.render import read_png_size, render_rgb, write_png


def decode_png(path) -> np.ndarray:
    """Minimal decoder for the files write_png makes (8-bit RGB, filter 0)."""
    data = path.read_bytes()
    pos, idat, size = 8, b"", None
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            size = struct.unpack(">II", body[:8])
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    w, h = size
    raw = zlib.decompress(idat)
    rows = [raw[r * (3 * w + 1) + 1:(r + 1) * (3 * w + 1)] for r in range(h)]
    return np.frombuffer(b"".join(rows), dtype=np.uint8).reshape(h, w, 3)


def test_png_round_trip(tmp_path):
    img = (np.arange(4 * 5 * 3) % 256).astype(np.uint8).reshape(4, 5, 3)
    write_png(tmp_path / "a.png", img)
    assert read_png_size(tmp_path / "a.png") == (5, 4)
    assert np.array_equal(decode_png(tmp_path / "a.png"), img)
    with pytest.raises(ValueError, match="expected an"):
        write_png(tmp_path / "b.png", np.zeros((4, 5), dtype=np.uint8))


def test_render_shows_the_apartment(worlds, tmp_path):
    sim = worlds("apartment_seen")
    sim.reset(sim.scene.sample_placement(0), seed=0)
    path = sim.render_png(tmp_path / "top.png", 320, 240, "top")
    assert path.stat().st_size > 1000 and read_png_size(path) == (320, 240)
    img = decode_png(path)
    colors = {tuple(c) for c in img.reshape(-1, 3)[::7]}
    assert len(colors) > 20  # walls, floors of four rooms, furniture, objects, robot
    persp = render_rgb(sim, 160, 120, "perspective")
    assert persp.shape == (120, 160, 3) and persp.std() > 10
    with pytest.raises(ValueError, match="unknown view"):
        render_rgb(sim, 10, 10, "side")


def test_snapshot_command_writes_the_png(tmp_path, capsys):
    out = tmp_path / "scene.png"
    assert main(["snapshot", "--scene", "apartment_seen", "--seed", "2", "--out", str(out), "--view", "top",
                 "--width", "200", "--height", "150"]) == 0
    assert read_png_size(out) == (200, 150)
    assert "wrote" in capsys.readouterr().out
    assert main(["snapshot", "--out", str(out), "--width", "0"]) == 1
    assert "--width and --height must be positive" in capsys.readouterr().err


def test_a_room_view_from_a_side_shows_a_lit_lamp_and_screen(worlds):
    """A room framed alone, from the north: switching the TV and the lamp on brightens pixels."""
    sim = worlds("apartment_seen")
    placement = sim.scene.sample_placement(0)
    try:
        sim.reset(placement, seed=0)
        dark = render_rgb(sim, 160, 120, "perspective", room="living_room", look_from="north").astype(int)
        sim.reset(placement, seed=0, switched_on=("tv", "floor_lamp"))
        lit = render_rgb(sim, 160, 120, "perspective", room="living_room", look_from="north").astype(int)
    finally:
        sim.reset(placement, seed=0)
    brighter = (lit.sum(axis=2) - dark.sum(axis=2)) > 60
    assert brighter.sum() > 30 and ((dark.sum(axis=2) - lit.sum(axis=2)) > 60).sum() == 0
    assert not np.array_equal(render_rgb(sim, 80, 60, "perspective", room="living_room"), dark[::2, ::2])
    with pytest.raises(ValueError, match="unknown room 'attic'"):
        render_rgb(sim, 10, 10, "top", room="attic")
    with pytest.raises(ValueError, match="unknown side 'up'"):
        render_rgb(sim, 10, 10, "perspective", look_from="up")


def test_snapshot_shows_the_things_it_is_told_are_on(tmp_path, capsys):
    out = tmp_path / "on.png"
    assert main(["snapshot", "--scene", "apartment_seen", "--out", str(out), "--view", "perspective", "--room",
                 "living_room", "--look-from", "north", "--switched-on", "tv", "floor_lamp", "--width", "120",
                 "--height", "90"]) == 0
    assert read_png_size(out) == (120, 90)
    assert main(["snapshot", "--out", str(out), "--switched-on", "fridge"]) == 1
    assert "--switched-on names fridge, which apartment_seen cannot switch" in capsys.readouterr().err
