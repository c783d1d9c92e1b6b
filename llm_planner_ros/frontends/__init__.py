"""Frontends that let other programs direct the robot through the graph's task-level interfaces."""
