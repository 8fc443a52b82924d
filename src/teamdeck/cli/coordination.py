"""``teamdeck delegate`` and ``teamdeck report``: seed 002's delegate and report_to_parent."""

from __future__ import annotations

import argparse

from teamdeck.cli.commands import summary
from teamdeck.cli.common import Output
from teamdeck.protocol.coordination import delegation
from teamdeck.shapes.coordination import delegation_json, report_json
from teamdeck.store.workspace import Workspace
from teamdeck.text import one_line


def register_delegate(
    subparsers: argparse._SubParsersAction[argparse.ArgumentParser], common: argparse.ArgumentParser
) -> None:
    delegate = subparsers.add_parser("delegate", help=summary("delegate"), parents=[common])
    delegate.add_argument("task_id", metavar="TASK")
    delegate.add_argument("member", metavar="MEMBER")
    delegate.add_argument("--role", choices=delegation.ROLES, default="implementor")
    delegate.add_argument("--from", dest="sender", metavar="MEMBER", help="who delegates (default: the team lead)")
    delegate.add_argument("--note", default="", help="extra instructions for the member")
    delegate.set_defaults(handler=_delegate)


def register_report(
    subparsers: argparse._SubParsersAction[argparse.ArgumentParser], common: argparse.ArgumentParser
) -> None:
    report = subparsers.add_parser("report", help=summary("report"), parents=[common])
    report.add_argument("task_id", metavar="TASK")
    report.add_argument("agent_id", metavar="AGENT")
    report.add_argument("--status", required=True, choices=("completed", "blocked", "failed"))
    report.add_argument("--summary", required=True)
    report.add_argument("--question", action="append", default=[], help="a question for a person (repeatable)")
    report.add_argument("--next", action="append", default=[], help="a next action (repeatable)")
    report.add_argument(
        "--changed", action="append", default=[], metavar="FILE", help="a file you changed (repeatable)"
    )
    report.set_defaults(handler=_report)


def _delegate(args: argparse.Namespace, ws: Workspace) -> Output:
    done = delegation.delegate(ws, args.task_id, args.member, role=args.role, sender=args.sender, note=args.note)
    worker = done.worker
    text = (
        f"task {done.task.id} ({done.task.state}) delegated to {worker.member} as {worker.role} "
        f"(worker {worker.id}); task_assignment {'delivered' if done.confirmed else 'NOT YET CONFIRMED'} ({done.message_id})"
    )
    return Output(
        data={"ok": True, **delegation_json(done)},
        text=text,
        warnings=done.warnings,
    )


def _report(args: argparse.Namespace, ws: Workspace) -> Output:
    done = delegation.report(
        ws,
        args.task_id,
        args.agent_id,
        status=args.status,
        summary=args.summary,
        questions=args.question,
        next_actions=args.next,
        changed_files=args.changed,
    )
    text = f"{done.path}: {done.output.status}; task {done.task.id} is {done.task.state}"
    if done.notified:
        text += f"; told {', '.join(one_line(name) for name in done.notified)}"
    return Output(
        data={"ok": True, **report_json(done)},
        text=text,
        warnings=done.notices,
    )
