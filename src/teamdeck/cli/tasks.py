"""``teamdeck task ...``: task commands."""

from __future__ import annotations

import argparse

from teamdeck.cli.common import Output
from teamdeck.protocol.tasks import create_task
from teamdeck.store.workspace import Workspace


def register(subparsers: argparse._SubParsersAction, common: argparse.ArgumentParser) -> None:
    task = subparsers.add_parser("task", help="create and change tasks", parents=[common])
    actions = task.add_subparsers(dest="task_command", metavar="ACTION", required=True)
    create = actions.add_parser("create", help="create a new task", parents=[common])
    create.add_argument("task_id", metavar="TASK")
    create.add_argument("--title", required=True)
    create.add_argument("--team")
    create.set_defaults(handler=_create)


def _create(args: argparse.Namespace, ws: Workspace) -> Output:
    change = create_task(ws, args.task_id, args.title, team=args.team)
    task = change.task
    return Output(
        data={"ok": True, "task": task.model_dump(mode="json"), "events": [event.id for event in change.events]},
        text=f"created task {task.id} ({task.state}) in {ws.rel(ws.task_dir(task.id))}",
    )
