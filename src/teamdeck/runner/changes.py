"""What a batch of changed paths means to the runner: the settings, a team's roster, a
member's inbox, a wake or stop asked, a decision answered. Everything else under the
workspace (tasks, run logs being written...) is nothing to it."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from teamdeck.store.workspace import SETTINGS_FILE


@dataclass
class Changes:
    """See the module. ``members``: (team, member) whose inbox changed; ``teams``: teams
    whose config.json changed."""

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
        elif len(parts) == 4 and parts[0] == "teams" and parts[2] == "inboxes" and parts[3].endswith(".json"):
            found.members.add((parts[1], parts[3][: -len(".json")]))
        elif len(parts) == 3 and parts[0] == "teams" and parts[2] == "config.json":
            found.teams.add(parts[1])
        elif parts == ("runs", "requests.jsonl"):
            found.requests = True
        elif parts == ("runs", "decisions.jsonl"):
            found.answers = True
    return found
