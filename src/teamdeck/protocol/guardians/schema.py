"""The ``schema`` guardian: the task's files are valid and tell one consistent story.

Checks, each a flag:

- every worker output (``agents/*/artifacts/final.json``) is valid (needs-changes: the
  worker must fix it); an agent directory that was not followed (bad name, symlink)
  is a fail;
- a worker that reported ``failed`` is a fail; a worker recorded in task.yaml that has
  not reported is needs-changes;
- every ``blocked`` worker has a gate (fail when none: its question was never put to a
  person), and no gate is still open (fail);
- the joined summary, when there is one, matches the outputs (info when stale: run
  ``teamdeck join``);
- at least one worker reported (fail otherwise: no evidence, no verification).
"""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError

from teamdeck.errors import InvalidFile
from teamdeck.model.guardian import Flag, GuardianResult
from teamdeck.model.report import JoinedSummary
from teamdeck.protocol.guardians.context import GuardianContext
from teamdeck.protocol.task.taskfile import load_task
from teamdeck.protocol.task.worker_outputs import WorkerResult, read_worker_outputs
from teamdeck.store.files import read_optional
from teamdeck.store.loaders import parse_json


class SchemaGuardian:
    """Validity and consistency of a task's files (see the module docstring)."""

    code = "schema"
    description = "task files, worker outputs and reports are valid and consistent"

    def verify(self, context: GuardianContext) -> GuardianResult:
        ws = context.open_workspace()
        flags: list[Flag] = []
        recommendations: list[str] = []
        try:
            task = load_task(ws, context.task_id)
        except InvalidFile as err:
            flag = Flag(code="invalid-task", severity="fail", message=str(err), path="task.yaml")
            return GuardianResult(flags=[flag], evidence={"task": "invalid"})
        results = read_worker_outputs(ws, context.task_id)
        reported = {result.agent_id: result for result in results}
        for result in results:
            flags.extend(_output_flags(result, task.gates))
        for worker in task.workers:
            if worker.id not in reported or reported[worker.id].status == "pending":
                flags.append(
                    Flag(
                        code="not-reported",
                        severity="needs-changes",
                        path=f"agents/{worker.id}",
                        message=f"worker {worker.id} has not written agents/{worker.id}/artifacts/final.json yet",
                    )
                )
                recommendations.append(f"{worker.id}: finish the task and write your final.json (teamdeck report)")
        for gate in task.open_gates:
            flags.append(
                Flag(
                    code="open-gate", severity="fail", message=f"gate {gate.id} still waits for a person: {gate.reason}"
                )
            )
        if not any(result.status in ("completed", "blocked", "failed") for result in results):
            flags.append(
                Flag(code="no-evidence", severity="fail", message="no worker has reported: there is nothing to verify")
            )
        flags.extend(_report_flags(ws, context.task_id, results))
        for result in results:
            if result.status == "invalid" and not result.ignored:
                recommendations.append(f"{result.agent_id}: fix {result.headline()}")
        evidence: dict[str, Any] = {
            "workers": {result.agent_id: result.status for result in results},
            "gates": {gate.id: gate.state for gate in task.gates},
        }
        return GuardianResult(flags=flags, evidence=evidence, recommendations=recommendations)


def _output_flags(result: WorkerResult, gates: list[Any]) -> list[Flag]:
    if result.ignored:
        return [Flag(code="ignored-agent", severity="fail", message=result.headline(), path=result.file)]
    if result.status == "invalid":
        return [Flag(code="invalid-output", severity="needs-changes", message=result.headline(), path=result.file)]
    if result.status == "failed":
        summary = result.output.summary if result.output else ""
        return [
            Flag(
                code="worker-failed",
                severity="fail",
                message=f"worker {result.agent_id} failed: {summary}"[:500],
                path=result.file,
            )
        ]
    if result.status == "blocked" and not any(gate.agentInstance == result.agent_id for gate in gates):
        return [
            Flag(
                code="blocked-without-gate",
                severity="fail",
                path=result.file,
                message=f"worker {result.agent_id} is blocked but no gate asks a person (run teamdeck join)",
            )
        ]
    return []


def _report_flags(ws: Any, task_id: str, results: list[WorkerResult]) -> list[Flag]:
    path = ws.reports_dir(task_id) / "joined-summary.json"
    shown = "shared/reports/joined-summary.json"
    try:
        data = read_optional(path, shown=shown)
        if data is None:
            return []
        summary = JoinedSummary.model_validate(parse_json(data, shown))
    except InvalidFile as err:
        return [Flag(code="invalid-report", severity="fail", message=str(err), path=shown)]
    except ValidationError as err:
        return [Flag(code="invalid-report", severity="fail", message=f"{shown}: {err.errors()[0]['msg']}", path=shown)]
    current = {result.agent_id: result.status for result in results}
    joined = {worker.agentId: worker.status for worker in summary.workers}
    if joined != current:
        return [
            Flag(
                code="stale-report",
                severity="info",
                path=shown,
                message="the joined summary does not match the current worker outputs; run teamdeck join",
            )
        ]
    return []
