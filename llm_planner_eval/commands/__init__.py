"""Evaluation's sub-commands of ``llm-planner`` (serve, bench, plot, build-prior, dataset), registered
as entry points in ``setup.py``."""
