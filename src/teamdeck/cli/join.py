"""``teamdeck join``, ``teamdeck gate list|approve|reject`` and ``teamdeck validate``.

Text output never carries raw agent text: reasons and names are sanitised to one line
(problem messages already are); ``--json`` carries the data as written.
"""

from __future__ import annotations

import argparse

from teamdeck.cli.commands import summary
from teamdeck.cli.common import Output, command_group, not_done
from teamdeck.protocol.checks.hygiene import STALE_TEMP_S, sweep_temp_files
from teamdeck.protocol.checks.validate import validate_workspace
from teamdeck.protocol.effects.gate_decisions import decide_gate
from teamdeck.protocol.task.gates import GateEntry, list_gates
from teamdeck.protocol.task.join import join_task
from teamdeck.store.workspace import Workspace
from teamdeck.text import one_line


def register_join(
    subparsers: argparse._SubParsersAction[argparse.ArgumentParser], common: argparse.ArgumentParser
) -> None:
    join = subparsers.add_parser("join", parents=[common], help=summary("join"))
    join.add_argument("task_id", metavar="TASK")
    join.set_defaults(handler=_join)


def register_gate(
    subparsers: argparse._SubParsersAction[argparse.ArgumentParser], common: argparse.ArgumentParser
) -> None:
    actions = command_group(subparsers, "gate", common, help=summary("gate"))
    listing = actions.add_parser("list", parents=[common], help="list the gates of one task or of every task")
    listing.add_argument("task_id", metavar="TASK", nargs="?")
    listing.set_defaults(handler=_list)
    approve = actions.add_parser("approve", parents=[common], help="approve a blocked gate")
    approve.add_argument("task_id", metavar="TASK")
    approve.add_argument("gate_id", metavar="GATE")
    approve.add_argument("--note", help="a note for the worker (recorded in human-notes.md)")
    approve.set_defaults(handler=_decide, decision="approve")
    reject = actions.add_parser("reject", parents=[common], help="reject a blocked gate (a note is required)")
    reject.add_argument("task_id", metavar="TASK")
    reject.add_argument("gate_id", metavar="GATE")
    reject.add_argument("--note", required=True, help="why, for the worker (recorded in human-notes.md)")
    reject.set_defaults(handler=_decide, decision="reject")


def register_validate(
    subparsers: argparse._SubParsersAction[argparse.ArgumentParser], common: argparse.ArgumentParser
) -> None:
    validate = subparsers.add_parser("validate", parents=[common], help=summary("validate"))
    validate.add_argument(
        "--clean",
        action="store_true",
        help=f"first remove the temp files a crash left (older than {STALE_TEMP_S:.0f} s), saying which",
    )
    validate.set_defaults(handler=_validate, settings_may_be_broken=True)


def _join(args: argparse.Namespace, ws: Workspace) -> Output:
    result = join_task(ws, args.task_id)
    totals = result.summary.totals
    counts = ", ".join(
        f"{getattr(totals, status)} {status}" for status in ("completed", "blocked", "failed", "invalid", "pending")
    )
    lines = [f"joined task {result.task_id}: {counts} ({totals.total} workers)"]
    lines += [f"  opened gate {gate_id}" for gate_id in result.gates_opened]
    lines += [f"  updated gate {gate_id}" for gate_id in result.gates_updated]
    state_changes = [event.payload.get("to") for event in result.events if event.type == "task.state_changed"]
    if state_changes:
        lines.append(f"  task {result.task_id} is now {state_changes[-1]}")
    lines += [f"  invalid: {worker.headline()}" for worker in result.results if not worker.valid]
    lines += [f"  wrote {path}" for path in result.written] or ["  nothing changed"]
    data = {
        "ok": True,
        "task": result.task_id,
        "changed": result.changed,
        "totals": totals.model_dump(),
        "workers": [worker.model_dump(mode="json") for worker in result.summary.workers],
        "gatesOpened": result.gates_opened,
        "gatesUpdated": result.gates_updated,
        "events": [event.id for event in result.events],
        "written": result.written,
        "notices": result.notices,
    }
    return Output(data=data, text="\n".join(lines))  # notices were logged as warnings


def _gate_row(entry: GateEntry) -> dict[str, object]:
    return {"task": entry.task_id, "taskState": entry.task_state, **entry.gate.model_dump(mode="json")}


def _list(args: argparse.Namespace, ws: Workspace) -> Output:
    listing = list_gates(ws, args.task_id)
    lines = []
    for entry in listing.gates:
        gate = entry.gate
        worker = one_line(gate.agentInstance or "-", 40)
        decided = f" by {one_line(gate.decidedBy or '?', 40)}" if gate.state != "blocked" else ""
        lines.append(
            f"{entry.task_id}  {gate.id}  {gate.state}{decided}  worker {worker}  "
            f"{len(gate.questions)} question(s)  {one_line(gate.reason, 100)}"
        )
    if not lines:
        lines = ["no gates" + (f" in task {args.task_id}" if args.task_id else "")]
    data = {"ok": True, "gates": [_gate_row(entry) for entry in listing.gates], "problems": listing.problems}
    return Output(data=data, text="\n".join(lines), warnings=listing.problems)


def _decide(args: argparse.Namespace, ws: Workspace) -> Output:
    change = decide_gate(ws, args.task_id, args.gate_id, args.decision, note=args.note)
    gate = change.task.gate(args.gate_id)
    assert gate is not None
    from teamdeck.adapters.forge_outbox import deliver_if_configured  # the HTTP client only when deciding

    delivered = deliver_if_configured(ws)  # what the decision queued for Gitea (a round review's outcome)
    text = "\n".join(
        [
            f"{gate.state} gate {gate.id} of task {change.task.id}; the task is {change.task.state}",
            *change.said,
            *delivered,
            *not_done(change.owed),
        ]
    )
    data = {
        "ok": True,
        "task": change.task.id,
        "taskState": change.task.state,
        "gate": gate.model_dump(mode="json"),
        "events": [event.id for event in change.events],
        "notices": list(change.notices),
        "owed": list(change.owed),
        "forge": delivered,
    }
    # The other notices were logged as warnings; exit 3 while an effect is owed (F24).
    return Output(data=data, text=text, exit_code=3 if change.owed else 0)


def _validate(args: argparse.Namespace, ws: Workspace) -> Output:
    removed: list[str] = []
    if args.clean:
        ws.require_writable("remove the temp files left by a crash")
        removed = sweep_temp_files(ws)
    problems = validate_workspace(ws)
    data = {"ok": not problems, "problems": [problem.as_dict() for problem in problems], "removed": removed}
    if not problems:  # each removal was logged as it happened
        return Output(data=data, text=f"{ws.root}: no problems found")
    text = "\n".join(str(problem) for problem in problems) + f"\n{len(problems)} problem(s) found"
    return Output(data=data, text=text, exit_code=1)
