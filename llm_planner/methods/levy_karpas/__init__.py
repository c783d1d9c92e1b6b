"""Levy & Karpas, "Understanding Natural Language in Context" (seed 001) on the household domain:
a directive (optionally with the state) is translated into an existentially quantified PDDL goal
and a plan template (Phase I, ``channels``/``openai_channels``), encoded in PDDL (``encoding``) and
checked for consistency by Fast Downward with up to B = 5 tries (Phase II, ``consistency``);
``system`` wires both phases, ``dataset`` holds the directive data set with gold goals and
templates, ``metrics`` the seed's Tables 1, 2, 4 and 5. The planner ``pddl``
(``llm_planner.methods.levy_karpas.planner``) and ``llm-planner bench nl2pddl`` use them."""
