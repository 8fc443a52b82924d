"""The ``diff`` guardian: two workers of a task changed the same file.

Reads the ``changedFiles`` each worker declared in its final.json; a file declared by
two or more workers is a ``conflict`` flag (needs-changes: the workers reconcile their
changes). Paths are compared normalised (``./a/../b.py`` is ``b.py``).
"""

from __future__ import annotations

import posixpath

from teamdeck.model.guardian import Flag, GuardianResult
from teamdeck.protocol.guardians.context import GuardianContext
from teamdeck.protocol.task.worker_outputs import read_worker_outputs


def normalise_path(path: str) -> str:
    """A declared path in one canonical form (posix separators, no ``.``/``..`` steps)."""
    return posixpath.normpath(path.replace("\\", "/")).lstrip("/") if path.strip() else path


class DiffGuardian:
    """Conflicting changes between the workers of one task."""

    code = "diff"
    description = "flags files that two workers of the task both changed"

    def verify(self, context: GuardianContext) -> GuardianResult:
        ws = context.open_workspace()
        declared: dict[str, list[str]] = {}
        owners: dict[str, list[str]] = {}
        for result in read_worker_outputs(ws, context.task_id):
            if result.output is None:
                continue
            files = sorted({normalise_path(path) for path in result.output.changedFiles})
            declared[result.agent_id] = files
            for path in files:
                owners.setdefault(path, []).append(result.agent_id)
        conflicts = {path: workers for path, workers in sorted(owners.items()) if len(workers) > 1}
        flags = [
            Flag(
                code="conflict",
                severity="needs-changes",
                path=path,
                message=f"{path} was changed by {', '.join(workers)}",
            )
            for path, workers in conflicts.items()
        ]
        recommendations = [
            f"{', '.join(workers)}: reconcile your changes to {path} (one of you owns the file)"
            for path, workers in conflicts.items()
        ]
        return GuardianResult(
            flags=flags, evidence={"changedFiles": declared, "conflicts": conflicts}, recommendations=recommendations
        )
