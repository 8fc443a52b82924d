"""What crosses domains: what deciding a gate does (gate_decisions.py, with one rule per
gate kind in gate_kinds.py: lifecycle_gates.py, stall_gates.py and the forge's round
review), retrying a blocked task (task_retry.py), every piece of work a member owes,
delegated or on Gitea (owed.py), and the table of who finishes an interrupted action
(interrupted.py). Above every domain package, so each of them stays ignorant of the
others' effects.
"""
