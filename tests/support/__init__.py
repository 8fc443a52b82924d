"""What the tests share and are not tests themselves: the small worlds they build, the
stand-ins they talk to (a scripted model, a Gitea API, an MCP elicitation server), the
scripted agents a runner starts, and the Pilot waits of the TUI tests.

A package of its own, beside the test folders, so a test file imports a helper by a name
that says where it lives (``from support.small_worlds import ...``) whichever folders a
run collects and in whatever order; ``pythonpath`` in pyproject.toml puts tests/ on the
path. The scripts a test starts as a process (runner_agent.py, autowork_crafter.py,
elicit_server.py) import nothing from here, so they run by their path alone.
"""
