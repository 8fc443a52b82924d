"""The team formats: each agent tool's way of keeping a team on disk, behind one seam.

format.py says what a format is (:class:`~teamdeck.formats.format.TeamFormat`),
registry.py which formats there are and which one a team is in, inboxes.py the records
an inbox is read into whatever its format. One package per format holds that tool's
files (claude_code/); nothing outside it imports them.
"""
