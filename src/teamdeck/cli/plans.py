"""``teamdeck plan import | list | show | run | cancel``: coordinator plans (seed 002).

These share the ``plan`` command with ``plan approve|reject`` (Claude Code plan
answers, cli/teams.py); a plan's own approval goes through ``teamdeck gate approve
PLAN plan-approval``.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from teamdeck.cli.commands import summary
from teamdeck.cli.common import Output, command_group
from teamdeck.protocol.plans.importer import import_plan, read_plan_file
from teamdeck.protocol.plans.machine import Advance, advance, cancel_plan
from teamdeck.protocol.plans.overview import plan_overview
from teamdeck.protocol.plans.parser import PlanProblems
from teamdeck.protocol.task.planfile import list_plans
from teamdeck.store.workspace import Workspace
from teamdeck.text import one_line


def register_plan(
    subparsers: argparse._SubParsersAction[argparse.ArgumentParser], common: argparse.ArgumentParser
) -> None:
    actions = command_group(subparsers, "plan", common, help=summary("plan"))
    imported = actions.add_parser(
        "import", help="import a coordinator's @@@task blocks as a plan waiting for approval", parents=[common]
    )
    imported.add_argument("file", metavar="FILE")
    imported.add_argument("--team", help="the team whose members the tasks are delegated to")
    imported.add_argument("--id", dest="plan_id", help="the plan id (default: from the file name)")
    imported.add_argument("--title", help="the plan title (default: the file's first heading)")
    imported.set_defaults(handler=_import)

    listing = actions.add_parser("list", help="every plan and its state", parents=[common])
    listing.set_defaults(handler=_list)

    show = actions.add_parser("show", help="a plan's waves, each task's state and what blocks it", parents=[common])
    show.add_argument("plan_id", metavar="PLAN")
    show.set_defaults(handler=_show)

    run = actions.add_parser(
        "run", help="drive a plan as far as it can go now (start waves, verify them)", parents=[common]
    )
    run.add_argument("plan_id", metavar="PLAN")
    run.add_argument(
        "--to",
        action="append",
        default=[],
        metavar="MEMBER",
        help="delegate the wave's tasks to these members in turn (repeatable)",
    )
    run.add_argument("--no-verify", action="store_true", help="stop at WAVE_COMPLETE instead of verifying")
    run.add_argument("--no-start", action="store_true", help="do not start a READY plan")
    run.set_defaults(handler=_run)

    cancel = actions.add_parser("cancel", help="cancel a plan and its unfinished tasks", parents=[common])
    cancel.add_argument("plan_id", metavar="PLAN")
    cancel.add_argument("--reason", default="")
    cancel.set_defaults(handler=_cancel)


def _import(args: argparse.Namespace, ws: Workspace) -> Output:
    path = Path(args.file)
    text = read_plan_file(path)
    try:
        done = import_plan(ws, text, source=path.name, plan_id=args.plan_id, team=args.team, title=args.title)
    except PlanProblems as problems:
        lines = [
            f"{path.name}: line {line}: {text}" if line else f"{path.name}: {text}" for line, text in problems.problems
        ]
        return Output(
            data={"ok": False, "problems": [{"line": line, "message": text} for line, text in problems.problems]},
            text="\n".join([*lines, f"{len(lines)} problem(s); nothing was imported"]),
            exit_code=1,
        )
    plan = done.plan
    lines = [f"plan {plan.id}: {len(plan.tasks)} tasks in {plan.waves} waves, {plan.state}"]
    lines += [
        f"  wave {task.wave}: {task.id}  {one_line(task.title)}"
        + (f"  (after {', '.join(task.dependsOn)})" if task.dependsOn else "")
        for task in sorted(plan.tasks, key=lambda task: task.wave)
    ]
    lines.append(f"approve it: teamdeck gate approve {plan.coordinator} {done.gate_id}")
    return Output(
        data={"ok": True, "plan": plan.model_dump(mode="json"), "created": done.created, "gate": done.gate_id},
        text="\n".join(lines),
    )


def _list(args: argparse.Namespace, ws: Workspace) -> Output:
    plans, problems = list_plans(ws)
    lines = [
        f"{plan.id:<24} {plan.state:<13} wave {plan.currentWave}/{plan.waves}  {one_line(plan.title)}" for plan in plans
    ] or ["no plans"]
    return Output(
        data={"plans": [plan.model_dump(mode="json") for plan in plans], "problems": problems},
        text="\n".join(lines),
        warnings=problems,
    )


def _show(args: argparse.Namespace, ws: Workspace) -> Output:
    view = plan_overview(ws, args.plan_id)
    plan = view.plan
    lines = [
        f"plan {plan.id}: {one_line(plan.title)}",
        f"state {plan.state}, wave {plan.currentWave} of {plan.waves}; coordinator {plan.coordinator} is {view.coordinator_state}",
    ]
    for number, rows in enumerate(view.waves, start=1):
        lines.append(f"wave {number}:")
        for row in rows:
            extra = []
            if row.waiting_on:
                extra.append(f"waits for {', '.join(row.waiting_on)}")
            if row.gates:
                extra.append(f"gate(s) {', '.join(gate_id for gate_id, _kind in row.gates)}")
            if row.verdict:
                extra.append(f"last verdict {row.verdict}")
            if row.workers:
                extra.append(", ".join(one_line(worker) for worker in row.workers))
            lines.append(
                f"  {row.id:<40} {row.state:<15} {one_line(row.title, 60)}"
                + (f"  [{'; '.join(extra)}]" if extra else "")
            )
    lines.append(f"next: {view.next_step}")
    data = {
        "plan": plan.model_dump(mode="json"),
        "coordinatorState": view.coordinator_state,
        "nextStep": view.next_step,
        "approvalGate": view.approval.model_dump(mode="json") if view.approval else None,
        "waves": [
            [
                {
                    "id": row.id,
                    "title": row.title,
                    "state": row.state,
                    "dependsOn": list(row.depends_on),
                    "waitingOn": list(row.waiting_on),
                    "openGates": [gate_id for gate_id, _kind in row.gates],
                    "verdict": row.verdict,
                    "workers": list(row.workers),
                    "problem": row.problem,
                }
                for row in rows
            ]
            for rows in view.waves
        ],
    }
    return Output(data=data, text="\n".join(lines))


def _advanced(result: Advance) -> Output:
    plan = result.plan
    lines = [f"plan {plan.id}: {plan.state} (wave {plan.currentWave} of {plan.waves})"]
    lines += [f"  {move}" for move in result.moves]
    lines += [f"  * {one_line(action)}" for action in result.actions]
    lines += [f"  waiting for {one_line(reason)}" for reason in result.waiting]
    return Output(
        data={
            "ok": True,
            "plan": plan.model_dump(mode="json"),
            "moves": result.moves,
            "actions": result.actions,
            "waiting": result.waiting,
            "events": [event.model_dump(mode="json") for event in result.events],
        },
        text="\n".join(lines),
    )


def _run(args: argparse.Namespace, ws: Workspace) -> Output:
    return _advanced(advance(ws, args.plan_id, start=not args.no_start, members=args.to, verify=not args.no_verify))


def _cancel(args: argparse.Namespace, ws: Workspace) -> Output:
    return _advanced(cancel_plan(ws, args.plan_id, reason=args.reason))
