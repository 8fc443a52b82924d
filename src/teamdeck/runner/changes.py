"""What a batch of changed paths means to the runner: the settings, a team's roster, a
member's inbox, a wake or stop asked, a decision answered. Everything else under the
workspace (tasks, run logs being written...) is nothing to it."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from teamdeck.formats.registry import team_file
from teamdeck.store.workspace import SETTINGS_FILE


@dataclass
class Changes:
    """See the module. ``members``: (team, member) whose inbox changed; ``teams``: teams
    whose roster changed (what each path is, its team format says: formats/format.py)."""

    settings: bool = False
    teams: set[str] = field(default_factory=set)
    members: set[tuple[str, str]] = field(default_factory=set)
    requests: bool = False
    answers: bool = False


def classify(root: Path, paths: Iterable[Path]) -> Changes:
    """The :class:`Changes` of ``paths`` (absolute, under ``root``)."""
    found = Changes()
    for path in paths:
        try:
            parts = path.relative_to(root).parts
        except ValueError:
            continue
        if parts == (SETTINGS_FILE,):
            found.settings = True
        elif (team_part := team_file(parts)) is not None:
            if team_part.what == "inbox" and team_part.member is not None:
                found.members.add((team_part.team, team_part.member))
            elif team_part.what == "roster":
                found.teams.add(team_part.team)
        elif parts == ("runs", "requests.jsonl"):
            found.requests = True
        elif parts == ("runs", "decisions.jsonl"):
            found.answers = True
    return found
