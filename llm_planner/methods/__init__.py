"""The planning methods, one package per paper, each holding its algorithm, prompts, parser and
baselines, named as the paper names it:

* :mod:`.llm_mcts`: LLM-MCTS (seeds 000 and 002; planners ``llm_mcts``, ``uct``, ``l_policy`` ...).
* :mod:`.stalm`: STaLM for G-TAMP (seed 003; ``stalm`` and its baselines ``gtamp_*``).
* :mod:`.levy_karpas`: Levy & Karpas, NL to PDDL goals and templates (seed 001; planner ``pddl``).
* :mod:`.saycanpay`: SayCanPay (seed 004; planner ``saycanpay``).
* :mod:`.classical`: the full-state Fast Downward baseline ``classical``.

Each registers its planners with :func:`llm_planner.planners.base.register` when imported.
"""
