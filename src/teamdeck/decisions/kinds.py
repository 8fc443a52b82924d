"""The kinds of decision the workspace's own files ask (task gates, team requests, the
forge outbox), one :class:`~teamdeck.decisions.spec.DecisionSpec` each, listed in
:data:`SPECS` (decisions/registry.py registers them with the runner's and the live
sessions' kinds).

To add a kind: the view builds its rows (a ``Decision`` with a new ``kind``), a
protocol function answers it, and a spec here names, shows, alerts and runs it; add the
spec to :data:`SPECS`. Nothing else changes: see docs/protocol.md, "Adding a decision kind".

Each answer imports its protocol module when it runs (an action runs on a worker: the
TUI's first frame does not wait for modules only an answer needs).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING, Any, Literal

from teamdeck.decisions.spec import (
    Answer,
    Answered,
    DecisionSpec,
    Part,
    Run,
    Variant,
    detail,
    member_question,
    ours,
    question_about,
    team_json,
)
from teamdeck.store.workspace import Workspace
from teamdeck.view.snapshot.workspace import Decision

if TYPE_CHECKING:
    from teamdeck.model.task import GateAnswer

FAIL_GATE = "verification-failed"


# --- task gates (task.yaml) ---------------------------------------------------------


def _decide_gate(answer: GateAnswer, *, done: str) -> Run:
    def run(ws: Workspace, decision: Decision, note: str | None) -> Answered:
        from teamdeck.protocol.effects.gate_decisions import decide_gate

        task_id, gate_id = decision.task_id or "", decision.gate_id or ""
        change = decide_gate(ws, task_id, gate_id, answer, note)
        gate = change.task.gate(gate_id)
        summary = "; ".join([f"gate {gate_id} of task {task_id} {done}", *change.notices])
        return Answered(
            summary=summary,
            data={
                "task": task_id,
                "taskState": change.task.state,
                "gate": gate.model_dump(mode="json") if gate else None,
                "events": [event.id for event in change.events],
                "notices": list(change.notices),
                "owed": list(change.owed),
            },
            owed=change.owed,
        )

    return run


GATE_APPROVE = Answer(
    id="gate-approve",
    action="approve",
    positive=True,
    label="Approve",
    command="Approve the selected decision",
    help="approve (optional note)",
    note="optional",
    note_label="Note",
    question=question_about("Approve"),
    run=_decide_gate("approve", done="approved"),
)
GATE_REJECT = Answer(
    id="gate-reject",
    action="reject",
    positive=False,
    label="Reject",
    command="Reject the selected decision",
    help="reject (note required)",
    note="required",
    note_label="Note",
    question=question_about("Reject"),
    run=_decide_gate("reject", done="rejected"),
)
GATE_RETRY = Answer(
    id="gate-retry",
    action="retry",
    positive=True,
    label="Retry",
    command="Retry the selected FAIL gate",
    help="FAIL gate: retry (task works again)",
    note="optional",
    note_label="Note",
    question=question_about("Retry"),
    run=_decide_gate("approve", done="approved (retry)"),
    outcome="Retry: the task goes back to working and its guardian can run again.",
)
GATE_GIVE_UP = Answer(
    id="gate-give-up",
    action="give_up",
    positive=False,
    label="Give up",
    command="Give up the selected FAIL gate",
    help="FAIL gate: give up (fails)",
    note="required",
    note_label="Note",
    question=question_about("Give up"),
    run=_decide_gate("reject", done="rejected (given up)"),
    outcome="Give up: the task fails (final) and its other open gates are closed.",
)

STALL_REASSIGN = Answer(
    id="gate-reassign",
    action="reassign",
    positive=True,
    label="Nudge / reassign",
    command="Nudge the stalled member again, or reassign its task",
    help="stalled member: nudge, or reassign (note: a member)",
    note="optional",
    note_label="Member (empty: nudge again)",
    question=question_about("Nudge again or reassign"),
    run=_decide_gate("approve", done="approved"),
    outcome="No name: the member is nudged again and its wait starts over. A member's name: the work (a task, a Gitea issue) is theirs.",
)

STALL_GIVE_UP = replace(
    GATE_GIVE_UP,
    outcome="Give up: a task fails (final) and its other open gates are closed; a Gitea issue is left as it is and "
    "nobody waits for the member on it any more.",
)


def _task_gate_json(decision: Decision) -> dict[str, Any]:
    return {
        "task": decision.task_id,
        "gate": decision.gate_id,
        "gateKind": decision.subkind,
        "humanNotes": decision.notes_path,
        "decidedBy": decision.decided_by,
        "decidedAt": decision.decided_at,
        "note": decision.note,
    }


def _task_gate_detail(decision: Decision, short: bool) -> tuple[Part, ...]:
    variant = TASK_GATE.variants.get(decision.subkind)
    heading = (ours("gate ", "bold"), Part(decision.gate_id or "", "bold", limit=64))
    return detail(decision, short, heading, note=variant.note if variant else "")


TASK_GATE = DecisionSpec(
    kind="task-gate",
    label="gate",
    heading="gate",
    answers=(GATE_APPROVE, GATE_REJECT),
    what=lambda decision: f"gate {decision.gate_id}",
    alert_reason="is blocked",
    detail=_task_gate_detail,
    json=_task_gate_json,
    variants={
        FAIL_GATE: Variant(
            label="FAIL",
            note="verification FAILED: retry (a) or give up (r)",
            answers=(GATE_RETRY, GATE_GIVE_UP),
            alert_reason="failed verification",
        ),
        "round-review": Variant(label="round"),
        "plan-approval": Variant(label="gate", note="coordinator plan: approve to make it READY"),
        "member-stalled": Variant(
            label="stall",
            note="a member left its work untouched: nudge again / reassign (a) or give up (r)",
            answers=(STALL_REASSIGN, STALL_GIVE_UP),
        ),
    },
)
"""A ``blocked`` gate of a task.yaml: a blocked worker's question, a guardian's FAIL
(retry or give up), a coordinator plan's or a round review's approval."""


# --- team requests (inboxes, the handshake ledger) ------------------------------------


def _answer_plan(*, approve: bool) -> Run:
    def run(ws: Workspace, decision: Decision, note: str | None) -> Answered:
        from teamdeck.protocol.team.messaging.handshake_writes import answer_plan

        member = decision.member or ""
        sent = answer_plan(
            ws, decision.team or "", member, approve=approve, feedback=note, request_id=decision.request_id
        )
        summary = f"plan of {member} {'approved' if approve else 'rejected'} ({sent.request_id})"
        return Answered(
            summary=summary, data={"team": sent.team, "member": member, "requestId": sent.request_id, "sent": sent.id}
        )

    return run


PLAN_APPROVAL = DecisionSpec(
    kind="plan-approval",
    label="plan",
    heading="plan approval",
    answers=(
        Answer(
            id="gate-approve",
            action="approve",
            positive=True,
            label="Approve",
            command="Approve the selected decision",
            help="approve (optional note)",
            note="optional",
            note_label="Feedback",
            question=question_about("Approve"),
            run=_answer_plan(approve=True),
        ),
        Answer(
            id="gate-reject",
            action="reject",
            positive=False,
            label="Reject",
            command="Reject the selected decision",
            help="reject (note required)",
            note="required",
            note_label="Feedback",
            question=question_about("Reject"),
            run=_answer_plan(approve=False),
        ),
    ),
    what=lambda decision: f"plan {decision.request_id}",
    alert_reason="asks to approve a plan",
    detail=lambda decision, short: detail(decision, short, (ours("plan approval", "bold"),)),
    json=team_json,
)
"""A teammate's ``plan_approval_request`` with no ``plan_approval_response`` yet."""


