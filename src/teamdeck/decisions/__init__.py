"""The kinds of decision a person is asked to make, each described once: a spec per
kind (decisions/kinds.py: label, answers, note rule, detail, JSON, the protocol call that
answers) and the lookups every front makes (decisions/registry.py).

It sits above the read model and the protocol (it names both) and below the fronts.
"""
