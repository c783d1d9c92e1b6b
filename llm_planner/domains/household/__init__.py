"""The household world: the symbolic apartment model (:mod:`.world`: scenes, states, tasks, expert
data, PDDL), its PyBullet simulator and perception (:mod:`.sim`), and the node-graph adapter
(:mod:`.adapter`, loaded by ``get_domain("household")``). LLM-MCTS, Levy-Karpas and SayCanPay plan here."""
