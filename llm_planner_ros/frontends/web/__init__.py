"""``llm-planner web``: one page to direct, watch and answer the robot (starlette, server-sent events)."""
