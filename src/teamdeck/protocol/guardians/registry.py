"""Finding guardians by code: the built-ins, listed here, and the ``teamdeck.guardians``
entry points.

The built-ins are imported by this module (:data:`BUILTINS`), so the registry sits above
every guardian it lists and a guardian module never imports it. The plug-in contract
(docs/protocol.md): an entry point in the group ``teamdeck.guardians`` whose name is the
guardian's code and whose object is a class (instantiated with no arguments) or an
instance with a ``verify(context)`` method. ``verify`` receives a
:class:`~teamdeck.protocol.guardians.context.GuardianContext` and returns a
:class:`~teamdeck.model.guardian.GuardianResult` (or a dict of the same shape). It must
not change the task: it reads, runs checks and reports. It runs in a child process, so it
may block, crash or hang: the supervisor turns all three into a FAIL. Entry points are
read only for a code that is no built-in, and loaded only when that guardian runs.
"""

from __future__ import annotations

from importlib.metadata import entry_points
from typing import Any

from teamdeck.errors import NotFound
from teamdeck.protocol.guardians.command import CommandGuardian
from teamdeck.protocol.guardians.context import Guardian
from teamdeck.protocol.guardians.diff import DiffGuardian
from teamdeck.protocol.guardians.plan import PlanGuardian
from teamdeck.protocol.guardians.schema import SchemaGuardian

ENTRY_POINT_GROUP = "teamdeck.guardians"

BUILTINS: dict[str, type[Guardian]] = {
    "schema": SchemaGuardian,
    "command": CommandGuardian,
    "diff": DiffGuardian,
    "plan": PlanGuardian,
}
"""Built-in guardians: code → class. A plug-in cannot replace them."""

_EXTRA: dict[str, Any] = {}


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
        Exception: whatever importing a plug-in raises (protocol/guardians/process.py reports it as a crash).
    """
    check_code(code)
    if code in BUILTINS:
        found: Any = BUILTINS[code]
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
