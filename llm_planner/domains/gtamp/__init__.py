"""The G-TAMP world of STaLM (seed 003): the kitchen-and-hall problems P1-P6 on PyBullet.

==================  =============================================================================
``domain``          types: problem specs, geometric state, task actions, goal atoms
``problems``        YAML loader of the layout and of problems P1-P6 (``config/gtamp/``)
``config``          hyper-parameters of the operators and of STaLM's search (``config/gtamp/stalm.yaml``)
``world``           the PyBullet world: static geometry, door, movable objects, mobile arm
``motion``          base roadmap (PRM), inverse kinematics, interpolated arm motion, swept volumes
``predicates``      AtPosition, PickOccludedBy, PlaceOccludedBy with literal/path caching (App. A)
``operators``       PICK/PLACE/OPEN samplers psi, transition T and reward R (§3.1, §4.1, Table 1)
``sim``             GTampSim: executes concrete steps on the PyBullet robot (executor API)
``check``           checks of a problem file beyond its schema
``codec``           plain-data encoding of G-TAMP goals and actions for messages
``directive``       the directive grammar the planner node grounds ("put the salter right of bottle1")
==================  =============================================================================

STaLM itself and its baselines are in :mod:`llm_planner.methods.stalm`; the node-graph adapter
is :mod:`llm_planner.adapters.gtamp`.
"""
