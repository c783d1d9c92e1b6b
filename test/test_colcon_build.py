"""The repository also builds in an ordinary colcon workspace, as on a real ROS 2 install.

Here colcon comes from PyPI and ROS 2 from the PyPI wheels (the venv is the underlay). The colcon
instructions of docs/guides/colcon.md are exactly what this test runs.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
VENV = Path(sys.prefix)

pytestmark = pytest.mark.slow


def _copy_sources(dest: Path) -> None:
    files = subprocess.run(["git", "ls-files", "-co", "--exclude-standard"], cwd=REPO, capture_output=True,
                           text=True, check=True).stdout.split()
    for rel in files:
        src = REPO / rel
        target = dest / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        if src.is_symlink():
            target.symlink_to(os.readlink(src))
        elif src.is_file():
            shutil.copy2(src, target)


def test_colcon_builds_both_packages(tmp_path):
    colcon = VENV / "bin" / "colcon"
    if not colcon.exists():
        pytest.fail("colcon is missing: scripts/setup.sh installs requirements-dev.txt")
    ws = tmp_path / "ws"
    _copy_sources(ws / "src" / "llm_planner")
    env = dict(os.environ, AMENT_PREFIX_PATH=str(VENV), CMAKE_PREFIX_PATH=str(VENV),
               PATH=f"{VENV / 'bin'}:{os.environ.get('PATH', '')}", COLCON_HOME=str(tmp_path / "colcon_home"))
    cmd = [str(colcon), "build", "--base-paths", "src", "src/llm_planner/interfaces",
           "--cmake-args", f"-DPython3_EXECUTABLE={sys.executable}", "-DBUILD_TESTING=OFF"]
    proc = subprocess.run(cmd, cwd=ws, env=env, capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    install = ws / "install"
    assert list((install / "llm_planner_interfaces").glob("lib/python3*/site-packages/llm_planner_interfaces/srv/_plan_task.py"))
    assert (install / "llm_planner" / "share" / "llm_planner" / "launch" / "llm_planner.launch.py").is_file()
    assert (install / "llm_planner" / "lib" / "llm_planner" / "planner_node").exists()
    assert (install / "llm_planner" / "share" / "llm_planner" / "config" / "scenes" / "apartment_seen.yaml").is_file()
    # one ament package installs the three import packages, their data and the commands of each
    site = next((install / "llm_planner" / "lib").glob("python3*/site-packages"))
    for package in ("llm_planner", "llm_planner_ros", "llm_planner_eval"):
        assert (site / package / "__init__.py").is_file(), package
    assert (site / "llm_planner" / "domains" / "household" / "world" / "data" / "commonsense.yaml").is_file()
    assert (site / "llm_planner" / "reading" / "data" / "reader_cues.yaml").is_file()
    entry_points = next(site.glob("llm_planner*-info/entry_points.txt")).read_text()
    assert "[llm_planner.commands]" in entry_points and "llm_planner_ros.commands.launch" in entry_points
    assert "planner_node = llm_planner_ros.nodes.planner_node:main" in entry_points
