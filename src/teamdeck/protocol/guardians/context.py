"""What a guardian is and what it is told: :class:`Guardian` (what every guardian offers,
built-in or plug-in) and :class:`GuardianContext` (plain data, so it crosses into the
guardian's child process as JSON). Every guardian module imports this; the registry
(protocol/guardians/registry.py), which imports every built-in guardian, stays above them.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Protocol

from teamdeck.model.task import Task
from teamdeck.store.workspace import Workspace


@dataclass(frozen=True)
class GuardianContext:
    """What a guardian is told: plain data, so it crosses into the child process as JSON.

    Attributes:
        workspace: the workspace root.
        task_id: the task to verify.
        assignment_id: the assignment this run answers.
        task: task.yaml as a mapping (as it was when the guardian started).
        config: the task's guardian settings (``guardian`` in task.yaml, may be empty).
    """

    workspace: str
    task_id: str
    assignment_id: str
    task: dict[str, Any]
    config: dict[str, Any] = field(default_factory=dict)

    def open_workspace(self) -> Workspace:
        """The workspace, read-only: a guardian never writes to it."""
        return Workspace.at(Path(self.workspace), read_only=True, read_only_reason="guardians only read")

    def task_model(self) -> Task:
        """``task`` as the model."""
        return Task.model_validate(self.task)

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


class Guardian(Protocol):
    """What a guardian offers (built-in or plug-in)."""

    code: str
    description: str

    def verify(self, context: GuardianContext) -> Any:
        """Check the task; return a GuardianResult or a dict of its shape."""