def _answer_permission(*, approve: bool) -> Run:
    def run(ws: Workspace, decision: Decision, note: str | None) -> Answered:
        from teamdeck.protocol.team.permissions import answer_permission
        from teamdeck.protocol.team.sessions import answer_same_request

        member, request_id = decision.member or "", decision.request_id or ""
        sent = answer_permission(ws, decision.team or "", member, request_id, approve=approve, note=note)
        behavior: Literal["allow", "deny"] = "allow" if approve else "deny"
        routes = answer_same_request(ws, sent.team, member, decision.tool, decision.body, behavior, note)
        summary = f"permission {'allowed' if approve else 'denied'}: {member} ({request_id})"
        summary += f", and in its live session ({', '.join(p.id for p in routes)})" if routes else ""
        data = {"team": sent.team, "member": member, "requestId": request_id, "sent": sent.id}
        return Answered(summary=summary, data={**data, "sessionPrompts": [p.key for p in routes]})

    return run


def _permission_detail(decision: Decision, short: bool) -> tuple[Part, ...]:
    heading = (ours("permission request", "bold"), ours("  tool ", "warning"), Part(decision.tool, "warning", limit=64))
    return detail(decision, short, heading, body_label="input:\n", request=True)


PERMISSION = DecisionSpec(
    kind="permission",
    label="permit",
    heading="permission request",
    answers=(
        Answer(
            id="permission-allow",
            action="allow",
            positive=True,
            label="Allow",
            command="Allow the selected permission request",
            help="permission request: allow (the tool runs with its input)",
            note="optional",
            note_label="Note",
            question=lambda d: (
                *member_question("Allow ", d, " to use "),
                Part(d.tool, "warning", limit=64),
                ours("?", "bold"),
            ),
            run=_answer_permission(approve=True),
            outcome="The tool runs with this input, unchanged (permission_response success); a note is only logged.",
        ),
        Answer(
            id="permission-deny",
            action="deny",
            positive=False,
            label="Deny",
            command="Deny the selected permission request",
            help="permission request: deny (the reason is sent)",
            note="optional",
            note_label="Reason",
            question=lambda d: (
                *member_question("Deny ", d, " the use of "),
                Part(d.tool, "warning", limit=64),
                ours("?", "bold"),
            ),
            run=_answer_permission(approve=False),
            outcome="The teammate gets the reason as the error (default: Permission denied).",
        ),
    ),
    what=lambda decision: f"permission {decision.request_id}",
    alert_reason="asks for permission",
    detail=_permission_detail,
    json=lambda decision: {**team_json(decision), "tool": decision.tool, "input": decision.body},
)
"""A teammate's ``permission_request``, open in the ledger (not answered, not superseded)."""


