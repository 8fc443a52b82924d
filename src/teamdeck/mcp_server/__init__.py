"""``teamdeck mcp``: the coordination tools of seed 002 served over MCP, so any agent
runtime (Claude Code and every other MCP client) can coordinate through the same files
the TUI supervises. Each tool is a thin call of the protocol function the CLI uses.

:mod:`tools` declares each tool once (name, description, arguments, role rule, the
protocol call) without the MCP SDK, so ``teamdeck mcp --help`` lists them at once;
:mod:`seat` is who the server acts as; :mod:`server` wires the tools into a server on the
official ``mcp`` SDK and :mod:`http` serves it over streamable HTTP with an optional
bearer token.
"""
