"""``runtime: ripperdoc``: a member run as one headless Ripperdoc session (headless.py), how
its stream-json run log reads (stream_json.py) and what its ``result`` line reports of a
run (results.py). docs/runtime-ripperdoc.md has the observations behind each choice."""
