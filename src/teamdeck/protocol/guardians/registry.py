"""Finding guardians by code: the built-ins and the ``teamdeck.guardians`` entry points.

The plug-in contract (docs/protocol.md): an entry point in the group
``teamdeck.guardians`` whose name is the guardian's code and whose object is a class
(instantiated with no arguments) or an instance with a ``verify(context)`` method.
``verify`` receives a :class:`GuardianContext` and returns a
:class:`~teamdeck.model.guardian.GuardianResult` (or a dict of the same shape). It
must not change the task: it reads, runs checks and reports. It runs in a child
process, so it may block, crash or hang: the supervisor turns all three into a FAIL.
"""

from __future__ import annotations

import importlib
from dataclasses import asdict, dataclass, field
from importlib.metadata import entry_points
from pathlib import Path
from typing import Any, Protocol

from teamdeck.errors import NotFound
from teamdeck.model.task import Task
from teamdeck.store.workspace import Workspace

ENTRY_POINT_GROUP = "teamdeck.guardians"

BUILTINS: dict[str, str] = {
    "schema": "teamdeck.protocol.guardians.schema:SchemaGuardian",
    "command": "teamdeck.protocol.guardians.command:CommandGuardian",
    "diff": "teamdeck.protocol.guardians.diff:DiffGuardian",
    "plan": "teamdeck.protocol.plans.guardian:PlanGuardian",
}
"""Built-in guardians: code → ``module:attribute``. A plug-in cannot replace them."""

_EXTRA: dict[str, Any] = {}


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


def _resolve(target: str) -> Any:
    module, _, attribute = target.partition(":")
    return getattr(importlib.import_module(module), attribute)


def _plugins() -> dict[str, Any]:
    return {point.name: point for point in entry_points(group=ENTRY_POINT_GROUP) if point.name not in BUILTINS}


def guardian_codes() -> list[str]:
    """Every guardian that can be assigned: built-ins first, then plug-ins by name."""
    return [*BUILTINS, *sorted(set(_plugins()) | set(_EXTRA))]


def check_code(code: str) -> str:
    """``code`` if a guardian of that code exists.

    Raises:
        NotFound: naming the guardians there are.
    """
    if code in BUILTINS or code in _EXTRA or code in _plugins():
        return code
    raise NotFound(f"No guardian '{code}'; guardians are: {', '.join(guardian_codes())}")


def load_guardian(code: str) -> Guardian:
    """The guardian with ``code``, ready to call.

    Raises:
        NotFound: no such guardian.
        Exception: whatever importing a plug-in raises (the runner reports it as a crash).
    """
    check_code(code)
    if code in BUILTINS:
        found = _resolve(BUILTINS[code])
    elif code in _EXTRA:
        found = _EXTRA[code]
    else:
        found = _plugins()[code].load()
    guardian: Guardian = found() if isinstance(found, type) else found  # a plug-in's, as its entry point gives it
    return guardian


def register_guardian(code: str, guardian: Any) -> None:
    """Make ``guardian`` (a class or an instance) assignable in this process.

    For tests and embedding; it runs only with ``isolation="thread"`` (a child process
    would not see it). Plug-ins for real use declare an entry point instead.
    """
    _EXTRA[code] = guardian
