"""``teamdeck plan import FILE``: a coordinator's ``@@@task`` blocks become a plan.

Everything is checked before anything is written (the blocks, the dependencies, the
waves, the team, that no id is taken), so a plan with problems imports nothing. Then:

1. ``plans/<plan-id>/`` with ``plan.created`` (state PLANNING);
2. one task per block (``planned``, with ``plan``, ``wave``, ``dependsOn`` and the
   block's sections as ``spec``);
3. the coordinator task ``tasks/<plan-id>/`` (``planned``; the team lead recorded as
   its coordinator) with a ``plan-approval`` gate: the coordinator waits for a person.

A crash part way leaves a plan that importing the same file again completes (the plan
remembers the file's digest); a different file under the same plan id is refused.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from teamdeck.clock import iso
from teamdeck.errors import InvalidFile, NotFound, Refused
from teamdeck.model.event import Event
from teamdeck.model.plan import Plan
from teamdeck.model.task import Task
from teamdeck.protocol.common.events import new_event
from teamdeck.protocol.plans.overview import autowork_on
from teamdeck.protocol.plans.parser import HEADINGS, TaskBlock, parse_blocks
from teamdeck.protocol.plans.waves import compute_waves, resolve_dependencies, slug, task_ids
from teamdeck.protocol.task.create import create_task
from teamdeck.protocol.task.human_notes import sync_human_notes
from teamdeck.protocol.task.planfile import change_plan, load_plan
from teamdeck.protocol.task.taskfile import transact
from teamdeck.protocol.team.teams import read_team
from teamdeck.store.loaders import read_capped
from teamdeck.store.paths import check_id
from teamdeck.store.workspace import Workspace

APPROVAL_GATE = "plan-approval"
MAX_PLAN_ID = 48
QUESTION_CHARS = 500


@dataclass(frozen=True)
class Imported:
    """What :func:`import_plan` did."""

    plan: Plan
    created: list[str]
    """Task ids created now (all of them, unless an interrupted import was resumed)."""
    gate_id: str


def import_plan(
    ws: Workspace,
    text: str,
    *,
    source: str,
    plan_id: str | None = None,
    team: str | None = None,
    title: str | None = None,
) -> Imported:
    """Import the ``@@@task`` blocks of ``text`` as a plan waiting for approval.

    Args:
        ws: the workspace.
        text: the plan file's content.
        source: its name (kept in the plan, used in messages).
        plan_id: the plan's id (default: the file name's stem as an id).
        team: the team whose members will be delegated the tasks.
        title: the plan's title (default: the first ``# heading`` outside the blocks,
            else the file name).

    Returns:
        The plan (PLANNING), the tasks created and the approval gate's id.

    Raises:
        PlanProblems: the blocks have problems (each with its line); nothing written.
        Refused: a cycle, a plan id or task id already taken; nothing written.
        NotFound: the team does not exist; nothing written.
    """
    blocks = parse_blocks(text, source)
    plan_id = check_id(plan_id or slug(Path(source).stem, MAX_PLAN_ID), "plan id")
    if len(plan_id) > MAX_PLAN_ID:
        raise Refused(
            f"Could not import {source}: the plan id '{plan_id}' is longer than {MAX_PLAN_ID} characters (its tasks' ids start with it)"
        )
    if team is not None:
        read_team(ws, team)
    ids = task_ids(plan_id, blocks)
    dependencies = dict(zip(ids, resolve_dependencies(plan_id, blocks, ids, source), strict=True))
    waves = compute_waves(
        dependencies, {task_id: block.title for task_id, block in zip(ids, blocks, strict=True)}, source
    )
    digest = "sha256:" + hashlib.sha256(text.encode()).hexdigest()
    existing = _existing_plan(ws, plan_id)
    if existing is not None and existing.sourceDigest != digest:
        raise Refused(
            f"Could not import {source}: plan '{plan_id}' already exists (imported from {existing.source}); "
            "choose another id with --id; nothing was imported"
        )
    if existing is None:
        taken = [task_id for task_id in [plan_id, *ids] if ws.task_dir(task_id).exists()]
        if taken:
            raise Refused(
                f"Could not import {source}: task(s) {', '.join(taken)} already exist; choose another plan id with --id; nothing was imported"
            )
    name = title or _heading(text) or Path(source).stem
    entries = [
        {
            "id": task_id,
            "title": block.title,
            "wave": waves[task_id],
            "dependsOn": dependencies[task_id],
            "line": block.line,
        }
        for task_id, block in zip(ids, blocks, strict=True)
    ]
    if existing is None:
        change_plan(
            ws,
            plan_id,
            lambda _none: [
                new_event(
                    ws,
                    "plan.created",
                    {
                        "plan": {
                            "id": plan_id,
                            "title": name,
                            "state": "PLANNING",
                            "team": team,
                            "coordinator": plan_id,
                            "source": source,
                            "sourceDigest": digest,
                            "tasks": entries,
                            "waves": max(waves.values()),
                            "currentWave": 0,
                        }
                    },
                )
            ],
            action=f"import plan {plan_id}",
            create=True,
        )
    created = [
        task_id
        for task_id, block in zip(ids, blocks, strict=True)
        if _create_plan_task(ws, plan_id, task_id, block, waves[task_id], dependencies[task_id], team)
    ]
    plan = load_plan(ws, plan_id)
    _create_coordinator(ws, plan)
    return Imported(plan, created, APPROVAL_GATE)


def _existing_plan(ws: Workspace, plan_id: str) -> Plan | None:
    try:
        return load_plan(ws, plan_id)
    except NotFound:
        return None


def _heading(text: str) -> str | None:
    for line in text.splitlines():
        if line.strip().startswith("@@@task"):
            return None
        if line.startswith("# ") and line[2:].strip():
            return line[2:].strip()
    return None


def _create_plan_task(
    ws: Workspace, plan_id: str, task_id: str, block: TaskBlock, wave: int, depends: list[str], team: str | None
) -> bool:
    if (ws.task_dir(task_id) / "task.yaml").exists():
        return False  # created by an earlier, interrupted import of the same file
    spec = {name: block.sections.get(name, "") for name in HEADINGS}
    create_task(
        ws,
        task_id,
        block.title,
        team=team,
        state="planned",
        extra={"plan": plan_id, "wave": wave, "dependsOn": depends, "spec": spec},
    )
    return True


def _create_coordinator(ws: Workspace, plan: Plan) -> None:
    """The coordinator task with its approval gate (nothing when it exists already)."""
    if (ws.task_dir(plan.coordinator) / "task.yaml").exists():
        return
    waves = [
        (f"Wave {wave}: " + "; ".join(f"{task.title} ({task.id})" for task in plan.wave_tasks(wave)))[:QUESTION_CHARS]
        for wave in range(1, plan.waves + 1)
    ]
    lead = read_team(ws, plan.team).lead_name if plan.team else None
    by_hand = f"teamdeck plan run {plan.id}"
    starts = (
        f", and teamdeck run or supervise starts it (by hand: {by_hand})" if autowork_on(ws) else f" to run ({by_hand})"
    )

    def decide(_none: Task | None) -> list[Event]:
        task: dict[str, Any] = {
            "id": plan.coordinator,
            "title": f"Plan: {plan.title}",
            "state": "planned",
            "gates": [],
            "team": plan.team,
            "creator": ws.actor,
            "workers": [],
            "plan": plan.id,
        }
        events = [new_event(ws, "task.created", {"task": task})]
        if lead is not None:
            worker = {
                "id": check_id(lead.lower(), "worker id"),
                "member": lead,
                "role": "coordinator",
                "assignedAt": iso(ws.clock()),
            }
            events.append(new_event(ws, "task.delegated", {"worker": worker}))
        events.append(
            new_event(
                ws,
                "gate.blocked",
                {
                    "gateId": APPROVAL_GATE,
                    "kind": "plan-approval",
                    "agentInstance": None,
                    "reason": f"plan '{plan.title}' ({len(plan.tasks)} tasks in {plan.waves} waves, from {plan.source}) waits for approval",
                    "questions": [
                        f"Approve this plan? approve: it is READY{starts}; reject: it is canceled.",
                        *waves,
                    ],
                },
            )
        )
        return events

    change = transact(
        ws, plan.coordinator, decide, action=f"create the coordinator task of plan {plan.id}", create=True
    )
    ws.agents_dir(plan.coordinator).mkdir(exist_ok=True)
    sync_human_notes(ws, change.task)


def read_plan_file(path: Path) -> str:
    """The text of a plan file a coordinator wrote (UTF-8, a BOM allowed, size capped).

    Raises:
        InvalidFile: no such file, too big, or not UTF-8 text.
    """
    try:
        return read_capped(path).decode("utf-8-sig")
    except FileNotFoundError:
        raise InvalidFile(path, "", "no such file") from None
    except UnicodeDecodeError as err:
        raise InvalidFile(path, f"byte {err.start}", "not UTF-8 text") from None
