"""``teamdeck task ...``: task commands."""

from __future__ import annotations

import argparse

from teamdeck.cli.commands import summary
from teamdeck.cli.common import Output, not_done
from teamdeck.protocol.task import lifecycle
from teamdeck.protocol.task.create import create_task
from teamdeck.protocol.task.taskfile import TaskChange
from teamdeck.store.workspace import Workspace


def register_task(
    subparsers: argparse._SubParsersAction[argparse.ArgumentParser], common: argparse.ArgumentParser
) -> None:
    task = subparsers.add_parser("task", help=summary("task"), parents=[common])
    actions = task.add_subparsers(dest="task_command", metavar="ACTION", required=True)
    create = actions.add_parser("create", help="create a new task", parents=[common])
    create.add_argument("task_id", metavar="TASK")
    create.add_argument("--title", required=True)
    create.add_argument("--team")
    create.set_defaults(handler=_create, creates_workspace=True)

    move = actions.add_parser(
        "transition", help="move a task to another state (the lifecycle table decides)", parents=[common]
    )
    move.add_argument("task_id", metavar="TASK")
    move.add_argument(
        "state",
        metavar="STATE",
        help=f"one of: {', '.join(lifecycle.STATES)} (seed names such as running/blocked accepted)",
    )
    move.add_argument("--reason", default="", help="why, recorded in the event")
    move.set_defaults(handler=_transition)

    cancel = actions.add_parser(
        "cancel", help="cancel a task that is not final (its open gates are closed)", parents=[common]
    )
    cancel.add_argument("task_id", metavar="TASK")
    cancel.add_argument("--reason", default="")
    cancel.set_defaults(handler=_cancel)

    retry = actions.add_parser(
        "retry", help="send a blocked task back to working (approves its verification-failed gates)", parents=[common]
    )
    retry.add_argument("task_id", metavar="TASK")
    retry.add_argument("--note", default="retry", help="recorded with the gate decision")
    retry.set_defaults(handler=_retry)


def _create(args: argparse.Namespace, ws: Workspace) -> Output:
    change = create_task(ws, args.task_id, args.title, team=args.team)
    task = change.task
    return Output(
        data={"ok": True, "task": task.model_dump(mode="json"), "events": [event.id for event in change.events]},
        text=f"created task {task.id} ({task.state}) in {ws.rel(ws.task_dir(task.id))}",
    )


def _changed(change: TaskChange, ws: Workspace) -> Output:
    task = change.task
    moves = [
        f"{event.payload['from']} -> {event.payload['to']}"
        for event in change.events
        if event.type == "task.state_changed"
    ]
    return Output(
        data={
            "ok": True,
            "task": task.model_dump(mode="json"),
            "events": [event.model_dump(mode="json") for event in change.events],
            "owed": list(change.owed),
        },
        text="\n".join(
            [
                f"task {task.id}: {', '.join(moves) or 'unchanged'} ({ws.rel(ws.task_file(task.id))})",
                *not_done(change.owed),
            ]
        ),
        exit_code=3 if change.owed else 0,  # recorded, an effect still owed (F24)
    )


def _transition(args: argparse.Namespace, ws: Workspace) -> Output:
    return _changed(lifecycle.transition(ws, args.task_id, args.state, reason=args.reason), ws)


def _cancel(args: argparse.Namespace, ws: Workspace) -> Output:
    return _changed(lifecycle.cancel(ws, args.task_id, reason=args.reason), ws)


def _retry(args: argparse.Namespace, ws: Workspace) -> Output:
    from teamdeck.protocol.effects.task_retry import retry

    return _changed(retry(ws, args.task_id, note=args.note), ws)
