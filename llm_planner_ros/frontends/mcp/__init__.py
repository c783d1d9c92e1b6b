"""The planner as a Model Context Protocol server (``llm-planner mcp``, docs/guides/mcp.md).

An AI assistant gets the robot's task-level abilities (plan, execute with feedback, answer the
robot's question, cancel, look) through the graph's ``plan_task``, ``execute_directive``,
``answer_task``, ``cancel_task``, ``task_status`` and ``task_record`` interfaces, and nothing
below them: no topic, parameter or skill is reachable from a tool.

- :mod:`.settings`: ``config/mcp.yaml``.
- :mod:`.robot`: the graph seen through one :class:`~llm_planner_ros.client.PlannerClient`,
  used by one thread at a time.
- :mod:`.world`: the names of the graph's apartment (rooms, furniture, object types).
- :mod:`.server`: the MCP tools, the world-file resource and the directive prompt.
- :mod:`.http`: who may reach it over streamable HTTP (Host, Origin, the bearer token, body size).
"""
