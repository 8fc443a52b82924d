"""Tasks (seed 000): task.yaml and its events (taskfile.py, replay.py), creating tasks
(create.py), the lifecycle (lifecycle.py, its "may I" rules in allowed.py), the workers'
outputs (worker_outputs.py), joining them and opening gates (join.py, joined_report.py),
the gates as they are (gates.py), where people answer (human_notes.py) and the plan
document, kept like a task (planfile.py). What deciding a gate does beyond recording
itself crosses domains: protocol/effects/gate_decisions.py.
"""
