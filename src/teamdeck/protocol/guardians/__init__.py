"""Guardians (seed 003): programs that verify a task and return a verdict.

A guardian never changes a task; the supervisor (protocol/verification.py) assigns it,
runs it in a separate process with a hard timeout (:mod:`.runner`), records its verdict
and applies it. Built-ins: ``schema``, ``command``, ``diff``; more come from Python
entry points in the group ``teamdeck.guardians`` (:mod:`.registry`).
"""
