"""Evaluation: the benchmarks that reproduce the papers' tables (:mod:`.bench`), the served stand-in
``llm-planner serve`` (:mod:`.stand_in`) and their commands. It imports the core, never the ROS layer."""
