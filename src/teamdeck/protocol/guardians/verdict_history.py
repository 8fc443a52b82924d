"""The verification loop's history (seed 003's API endpoints): every guardian assignment
and verdict of a task, oldest first, read from ``guardian/assignments/`` and
``guardian/verdicts/``; unreadable files become problems, and a verdict file edited by
hand is reported (protocol/guardians/verdict_integrity.py). Read functions only: the loop itself
is protocol/guardians/verification.py."""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError

from teamdeck.errors import InvalidFile
from teamdeck.model.guardian import GuardianAssignment, GuardianVerdictSnapshot
from teamdeck.protocol.guardians.verdict_integrity import VerdictProblem, check_verdicts
from teamdeck.store.files import list_entries, read_optional
from teamdeck.store.loaders import parse_json
from teamdeck.store.workspace import Workspace


def _read_records(ws: Workspace, directory: Any, model: Any) -> tuple[list[Any], list[str]]:
    records, problems = [], []
    for entry in list_entries(directory):
        if entry.is_dir or not entry.name.endswith(".json") or entry.name.startswith("."):
            continue
        shown = str(ws.rel(entry.path))
        try:
            data = read_optional(entry.path, shown=shown)
            if data is None:
                continue
            record = model.model_validate(parse_json(data, shown))
            if f"{record.id}.json" != entry.name:
                problems.append(f"{shown}: its id '{record.id}' does not match the file name; ignored")
                continue
            records.append(record)
        except InvalidFile as err:
            problems.append(str(err))
        except ValidationError as err:
            problems.append(f"{shown}: {err.errors()[0]['msg']}")
    return sorted(records, key=lambda record: (record.createdAt, record.id)), problems


def list_assignments(ws: Workspace, task_id: str) -> tuple[list[GuardianAssignment], list[str]]:
    """Every assignment of the task, oldest first, and problems with unreadable files."""
    return _read_records(ws, ws.assignments_dir(task_id), GuardianAssignment)


def list_verdicts(ws: Workspace, task_id: str) -> tuple[list[GuardianVerdictSnapshot], list[str]]:
    """Every verdict of the task, oldest first (the verdict history), and problems; a
    verdict file edited by hand is reported and its recorded verdict listed instead."""
    files, problems = _read_records(ws, ws.verdicts_dir(task_id), GuardianVerdictSnapshot)
    believed, edited = check_verdicts(ws, task_id, files)
    return believed, problems + [str(problem) for problem in edited]


def edited_verdicts(ws: Workspace, task_id: str) -> list[VerdictProblem]:
    """The task's verdict files that differ from their recorded verdict (or have none)."""
    files, _unreadable = _read_records(ws, ws.verdicts_dir(task_id), GuardianVerdictSnapshot)
    return check_verdicts(ws, task_id, files)[1]
