"""``ros2 launch llm_planner llm_planner.launch.py`` finds the file: ros2launch looks a
launch file up by walking the package's share folder with ``os.walk`` (which does not follow folder
links), so the set-up installs share/llm_planner/launch as a real folder of the launch files."""
from __future__ import annotations

import os
from pathlib import Path

from ament_index_python.packages import get_package_share_directory

from llm_planner.paths import launch_dir
from llm_planner_ros.environment import apply_ros_environment


def _walk_for(share: str, file_name: str) -> list[str]:
    """What ros2launch's get_share_file_path_from_package does: every match of a walk of share/."""
    return [os.path.join(root, file_name) for root, _, files in os.walk(share) if file_name in files]


def test_a_walk_of_the_share_folder_finds_every_launch_file():
    apply_ros_environment()
    share = get_package_share_directory("llm_planner")
    for source in sorted(launch_dir().glob("*.launch.py")):
        found = _walk_for(share, source.name)
        assert len(found) == 1, f"{source.name}: {found or 'not found'} in a walk of {share}; run scripts/setup.sh"
        assert Path(found[0]).resolve() == source.resolve(), found
        assert not Path(share, "launch").is_symlink()
