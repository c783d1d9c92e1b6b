"""Front ends of a running node graph: for programs (an MCP server, mcp/) and for people (a web page,
web/, and a spoken loop, voice/); who may reach the HTTP ones (access.py) and the check of the text
they pass on (inputs.py)."""
