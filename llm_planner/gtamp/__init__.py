"""G-TAMP: geometric task and motion planning on a PyBullet kitchen-and-hall domain, and STaLM
(seed 003, "Search Tree augmented by Language Model") with its baselines.

Layers, bottom up (no ROS anywhere):

==================  =============================================================================
``domain``          types: problem specs, geometric state, task actions, goal atoms
``problems``        YAML loader of the layout and of problems P1-P6 (``config/gtamp/``)
``world``           the PyBullet world: static geometry, door, movable objects, mobile arm
``motion``          base roadmap (PRM), inverse kinematics, interpolated arm motion, swept volumes
``predicates``      AtPosition, PickOccludedBy, PlaceOccludedBy with literal/path caching (App. A)
``operators``       PICK/PLACE/OPEN samplers psi, transition T and reward R (§3.1, §4.1, Table 1)
``prompt``          CreatePrompt (Figure 3) and the baselines' prompts
``plan_parser``     safe parser of LLM task plans in the seed's tuple format
``search``          Concretize (Alg. 2), WarmStartedUCT / WarmUpTree / Simulate (Algs. 3-5), PUCT
``stalm``           STaLM (Alg. 1) and the baselines as closed-loop policies
``sim``             GTampSim: executes concrete steps on the PyBullet robot (executor API)
==================  =============================================================================
"""
