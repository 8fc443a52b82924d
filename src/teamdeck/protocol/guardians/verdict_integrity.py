"""Verdicts never change (seed 003): a verdict file edited by hand is found, not believed.

Every verdict is first recorded whole in the task's events.jsonl (the
``guardian.verdict_recorded`` event) and only then written to
``guardian/verdicts/<id>.json``, so the event is the record and the file a copy of it.
:func:`check_verdicts` compares each file with its event: a file that differs (FAIL
turned into PASS) or that no event records is a problem on the task, and the recorded
verdict is the one shown (``teamdeck verdicts``, the TUI, ``validate``, ``doctor``).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from pydantic import ValidationError

from teamdeck.model.guardian import GuardianVerdictSnapshot
from teamdeck.protocol.task.taskfile import read_events
from teamdeck.store.workspace import Workspace


@dataclass(frozen=True)
class VerdictProblem:
    """A verdict file that is not what was recorded.

    Attributes:
        path: the verdict file, relative to the workspace.
        message: what differs, one line.
    """

    path: str
    message: str

    def __str__(self) -> str:
        return f"{self.path}: {self.message}"


def recorded_verdicts(ws: Workspace, task_id: str) -> dict[str, GuardianVerdictSnapshot]:
    """Each verdict as its ``guardian.verdict_recorded`` event holds it, by id."""
    recorded: dict[str, GuardianVerdictSnapshot] = {}
    for event in read_events(ws, task_id):
        if event.type != "guardian.verdict_recorded":
            continue
        try:
            verdict = GuardianVerdictSnapshot.model_validate(event.payload.get("verdict"))
        except ValidationError:
            continue  # validate reports the event itself
        recorded.setdefault(verdict.id, verdict)
    return recorded


def check_verdicts(
    ws: Workspace, task_id: str, files: list[GuardianVerdictSnapshot]
) -> tuple[list[GuardianVerdictSnapshot], list[VerdictProblem]]:
    """The verdicts to believe, and one problem per file that is not its recorded verdict.

    Args:
        ws: the workspace.
        task_id: the task.
        files: the verdicts as read from ``guardian/verdicts/`` (each file's id is its name).

    Returns:
        ``files`` with every edited verdict replaced by its recorded one (a file no event
        records is kept, and reported), and the problems.
    """
    if not files:
        return files, []
    recorded = recorded_verdicts(ws, task_id)
    believed, problems = [], []
    for verdict in files:
        path = str(ws.rel(ws.verdict_file(task_id, verdict.id)))
        original = recorded.get(verdict.id)
        if original is None:
            problems.append(VerdictProblem(path, "no guardian.verdict_recorded event in events.jsonl records it"))
            believed.append(verdict)
            continue
        changed = list(_differences(original, verdict))
        if changed:
            problems.append(
                VerdictProblem(
                    path,
                    f"edited after it was recorded ({'; '.join(changed)}); verdicts never change: "
                    "the verdict recorded in events.jsonl stands",
                )
            )
        believed.append(original)
    return believed, problems


def _differences(original: GuardianVerdictSnapshot, found: GuardianVerdictSnapshot) -> Iterator[str]:
    """``status FAIL -> PASS`` for each top-level field that differs (values cut short)."""
    was, now = original.model_dump(mode="json"), found.model_dump(mode="json")
    for key in sorted(was.keys() | now.keys()):
        if was.get(key) != now.get(key):
            before, after = str(was.get(key))[:40], str(now.get(key))[:40]
            yield f"{key} {before} -> {after}" if key == "status" else f"{key} changed"
