"""Coordinator plans (seed 002): ``@@@task`` blocks → tasks in dependency waves, a plan
state machine driven through approval, execution and verification of each wave.

- :mod:`.parser`: the ``@@@task`` block format, every problem with its line.
- :mod:`.waves`: the dependency graph: waves, and cycles named.
- protocol/task/planfile.py: plan.yaml + events.jsonl, kept by the same transaction
  machinery as tasks (below the guardians, whose ``plan`` guardian reads it).
- :mod:`.importer`: ``teamdeck plan import``.
- :mod:`.machine`: the plan's state table and :func:`~.machine.advance` (``teamdeck plan run``).
- protocol/guardians/plan.py: the ``plan`` guardian (every task of the plan is done),
  run as a guardian by the verification loop.
- :mod:`.overview`: read functions for fronts (state, waves, what blocks what).
"""
