"""The automatic step: :func:`supervise` (the runner's call after each change and each
rescan; ``teamdeck supervise``; tests with their clock).

Order matters once: stall decisions made moot are closed first (an open gate would fail
a verification), then FAILs with retries left go back to work and tasks under
``onReview`` are verified, plans advance, and last the stalls are nudged or asked about
(with the states the other steps left). Passes repeat while they take steps. Each part catches the errors of one document and goes on
with the next, so one broken file stops nothing else.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from teamdeck.errors import NotFound, TeamdeckError
from teamdeck.model.task import Task
from teamdeck.protocol.autowork.plans import advance_plans
from teamdeck.protocol.autowork.review import review_reported
from teamdeck.protocol.autowork.stalls import catch_stalls, close_moot_decisions, retire_followers
from teamdeck.protocol.autowork.steps import ACTOR, AutoStep
from teamdeck.protocol.guardians.process import Isolation
from teamdeck.protocol.task.taskfile import load_task, task_ids
from teamdeck.store.settings import load_settings
from teamdeck.store.workspace import Workspace

MAX_PASSES = 5
"""Passes per call: a pass's steps can make more due (a retried FAIL lets its plan
move); the call stops at the first pass that does nothing."""


@dataclass
class Supervision:
    """What one :func:`supervise` did.

    Attributes:
        steps: each automatic step taken, in order.
        problems: one line per document that could not be handled.
        enabled: false when ``autowork.enabled`` is off (nothing was done).
        next_in_s: seconds until the next nudge or stall decision falls due by the clock
            alone (None: none will): a supervisor need not look again before, unless a
            file changes.
    """

    steps: list[AutoStep] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)
    enabled: bool = True
    next_in_s: float | None = None


def supervise(ws: Workspace, *, isolation: Isolation = "process") -> Supervision:
    """Take every automatic step due now (see the module and docs/protocol.md, "Work
    that moves by itself"). Idempotent: a second call right after does nothing.

    Args:
        ws: the workspace; its clock is "now", its actor is replaced by :data:`ACTOR`.
        isolation: how guardians run (``process``; tests may use ``thread``).
    """
    result = Supervision()
    try:
        settings = load_settings(ws.root).autowork
    except TeamdeckError as err:
        result.problems.append(str(err))
        return result
    if not settings.enabled:
        result.enabled = False
        return result
    ws = ws._replace(actor=ACTOR)
    for _ in range(MAX_PASSES):
        taken = len(result.steps)
        tasks = _tasks(ws, result.problems)  # read once for the parts that look at every task
        close_moot_decisions(ws, settings, tasks, result.steps, result.problems)
        retire_followers(ws, tasks, result.steps, result.problems)
        review_reported(ws, tasks, isolation, result.steps, result.problems)
        advance_plans(ws, isolation, result.steps, result.problems)
        result.next_in_s = catch_stalls(ws, settings, result.steps, result.problems)  # reads them again: plans moved
        if len(result.steps) == taken:
            break
    result.problems = list(dict.fromkeys(result.problems))  # each pass meets the same broken files
    return result


def _tasks(ws: Workspace, problems: list[str]) -> list[Task]:
    """Every task that can be read; one line per one that cannot."""
    tasks = []
    for task_id in task_ids(ws):
        try:
            tasks.append(load_task(ws, task_id))
        except NotFound:
            continue  # made by another writer this instant (its log is there, still empty) or removed
        except TeamdeckError as err:
            problems.append(str(err))
    return tasks
