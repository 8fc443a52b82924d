"""What every domain of protocol/ uses, and nothing of any domain: making events
(events.py), intents that let an action finish after a crash (intents.py; the table of
who finishes what is protocol/effects/interrupted.py), what a protocol call wrote
(written.py), untrusted text in generated Markdown (markdown.py) and validation problems
a person can read (problems.py).
"""
