"""``teamdeck team task TEAM ID --owner MEMBER | --status STATUS``: change a task of a
team's Claude Code task list (``tasks/<team>/<n>.json``) as Claude Code's TaskUpdate
does (protocol/team/task_list.py). Listing the tasks is ``teamdeck status``'s job."""

from __future__ import annotations

import argparse

from teamdeck.cli.common import Output
from teamdeck.model.team import ClaudeTask
from teamdeck.store.workspace import Workspace
from teamdeck.text import one_line


def register_team_task(
    actions: argparse._SubParsersAction[argparse.ArgumentParser], common: argparse.ArgumentParser
) -> None:
    """Add ``task`` to the ``team`` command's actions."""
    task = actions.add_parser(
        "task",
        help="reassign a task of the team's Claude Code task list, or set its status (TaskUpdate)",
        parents=[common],
    )
    task.add_argument("team", metavar="TEAM")
    task.add_argument("task_id", metavar="ID", help="the task's id (the number of tasks/TEAM/ID.json)")
    task.add_argument("--owner", metavar="MEMBER", help="the new owner (it is sent a task_assignment)")
    task.add_argument("--status", choices=ClaudeTask.SETTABLE_STATUSES)
    task.set_defaults(handler=_team_task)


def _team_task(args: argparse.Namespace, ws: Workspace) -> Output:
    from teamdeck.protocol.team.task_list import update_team_task  # imported by this command alone

    done = update_team_task(ws, args.team, args.task_id, owner=args.owner, status=args.status)
    after = done.after
    what = f"task {after.id} ({one_line(after.subject, 80)}) of team {done.team}"
    if not done.changed:
        head = f"{what} unchanged: it already is {after.status}, owner {one_line(after.owner or '-', 40)}"
    else:
        head = f"{what}: {after.status}, owner {one_line(after.owner or '-', 40)}"
    lines = [head] + ([f"sent {one_line(done.told, 40)} a task_assignment"] if done.told else [])
    data = {
        "ok": True,
        "team": done.team,
        "before": done.before.to_json(),
        "task": after.to_json(),
        "changed": done.changed,
        "told": done.told,
        "notices": done.notices,
    }
    return Output(data=data, text="\n".join(lines), warnings=done.notices)
