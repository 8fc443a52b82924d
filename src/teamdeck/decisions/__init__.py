"""The kinds of decision a person is asked to make, each described once: a spec per
kind (decisions/spec.py: label, answers, note rule, detail, alert reason, JSON, the
protocol call that answers; the specs in decisions/kinds.py, run_kinds.py and
session_kinds.py), registered in one place with the lookups every front makes
(decisions/registry.py).

It sits above the read model and the protocol (it names both) and below the fronts.
"""
