"""The ROS layer's sub-commands of ``llm-planner``, clients of the node graph (launch, plan, cancel,
status, say, answer, demo, snapshot), registered as entry points in ``setup.py``."""
