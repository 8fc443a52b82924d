"""Verification (seed 003): guardians, programs that verify a task and return a verdict,
and the loop that assigns, runs and applies them.

A guardian never changes a task; the supervisor (protocol/guardians/verification.py)
assigns it, runs it in a separate process with a hard timeout (process.py, in child.py),
records its verdict and applies it; verdict_integrity.py finds a verdict edited by hand
and verdict_history.py reads them back. Built-ins: ``schema``, ``command``, ``diff`` and
``plan`` (a coordinator plan's tasks are all done), listed in registry.py; more come from
Python entry points in the group ``teamdeck.guardians``. Every guardian is told a
context.py :class:`~.context.GuardianContext`.
"""
