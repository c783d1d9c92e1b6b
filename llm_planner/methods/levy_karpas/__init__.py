"""Levy & Karpas, "Understanding Natural Language in Context" (seed 001) on the household domain.

A directive (optionally with the state) is translated into an existentially quantified PDDL goal
and a plan template (Phase I: ``channels`` picks the channels of a backend, ``openai_channels``
asks a model; the offline answer is :mod:`llm_planner.methods.levy_karpas.offline_channels`), encoded in PDDL
(``encoding``, ``template``) and checked for consistency by Fast Downward with up to B = 5 tries
(Phase II, ``consistency``); ``system`` wires both phases, ``clauses`` splits a directive into
clauses, ``dataset`` holds the directive data set with gold goals and templates, ``metrics`` the
seed's Tables 1, 2, 4 and 5, ``config`` reads ``config/nl2pddl.yaml``.

The registered planner keeps its short name ``pddl`` (``planner``); the benchmark is
``llm-planner bench nl2pddl``.
"""
