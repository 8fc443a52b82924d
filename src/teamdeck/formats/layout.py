"""The directory layout Claude Code's and Ripperdoc's team files share:
``teams/<team>/<roster>``, ``teams/<team>/<inboxes>/<member>.json`` and teamdeck's own
log beside them, ``teams/<team>/<log>``."""

from __future__ import annotations

from teamdeck.formats.format import TeamFile


def teams_layout_file(parts: tuple[str, ...], *, roster: str, inboxes: str, log: str) -> TeamFile | None:
    """What a changed path (its parts under the workspace root) is in that layout, or
    None when it is not under ``teams/<team>/`` or is none of its parts."""
    if len(parts) < 2 or parts[0] != "teams":
        return None
    team = parts[1]
    if len(parts) == 2:
        return TeamFile(team, "team")
    if parts[2] == roster and len(parts) == 3:
        return TeamFile(team, "roster")
    if parts[2] == log and len(parts) == 3:
        return TeamFile(team, "log")
    if parts[2] == inboxes:
        if len(parts) == 3:
            return TeamFile(team, "inboxes")
        name = parts[3]
        return TeamFile(team, "inbox", name[: -len(".json")] if name.endswith(".json") and len(parts) == 4 else None)
    return None
