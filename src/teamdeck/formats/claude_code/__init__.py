"""Claude Code's agent-team files: the first team format (formats/format.py says what one is).

format.py is the format itself; the modules beside it read and write Claude Code's files
exactly as Claude Code does (its JSON, its directory locks, its task list). Nothing
outside this package imports them: the rest of teamdeck reaches them through the format
(an import-linter contract in pyproject.toml keeps it so).
"""
