"""The worlds, each a package: :mod:`.household` (the apartments: symbolic model, PyBullet
simulator, perception) and :mod:`.gtamp` (STaLM's kitchen-and-hall problems), with what both
share: percepts (:mod:`.percept`), plain geometry for messages and pictures (:mod:`.geometry`,
:mod:`.shapes`) and the PyBullet import (:mod:`.bullet`). They know no planner; the node graph
reaches them through :mod:`llm_planner.adapters`.
"""
