"""The one interface every planner implements and the registry that creates planners by name
(:mod:`.base`); the planners themselves are the methods of :mod:`llm_planner.methods`."""
