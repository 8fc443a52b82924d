"""A throwaway second team format, to show the team-format seam (formats/format.py) holds.

It is not any real tool's: its files have other names and other field names than
Claude Code's, and it guards them with its own lock, so a test that passes on a team of
this format shows that protocol/ and view/ reach a team's files only through its format.
It is registered in the tests alone, through the ``teamdeck.team_formats`` entry-point
group (tests/unit/formats/test_second_format.py); nothing under src/ names it.
"""
