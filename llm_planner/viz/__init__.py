"""Pictures: labelled top-down views (scene checks, snapshots), execution strips, RViz marker
descriptions and benchmark plots. Plain Python on matplotlib; no ROS, no PyBullet."""
