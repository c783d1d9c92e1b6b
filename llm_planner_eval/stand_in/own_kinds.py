"""The stand-in's own question kinds (``world_model``, ``policy``, ``translate``, ``random``: the
table of :mod:`.served`), registered with :mod:`.kinds` at import (``served_modules`` of
``config/methods.yaml``): recognised by :data:`.served.RECOGNISERS`, answered by
:class:`.served.ServedModel`, written by :data:`.styles.WRITERS`, answered wrongly by
:data:`.wrong_answers.WRONG` (``--error-rate``) and :data:`.inadmissible_answers.INADMISSIBLE`
(a small model's answers, ``--error-profile``)."""
from __future__ import annotations

from llm_planner_eval.stand_in.inadmissible_answers import INADMISSIBLE
from llm_planner_eval.stand_in.kinds import ServedKind, register
from llm_planner_eval.stand_in.served import RECOGNISERS, ServedModel
from llm_planner_eval.stand_in.styles import WRITERS
from llm_planner_eval.stand_in.wrong_answers import WRONG

#: the order their recognisers are tried in: after STaLM's plans (0), before Levy-Karpas' (40); random last
ORDER = {"world_model": 10, "policy": 20, "translate": 30, "random": 90}

KINDS = tuple(register(ServedKind(kind, recognise, getattr(ServedModel, f"_{kind}"), *WRITERS[kind],
                                  order=ORDER[kind], wrong={**WRONG.get(kind, {}), **INADMISSIBLE.get(kind, {})}))
              for kind, recognise in RECOGNISERS.items())
