"""``teamdeck verify``, ``verdicts``, ``assignments`` and ``guardian``: seed 003's loop."""

from __future__ import annotations

import argparse

from teamdeck.cli.commands import summary
from teamdeck.cli.common import Output
from teamdeck.protocol.guardians import verdict_history, verification
from teamdeck.protocol.guardians.registry import BUILTINS, guardian_codes
from teamdeck.store.workspace import Workspace
from teamdeck.text import one_line


def register_verify(
    subparsers: argparse._SubParsersAction[argparse.ArgumentParser], common: argparse.ArgumentParser
) -> None:
    verify = subparsers.add_parser("verify", help=summary("verify"), parents=[common])
    verify.add_argument("task_id", metavar="TASK")
    verify.add_argument(
        "--guardian",
        metavar="CODE",
        help=f"the guardian (built-in: {', '.join(BUILTINS)}; default: the task's, else schema)",
    )
    verify.add_argument("--reason", default="", help="why, recorded in the assignment")
    verify.add_argument(
        "--timeout", type=float, metavar="SECONDS", help="stop the guardian after this long (verdict FAIL)"
    )
    verify.add_argument("--complete", action="store_true", help="after a PASS, also mark the task done")
    verify.set_defaults(handler=_verify)


def register_verdicts(
    subparsers: argparse._SubParsersAction[argparse.ArgumentParser], common: argparse.ArgumentParser
) -> None:
    verdicts = subparsers.add_parser("verdicts", help=summary("verdicts"), parents=[common])
    verdicts.add_argument("task_id", metavar="TASK")
    verdicts.set_defaults(handler=_verdicts)


def register_assignments(
    subparsers: argparse._SubParsersAction[argparse.ArgumentParser], common: argparse.ArgumentParser
) -> None:
    assignments = subparsers.add_parser("assignments", help=summary("assignments"), parents=[common])
    assignments.add_argument("task_id", metavar="TASK")
    assignments.set_defaults(handler=_assignments)


def register_guardian(
    subparsers: argparse._SubParsersAction[argparse.ArgumentParser], common: argparse.ArgumentParser
) -> None:
    guardian = subparsers.add_parser("guardian", help=summary("guardian"), parents=[common])
    actions = guardian.add_subparsers(dest="guardian_command", metavar="ACTION", required=True)
    listing = actions.add_parser("list", help="the guardians that can be assigned", parents=[common])
    listing.set_defaults(handler=_guardians)
    configure = actions.add_parser("set", help="set a task's guardian and its command check", parents=[common])
    configure.add_argument("task_id", metavar="TASK")
    configure.add_argument("--code", help="the guardian teamdeck verify uses by default")
    configure.add_argument("--timeout", type=float, metavar="SECONDS", help="the guardian's time limit")
    configure.add_argument(
        "--command", metavar="CMD", help="the command the command guardian runs (split like a shell, no shell)"
    )
    configure.add_argument("--cwd", metavar="DIR", help="where it runs (relative: from the workspace root)")
    configure.add_argument("--command-timeout", type=float, metavar="SECONDS", help="the command's time limit")
    configure.add_argument(
        "--needs-changes-exit",
        type=int,
        metavar="CODE",
        help="the command's exit code that means NEEDS_CHANGES (its output goes to the workers) rather than FAIL",
    )
    configure.add_argument(
        "--on-review",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="verify the task by itself once every worker reported (teamdeck supervise, the runner)",
    )
    configure.add_argument(
        "--retries", type=int, metavar="N", help="retry a FAIL automatically N times before its gate waits for a person"
    )
    configure.set_defaults(handler=_configure)


def _verify(args: argparse.Namespace, ws: Workspace) -> Output:
    run = verification.verify(
        ws, args.task_id, guardian=args.guardian, reason=args.reason, timeout_s=args.timeout, complete=args.complete
    )
    verdict = run.verdict
    moves = [f"{event.payload['to']}" for event in run.events if event.type == "task.state_changed"]
    lines = [
        f"task {run.task.id}: {' -> '.join(moves) or run.task.state} "
        f"(guardian {verdict.guardian}, {'resumed ' if run.resumed else ''}assignment {run.assignment.id})",
        f"verdict {verdict.id}: {verdict.status} in {verdict.durationS:g} s",
        *(f"  [{flag.severity}] {one_line(flag.message)}" for flag in verdict.flags),
        *(f"  -> {one_line(text)}" for text in verdict.recommendations),
    ]
    if run.gate_id:
        lines.append(
            f"gate {run.gate_id} waits for a person: teamdeck gate approve {run.task.id} {run.gate_id} (retry) "
            f"or teamdeck gate reject {run.task.id} {run.gate_id} --note ... (give up)"
        )
    if run.notified:
        lines.append(f"recommendations sent to: {', '.join(run.notified)}")
    data = {
        "ok": True,
        "task": run.task.model_dump(mode="json"),
        "assignment": run.assignment.model_dump(mode="json"),
        "verdict": verdict.model_dump(mode="json"),
        "resumed": run.resumed,
        "gateId": run.gate_id,
        "notified": run.notified,
        "events": [event.model_dump(mode="json") for event in run.events],
    }
    return Output(data=data, text="\n".join(lines), warnings=list(run.notices))


def _verdicts(args: argparse.Namespace, ws: Workspace) -> Output:
    ws.task_file(args.task_id)  # checks the id
    records, problems = verdict_history.list_verdicts(ws, args.task_id)
    lines = [
        f"{record.createdAt}  {record.id}  {record.guardian:<8} {record.status:<13} "
        f"{len(record.flags)} flag(s)  {record.assignment}"
        for record in records
    ] or ["no verdicts"]
    return Output(
        data={
            "task": args.task_id,
            "verdicts": [record.model_dump(mode="json") for record in records],
            "problems": problems,
        },
        text="\n".join(lines),
        warnings=problems,
    )


def _assignments(args: argparse.Namespace, ws: Workspace) -> Output:
    ws.task_file(args.task_id)
    records, problems = verdict_history.list_assignments(ws, args.task_id)
    lines = [
        f"{record.createdAt}  {record.id}  {record.guardian:<8} timeout {record.timeoutS:g} s  by {one_line(record.createdBy)}: "
        f"{one_line(str(record.reason.get('why', '')))}"
        for record in records
    ] or ["no assignments"]
    return Output(
        data={
            "task": args.task_id,
            "assignments": [record.model_dump(mode="json") for record in records],
            "problems": problems,
        },
        text="\n".join(lines),
        warnings=problems,
    )


def _guardians(args: argparse.Namespace, ws: Workspace) -> Output:
    codes = guardian_codes()
    return Output(data={"guardians": codes}, text="\n".join(codes))


def _configure(args: argparse.Namespace, ws: Workspace) -> Output:
    change = verification.configure_guardian(
        ws,
        args.task_id,
        code=args.code,
        timeout_s=args.timeout,
        command=args.command,
        cwd=args.cwd,
        command_timeout_s=args.command_timeout,
        needs_changes_exit=args.needs_changes_exit,
        on_review=args.on_review,
        retries=args.retries,
    )
    config = change.task.guardian.model_dump(mode="json") if change.task.guardian else {}
    return Output(
        data={"ok": True, "task": args.task_id, "guardian": config, "changed": bool(change.events)},
        text=f"task {args.task_id}: guardian {config}" + ("" if change.events else " (unchanged)"),
    )