def _answer_sandbox(*, allow: bool) -> Run:
    def run(ws: Workspace, decision: Decision, note: str | None) -> Answered:
        from teamdeck.protocol.team.sandbox_permissions import answer_sandbox_permission
        from teamdeck.protocol.team.sessions import answer_same_request

        member, request_id = decision.member or "", decision.request_id or ""
        sent = answer_sandbox_permission(ws, decision.team or "", member, request_id, allow=allow, note=note)
        behavior: Literal["allow", "deny"] = "allow" if allow else "deny"
        routes = answer_same_request(ws, sent.team, member, decision.tool, decision.body, behavior, note)
        summary = f"sandbox host {decision.reason} {'allowed' if allow else 'denied'}: {member} ({request_id})"
        summary += f", and in its live session ({', '.join(p.id for p in routes)})" if routes else ""
        data = {"team": sent.team, "member": member, "requestId": request_id, "sent": sent.id}
        return Answered(summary=summary, data={**data, "sessionPrompts": [p.key for p in routes]})

    return run


def _sandbox_question(verb: str) -> Callable[[Decision], tuple[Part, ...]]:
    return lambda d: (
        *member_question(f"{verb} ", d, "'s sandbox to reach "),
        Part(d.reason, "warning", limit=120),
        ours("?", "bold"),
    )


SANDBOX_PERMISSION = DecisionSpec(
    kind="sandbox-permission",
    label="host",
    heading="sandbox host request",
    answers=(
        Answer(
            id="sandbox-allow",
            action="allow",
            positive=True,
            label="Allow",
            command="Allow the selected sandbox host request",
            help="sandbox host request: allow (the sandbox may reach the host)",
            note="optional",
            note_label="Note",
            question=_sandbox_question("Allow"),
            run=_answer_sandbox(allow=True),
            outcome="sandbox_permission_response allow: true for this host; Claude Code 2.1.332 takes it as a "
            "denial unless the lead's own process wrote it (answer in the lead's terminal too). A note is only logged.",
        ),
        Answer(
            id="sandbox-deny",
            action="deny",
            positive=False,
            label="Deny",
            command="Deny the selected sandbox host request",
            help="sandbox host request: deny",
            note="optional",
            note_label="Reason",
            question=_sandbox_question("Deny"),
            run=_answer_sandbox(allow=False),
            outcome="sandbox_permission_response allow: false; the reason is only logged (the frame has no field).",
        ),
    ),
    what=lambda decision: f"sandbox {decision.request_id}",
    alert_reason="asks for its sandbox to reach a host",
    detail=lambda decision, short: detail(
        replace(decision, reason=""),  # the host is in the heading
        short,
        (ours("sandbox host request", "bold"), ours("  host ", "warning"), Part(decision.reason, "warning", limit=120)),
        body_label="input:\n",
        request=True,
    ),
    json=lambda decision: {**team_json(decision), "host": decision.reason},
)
"""A teammate's ``sandbox_permission_request`` (its sandbox wants a network host), open
in the ledger; ``reason`` holds the host."""


def _resend(ws: Workspace, decision: Decision, note: str | None) -> Answered:
    from teamdeck.protocol.team.shutdown_resend import resend_shutdown

    member = decision.member or ""
    resent = resend_shutdown(ws, decision.team or "", member, reason=note)
    summary = (
        f"shutdown request resent to {member} ({resent.sent.request_id}); superseded {', '.join(resent.superseded)}"
    )
    data = {"team": decision.team, "member": member, "requestId": resent.sent.request_id}
    return Answered(summary=summary, data={**data, "superseded": list(resent.superseded)})


