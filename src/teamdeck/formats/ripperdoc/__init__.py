"""Ripperdoc's team files (seed 004's Team/Teammate protocol, Ripperdoc 0.6.2): a second
:class:`~teamdeck.formats.format.TeamFormat` beside Claude Code's (tests/fixtures/ripperdoc/FORMAT.md).
"""
