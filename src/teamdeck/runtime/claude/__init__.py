"""``runtime: claude-code``: Claude Code run headless (headless.py), how its stream-json run
log reads (stream_json.py) and how its ``result`` line reports a run's session, usage and
cost (results.py)."""
