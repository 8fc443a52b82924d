"""Which event-sourced documents there are, and which may be behind their events:
read without pydantic or PyYAML, so every writing command can ask at its start (F26).

A task is ``tasks/<id>/`` holding task.yaml or events.jsonl (not a Claude Code task
list); a plan is ``plans/<id>/`` holding plan.yaml or events.jsonl. A document is
behind when its log holds a record after the one its file names as ``lastEventId``
(a writer killed between the append and the replace, R11); telling costs two small
reads per document. protocol/task/taskfile.py's ``rewrite_stale`` brings one up to date.
"""

from __future__ import annotations

import re
from pathlib import Path

from teamdeck.errors import InvalidFile
from teamdeck.formats.registry import holds_teamdeck_task
from teamdeck.store.files import list_entries
from teamdeck.store.jsonl import last_record_id
from teamdeck.store.loaders import read_capped
from teamdeck.store.paths import ID_RE
from teamdeck.store.workspace import Workspace

_LAST_EVENT_LINE = re.compile(rb"^lastEventId: *([0-9A-Za-z_-]+) *$", re.MULTILINE)
"""The top-level ``lastEventId`` line as taskfile's ``dump_task`` writes it."""


def task_ids(ws: Workspace) -> list[str]:
    """The ids of the teamdeck tasks under ``tasks/`` (directories with task.yaml or
    events.jsonl; Claude Code task lists and invalid names are left out)."""
    return [
        entry.name
        for entry in list_entries(ws.tasks_dir)
        if entry.is_dir and ID_RE.fullmatch(entry.name) and holds_teamdeck_task(entry.path)
    ]


def plan_ids(ws: Workspace) -> list[str]:
    """The ids of the plans under ``plans/`` (directories with plan.yaml or events.jsonl)."""
    return [
        entry.name
        for entry in list_entries(ws.plans_dir)
        if entry.is_dir
        and ID_RE.fullmatch(entry.name)
        and ((entry.path / "plan.yaml").exists() or (entry.path / "events.jsonl").exists())
    ]


def names_last_event(document: Path, log: Path) -> bool:
    """Whether ``document`` names the last record of ``log`` as its ``lastEventId``, or
    ``log`` holds none: then it has applied every event. False means it may be behind
    (missing, empty, unreadable, its line written another way: the caller replays to
    be sure)."""
    last = last_record_id(log)
    if last is None:
        return True
    try:
        data = read_capped(document)
    except (FileNotFoundError, InvalidFile):
        return False
    named = _LAST_EVENT_LINE.findall(data)
    return len(named) == 1 and named[0].decode() == last


def maybe_behind(ws: Workspace) -> tuple[list[str], list[str]]:
    """The tasks and the plans whose file may not have applied every event of its log."""
    tasks = [
        task_id for task_id in task_ids(ws) if not names_last_event(ws.task_file(task_id), ws.events_file(task_id))
    ]
    plans = [
        plan_id for plan_id in plan_ids(ws) if not names_last_event(ws.plan_file(plan_id), ws.plan_events_file(plan_id))
    ]
    return tasks, plans
