"""The household world: the symbolic apartment model (:mod:`.world`: scenes, states, tasks, expert
data, PDDL), its PyBullet simulator and perception (:mod:`.sim`) (its node-graph adapter is
:mod:`llm_planner.adapters.household`). LLM-MCTS, Levy-Karpas and SayCanPay plan here."""