def forced_offline_reason(decision: Decision) -> str:
    """The reason a forced deactivation records when the person gives none."""
    return f"no shutdown_response to {decision.request_id} since {decision.created_at}; forced offline"


def _force_offline(ws: Workspace, decision: Decision, note: str | None) -> Answered:
    from teamdeck.protocol.team.messaging.handshake_writes import deactivate_member

    name = deactivate_member(
        ws, decision.team or "", decision.member or "", force=True, reason=note or forced_offline_reason(decision)
    )
    return Answered(summary=f"{name} forced offline", data={"team": decision.team, "member": name, "isActive": False})


STUCK_SHUTDOWN = DecisionSpec(
    kind="shutdown-stuck",
    label="shutdown",
    heading="stuck shutdown",
    answers=(
        Answer(
            id="shutdown-resend",
            action="resend",
            positive=True,
            label="Resend",
            command="Resend the selected stuck shutdown request",
            help="stuck shutdown: resend (a new request id)",
            note="optional",
            note_label="Reason",
            question=lambda d: member_question("Resend the shutdown request to ", d),
            run=_resend,
            outcome="A new shutdown_request (new requestId) goes to its inbox; the unanswered one is "
            "recorded as superseded in messages.jsonl.",
        ),
        Answer(
            id="shutdown-force",
            action="force",
            positive=False,
            label="Force offline",
            command="Force the member of the stuck shutdown offline",
            help="stuck shutdown: force offline (reason logged)",
            note="optional",
            note_label="Reason",
            question=lambda d: member_question("Force ", d, " offline?"),
            run=_force_offline,
            outcome="isActive becomes false in config.json (it no longer blocks TeamDelete); the reason "
            "is recorded in messages.jsonl. Use it when the agent is gone for good.",
        ),
    ),
    what=lambda decision: f"shutdown {decision.request_id}",
    alert_reason="has not answered a shutdown request",
    detail=lambda decision, short: detail(decision, short, (ours("stuck shutdown", "bold"),), request=True),
    json=team_json,
)
"""A ``shutdown_request`` that got no reply within ``shutdownTimeoutSeconds``."""


# --- the forge outbox (what must reach Gitea) ----------------------------------------


def _outbox_answer(*, retry: bool) -> Run:
    def run(ws: Workspace, decision: Decision, note: str | None) -> Answered:
        from teamdeck.protocol.forge.outbox import drop_delivery, retry_delivery

        entry = (retry_delivery if retry else drop_delivery)(ws, decision.request_id or "", note)
        done = (
            "queued again (delivered now when Gitea's API is configured)" if retry else "dropped: Gitea is not updated"
        )
        return Answered(
            summary=f"delivery to {entry.ref} {done}",
            data={"entry": entry.id, "repo": entry.repo, "number": entry.number},
        )

    return run


FORGE_DELIVERY = DecisionSpec(
    kind="forge-delivery",
    label="forge",
    heading="Gitea not updated",
    answers=(
        Answer(
            id="forge-retry",
            action="retry",
            positive=True,
            label="Retry",
            command="Retry the selected delivery to Gitea",
            help="forge delivery: try again",
            note="optional",
            note_label="Note",
            question=question_about("Retry"),
            run=_outbox_answer(retry=True),
            outcome="The comment (and closing the issue) is tried again now if Gitea's API is configured.",
        ),
        Answer(
            id="forge-drop",
            action="drop",
            positive=False,
            label="Drop",
            command="Drop the selected delivery to Gitea",
            help="forge delivery: drop (Gitea stays as it is)",
            note="optional",
            note_label="Note",
            question=question_about("Drop"),
            run=_outbox_answer(retry=False),
            outcome="Gitea is not updated; the outcome stays recorded in teamdeck.",
        ),
    ),
    what=lambda decision: f"forge {decision.request_id}",
    alert_reason="could not update Gitea",
    detail=lambda decision, short: detail(
        decision, short, (ours("Gitea not updated", "bold"),), body_label="comment:\n", request=True
    ),
    json=lambda decision: {"entry": decision.request_id, "comment": decision.body, "error": decision.reason},
)
"""A delivery to Gitea (forge/outbox.jsonl) whose tries all failed."""


SPECS = (TASK_GATE, PLAN_APPROVAL, PERMISSION, SANDBOX_PERMISSION, STUCK_SHUTDOWN, FORGE_DELIVERY)
"""The kinds of the workspace's files, in the order decisions/registry.py registers them."""
