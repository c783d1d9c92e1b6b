"""STaLM, "Search Tree augmented by Language Model" (seed 003), and its baselines on the G-TAMP
world (:mod:`llm_planner.domains.gtamp`). No ROS anywhere.

==================  =============================================================================
``prompt``          CreatePrompt (Figure 3) and the baselines' prompts
``plan_parser``     safe parser of LLM task plans in the seed's tuple format (App. E)
``llm_source``      the task plans of the language model, parsed, for one problem
``search``          Concretize (Alg. 2), WarmStartedUCT / WarmUpTree / Simulate (Algs. 3-5), PUCT
``stalm``           STaLM (Alg. 1) as a closed-loop policy
``baselines``       UCT, UCT-with-Hcount, SayCan, Iterative-Replanning, LLM-MCTS (§4.2, App. D)
``planner``         the registered planners ``stalm``, ``stalm_no_*`` and ``gtamp_*``
==================  =============================================================================
"""
