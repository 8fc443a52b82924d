"""``teamdeck mcp``: the coordination tools of seed 002 served over MCP, so any agent
runtime (Claude Code and every other MCP client) can coordinate through the same files
the TUI supervises. Each tool is a thin call of the protocol function the CLI uses.

:mod:`catalog` (the tool names and descriptions, also shown by ``teamdeck mcp --help``)
imports nothing heavy; :mod:`server` builds the server on the official ``mcp`` SDK and
:mod:`http` serves it over streamable HTTP with an optional bearer token.
"""
