"""The JSON every front prints: ``--json`` of the CLI and the MCP server's results come
from these functions, so a script and an agent read the same shape for the same thing.

Text stays as the files have it (JSON is not a terminal; a program needs the real values).
"""
