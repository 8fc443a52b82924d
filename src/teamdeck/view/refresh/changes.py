"""What a changed path belongs to: a task, a team's roster or inbox (as its team format
says, formats/registry.py), a plan, the settings... (the refresher reads only that again)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field, fields
from pathlib import Path

from teamdeck.formats.registry import team_file
from teamdeck.store.workspace import SETTINGS_FILE
from teamdeck.view.readers.plans import plan_of_path, verdict_task_of_path


@dataclass
class Work:
    """What a batch of changed paths asks the refresher to read again."""

    settings: bool = False
    relist: bool = False
    tasks: set[str] = field(default_factory=set)
    outputs: set[str] = field(default_factory=set)
    """Tasks where something under ``agents/`` (or the task directory itself) changed:
    their worker outputs are read again."""
    teams: dict[str, set[str]] = field(default_factory=dict)
    """team -> the parts to re-read: ``config``, ``messages``, ``connections`` or
    ``inbox:<recipient>`` (what the team's format says a path is, formats/format.py)."""
    plans: set[str] = field(default_factory=set)
    relist_plans: bool = False
    verdicts: set[str] = field(default_factory=set)
    """Tasks whose ``guardian/`` changed: their verdict history is read again."""
    forge: bool = False
    """Something under ``forge/`` changed: the issues are read again."""
    sessions: set[str] = field(default_factory=set)
    """Teams whose ``sessions/<team>.jsonl`` changed: its prompts and events are read again."""
    runs: set[str] = field(default_factory=set)
    """``team/member`` whose run record changed (``*``: all, the runs/ directory itself),
    and ``decisions`` when the runner's decisions did (a run's output log is no change)."""
    task_lists: dict[str, set[str]] = field(default_factory=dict)
    """``tasks/<name>/`` -> the file names changed in it (``all``: the directory
    itself), in case it is a team's Claude Code task list."""

    @property
    def empty(self) -> bool:
        """Nothing the view shows was touched: a batch of files no snapshot is read from
        (teamdeck's own ``.teamdeck/`` bookkeeping, such as the observed-messages log the
        view itself appends to after reading an inbox). Every field counts, so a part
        added later is never taken for nothing."""
        return not any(getattr(self, part.name) for part in fields(self))  # every part: none can be forgotten


def classify(root: Path, changed: Iterable[Path]) -> Work:
    """Map each changed path under ``root`` to what it belongs to (anything outside
    ``root`` is ignored)."""
    work = Work()
    for path in changed:
        try:
            parts = Path(path).relative_to(root).parts
        except ValueError:
            continue
        if not parts:
            work.relist = True
        elif parts == (SETTINGS_FILE,):
            work.settings = True
        elif parts[0] == "sessions":
            if len(parts) == 2 and parts[1].endswith(".jsonl"):
                work.sessions.add(parts[1][: -len(".jsonl")])
        elif parts[0] == "forge":
            work.forge = True
        elif parts[0] == "runs":
            if len(parts) == 5 and parts[4] == "run.yaml":
                work.runs.add(f"{parts[1]}/{parts[2]}")
            elif parts[-1] == "decisions.jsonl":
                work.runs.add("decisions")
            elif len(parts) <= 3:
                work.runs.add("*")
        elif parts[0] == "plans":
            plan = plan_of_path(parts)
            if plan is None:
                work.relist_plans = True
            else:
                work.plans.add(plan)
        elif parts[0] == "tasks":
            if len(parts) == 1:
                work.relist = True
            else:
                work.tasks.add(parts[1])
                if len(parts) == 2 or parts[2] == "agents":
                    work.outputs.add(parts[1])
                if verdict_task_of_path(parts):
                    work.verdicts.add(parts[1])
                if len(parts) <= 3:
                    work.task_lists.setdefault(parts[1], set()).add(parts[2] if len(parts) == 3 else "all")
        elif (found := team_file(parts)) is not None:
            team = work.teams.setdefault(found.team, set())
            if found.what in ("team", "inboxes"):
                team.add("all")
            elif found.what == "roster":
                team.add("config")
            elif found.what == "log":
                team.add("messages")
            elif found.member is not None:
                team.add(f"inbox:{found.member}")
        elif parts[0] == "teams":  # teamdeck's own files beside a team's (store/workspace.py)
            if len(parts) == 1:
                work.relist = True
                continue
            team = work.teams.setdefault(parts[1], set())
            if len(parts) > 2 and parts[2] == "connections":
                team.add("connections")
    return work
