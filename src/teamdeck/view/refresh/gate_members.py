"""Who waits on a task's open gates, per team: the roster marks those members as
waiting on a person, and a stall decision names why its member counts as stalled.

Worked out after any change of a task; each task's part is kept while the task is the
same object (views are immutable and replaced when their file changes), so a decision
at 10x, which changes one task of 1,000, does not walk every task's workers again.
"""

from __future__ import annotations

from teamdeck.view.refresh.read_state import ReadState
from teamdeck.view.snapshot.workspace import TaskView

Part = tuple[frozenset[str], frozenset[tuple[str, str]]]
"""Members (lower-cased) waiting on a task's open gates; (member, reason) of its stall decisions."""


def gate_members(state: ReadState) -> tuple[dict[str, frozenset[str]], dict[str, frozenset[tuple[str, str]]]]:
    """Per team, the members (lower-cased) whose worker waits on an open task gate; and
    (member lower-cased, the decision's reason) for each open stall decision
    (protocol/autowork/stalls.py), so the roster says why the member counts as stalled."""
    last = state.derived.get("gate members")
    before: dict[str, tuple[TaskView, Part]] = last[1] if last is not None else {}  # type: ignore[assignment]
    kept: dict[str, tuple[TaskView, Part]] = {}
    waiting: dict[str, set[str]] = {}
    stalled: dict[str, set[tuple[str, str]]] = {}
    for task_id, task in state.tasks.items():
        if task.team is None or not task.open_gates:
            continue
        found = before.get(task_id)
        part = found[1] if found is not None and found[0] is task else _part_of(task)
        kept[task_id] = (task, part)
        members, stalls = part
        if members:
            waiting.setdefault(task.team, set()).update(members)
        if stalls:
            stalled.setdefault(task.team, set()).update(stalls)
    state.derived["gate members"] = ((), kept)
    return (
        {team: frozenset(names) for team, names in waiting.items()},
        {team: frozenset(found) for team, found in stalled.items()},
    )


def _part_of(task: TaskView) -> Part:
    members = {worker.id: worker.member for worker in task.workers}
    waiting, stalled = set(), set()
    for gate in task.open_gates:
        member = members.get(gate.agent or "")
        if member:
            waiting.add(member.lower())
            if gate.subkind == "member-stalled":
                stalled.add((member.lower(), gate.reason))
    return frozenset(waiting), frozenset(stalled)
