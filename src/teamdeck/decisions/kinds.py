"""The kinds of decision, one :class:`~teamdeck.decisions.spec.DecisionSpec` each, and
:data:`SPECS`, the one place they are registered.

To add a kind: the view builds its rows (a ``Decision`` with a new ``kind``), a
protocol function answers it, and a spec here names, shows and runs it; add the spec
to :data:`SPECS`. Nothing else changes: see docs/protocol.md, "Adding a decision kind".

Each answer imports its protocol module when it runs (an action runs on a worker: the
TUI's first frame does not wait for modules only an answer needs).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING, Any, Literal

from teamdeck.decisions.run_kinds import RUN_BUDGET, RUN_FAILED
from teamdeck.decisions.spec import (
    Answer,
    Answered,
    DecisionSpec,
    Part,
    Run,
    Variant,
    detail,
    ours,
    question_about,
    team_json,
)
from teamdeck.store.workspace import Workspace
from teamdeck.view.snapshot import Decision

if TYPE_CHECKING:
    from teamdeck.model.task import GateAnswer

FAIL_GATE = "verification-failed"


def _member_question(before: str, decision: Decision, after: str = "?") -> tuple[Part, ...]:
    return (ours(before, "bold"), Part(decision.member or "", "accent", limit=64), ours(after, "bold"))


# --- task gates (task.yaml) ---------------------------------------------------------


def _decide_gate(answer: GateAnswer, done: str) -> Run:
    def run(ws: Workspace, decision: Decision, note: str | None) -> Answered:
        from teamdeck.protocol.effects.gate_decisions import decide_gate

        task_id, gate_id = decision.task_id or "", decision.gate_id or ""
        change = decide_gate(ws, task_id, gate_id, answer, note)
        gate = change.task.gate(gate_id)
        summary = "; ".join([f"gate {gate_id} of task {task_id} {done}", *change.notices])
        return Answered(
            summary,
            {
                "task": task_id,
                "taskState": change.task.state,
                "gate": gate.model_dump(mode="json") if gate else None,
                "events": [event.id for event in change.events],
                "notices": list(change.notices),
            },
        )

    return run


GATE_APPROVE = Answer(
    "gate-approve", "approve", True, "Approve", "Approve the selected decision", "approve (optional note)",
    "optional", "Note", question_about("Approve"), _decide_gate("approve", "approved"),
)  # fmt: skip
GATE_REJECT = Answer(
    "gate-reject", "reject", False, "Reject", "Reject the selected decision", "reject (note required)",
    "required", "Note", question_about("Reject"), _decide_gate("reject", "rejected"),
)  # fmt: skip
GATE_RETRY = Answer(
    "gate-retry", "retry", True, "Retry", "Retry the selected FAIL gate", "FAIL gate: retry (task works again)",
    "optional", "Note", question_about("Retry"), _decide_gate("approve", "approved (retry)"),
    outcome="Retry: the task goes back to working and its guardian can run again.",
)  # fmt: skip
GATE_GIVE_UP = Answer(
    "gate-give-up", "give_up", False, "Give up", "Give up the selected FAIL gate", "FAIL gate: give up (fails)",
    "required", "Note", question_about("Give up"), _decide_gate("reject", "rejected (given up)"),
    outcome="Give up: the task fails (final) and its other open gates are closed.",
)  # fmt: skip

STALL_REASSIGN = Answer(
    "gate-reassign", "reassign", True, "Nudge / reassign", "Nudge the stalled member again, or reassign its task",
    "stalled member: nudge, or reassign (note: a member)", "optional", "Member (empty: nudge again)",
    question_about("Nudge again or reassign"), _decide_gate("approve", "approved"),
    outcome="No name: the member is nudged again and its wait starts over. A member's name: the work (a task, a Gitea issue) is theirs.",
)  # fmt: skip

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
    detail=_task_gate_detail,
    json=_task_gate_json,
    variants={
        FAIL_GATE: Variant("FAIL", "verification FAILED: retry (a) or give up (r)", (GATE_RETRY, GATE_GIVE_UP)),
        "round-review": Variant("round"),
        "plan-approval": Variant("gate", "coordinator plan: approve to make it READY"),
        "member-stalled": Variant(
            "stall",
            "a member left its work untouched: nudge again / reassign (a) or give up (r)",
            (STALL_REASSIGN, STALL_GIVE_UP),
        ),  # fmt: skip
    },
)
"""A ``blocked`` gate of a task.yaml: a blocked worker's question, a guardian's FAIL
(retry or give up), a coordinator plan's or a round review's approval."""


# --- team requests (inboxes, the handshake ledger) ------------------------------------


def _answer_plan(approve: bool) -> Run:
    def run(ws: Workspace, decision: Decision, note: str | None) -> Answered:
        from teamdeck.protocol.team.messaging.handshake_writes import answer_plan

        member = decision.member or ""
        sent = answer_plan(
            ws, decision.team or "", member, approve=approve, feedback=note, request_id=decision.request_id
        )
        summary = f"plan of {member} {'approved' if approve else 'rejected'} ({sent.request_id})"
        return Answered(summary, {"team": sent.team, "member": member, "requestId": sent.request_id, "sent": sent.id})

    return run


PLAN_APPROVAL = DecisionSpec(
    kind="plan-approval",
    label="plan",
    heading="plan approval",
    answers=(
        Answer(
            "gate-approve",
            "approve",
            True,
            "Approve",
            "Approve the selected decision",
            "approve (optional note)",
            "optional",
            "Feedback",
            question_about("Approve"),
            _answer_plan(True),
        ),
        Answer(
            "gate-reject",
            "reject",
            False,
            "Reject",
            "Reject the selected decision",
            "reject (note required)",
            "required",
            "Feedback",
            question_about("Reject"),
            _answer_plan(False),
        ),
    ),  # fmt: skip
    what=lambda decision: f"plan {decision.request_id}",
    detail=lambda decision, short: detail(decision, short, (ours("plan approval", "bold"),)),
    json=team_json,
)
"""A teammate's ``plan_approval_request`` with no ``plan_approval_response`` yet."""


def _answer_permission(approve: bool) -> Run:
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
        return Answered(summary, {**data, "sessionPrompts": [p.key for p in routes]})

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
            "permission-allow",
            "allow",
            True,
            "Allow",
            "Allow the selected permission request",
            "permission request: allow (the tool runs with its input)",
            "optional",
            "Note",
            lambda d: (
                *_member_question("Allow ", d, " to use "),
                Part(d.tool, "warning", limit=64),
                ours("?", "bold"),
            ),
            _answer_permission(True),
            outcome="The tool runs with this input, unchanged (permission_response success); a note is only logged.",
        ),
        Answer(
            "permission-deny",
            "deny",
            False,
            "Deny",
            "Deny the selected permission request",
            "permission request: deny (the reason is sent)",
            "optional",
            "Reason",
            lambda d: (
                *_member_question("Deny ", d, " the use of "),
                Part(d.tool, "warning", limit=64),
                ours("?", "bold"),
            ),
            _answer_permission(False),
            outcome="The teammate gets the reason as the error (default: Permission denied).",
        ),
    ),  # fmt: skip
    what=lambda decision: f"permission {decision.request_id}",
    detail=_permission_detail,
    json=lambda decision: {**team_json(decision), "tool": decision.tool, "input": decision.body},
)
"""A teammate's ``permission_request``, open in the ledger (not answered, not superseded)."""


def _answer_sandbox(allow: bool) -> Run:
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
        return Answered(summary, {**data, "sessionPrompts": [p.key for p in routes]})

    return run


def _sandbox_question(verb: str) -> Callable[[Decision], tuple[Part, ...]]:
    return lambda d: (
        *_member_question(f"{verb} ", d, "'s sandbox to reach "),
        Part(d.reason, "warning", limit=120),
        ours("?", "bold"),
    )


SANDBOX_PERMISSION = DecisionSpec(
    kind="sandbox-permission",
    label="host",
    heading="sandbox host request",
    answers=(
        Answer(
            "sandbox-allow",
            "allow",
            True,
            "Allow",
            "Allow the selected sandbox host request",
            "sandbox host request: allow (the sandbox may reach the host)",
            "optional",
            "Note",
            _sandbox_question("Allow"),
            _answer_sandbox(True),
            outcome="sandbox_permission_response allow: true for this host; Claude Code 2.1.332 takes it as a "
            "denial unless the lead's own process wrote it (answer in the lead's terminal too). A note is only logged.",
        ),
        Answer(
            "sandbox-deny",
            "deny",
            False,
            "Deny",
            "Deny the selected sandbox host request",
            "sandbox host request: deny",
            "optional",
            "Reason",
            _sandbox_question("Deny"),
            _answer_sandbox(False),
            outcome="sandbox_permission_response allow: false; the reason is only logged (the frame has no field).",
        ),
    ),  # fmt: skip
    what=lambda decision: f"sandbox {decision.request_id}",
    detail=lambda decision, short: detail(
        replace(decision, reason=""),  # the host is in the heading
        short,
        (ours("sandbox host request", "bold"), ours("  host ", "warning"), Part(decision.reason, "warning", limit=120)),
        body_label="input:\n",
        request=True,
    ),  # fmt: skip
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
    return Answered(summary, {**data, "superseded": list(resent.superseded)})


def forced_offline_reason(decision: Decision) -> str:
    """The reason a forced deactivation records when the person gives none."""
    return f"no shutdown_response to {decision.request_id} since {decision.created_at}; forced offline"


def _force_offline(ws: Workspace, decision: Decision, note: str | None) -> Answered:
    from teamdeck.protocol.team.messaging.handshake_writes import deactivate_member

    name = deactivate_member(
        ws, decision.team or "", decision.member or "", force=True, reason=note or forced_offline_reason(decision)
    )
    return Answered(f"{name} forced offline", {"team": decision.team, "member": name, "isActive": False})


STUCK_SHUTDOWN = DecisionSpec(
    kind="shutdown-stuck",
    label="shutdown",
    heading="stuck shutdown",
    answers=(
        Answer(
            "shutdown-resend",
            "resend",
            True,
            "Resend",
            "Resend the selected stuck shutdown request",
            "stuck shutdown: resend (a new request id)",
            "optional",
            "Reason",
            lambda d: _member_question("Resend the shutdown request to ", d),
            _resend,
            outcome="A new shutdown_request (new requestId) goes to its inbox; the unanswered one is "
            "recorded as superseded in messages.jsonl.",
        ),
        Answer(
            "shutdown-force",
            "force",
            False,
            "Force offline",
            "Force the member of the stuck shutdown offline",
            "stuck shutdown: force offline (reason logged)",
            "optional",
            "Reason",
            lambda d: _member_question("Force ", d, " offline?"),
            _force_offline,
            outcome="isActive becomes false in config.json (it no longer blocks TeamDelete); the reason "
            "is recorded in messages.jsonl. Use it when the agent is gone for good.",
        ),
    ),  # fmt: skip
    what=lambda decision: f"shutdown {decision.request_id}",
    detail=lambda decision, short: detail(decision, short, (ours("stuck shutdown", "bold"),), request=True),
    json=team_json,
)
"""A ``shutdown_request`` that got no reply within ``shutdownTimeoutSeconds``."""


# --- the forge outbox (what must reach Gitea) ----------------------------------------


def _outbox_answer(retry: bool) -> Run:
    def run(ws: Workspace, decision: Decision, note: str | None) -> Answered:
        from teamdeck.protocol.forge.outbox import drop_delivery, retry_delivery

        entry = (retry_delivery if retry else drop_delivery)(ws, decision.request_id or "", note)
        done = (
            "queued again (delivered now when Gitea's API is configured)" if retry else "dropped: Gitea is not updated"
        )
        return Answered(
            f"delivery to {entry.ref} {done}", {"entry": entry.id, "repo": entry.repo, "number": entry.number}
        )

    return run


FORGE_DELIVERY = DecisionSpec(
    kind="forge-delivery",
    label="forge",
    heading="Gitea not updated",
    answers=(
        Answer(
            "forge-retry",
            "retry",
            True,
            "Retry",
            "Retry the selected delivery to Gitea",
            "forge delivery: try again",
            "optional",
            "Note",
            question_about("Retry"),
            _outbox_answer(True),
            outcome="The comment (and closing the issue) is tried again now if Gitea's API is configured.",
        ),
        Answer(
            "forge-drop",
            "drop",
            False,
            "Drop",
            "Drop the selected delivery to Gitea",
            "forge delivery: drop (Gitea stays as it is)",
            "optional",
            "Note",
            question_about("Drop"),
            _outbox_answer(False),
            outcome="Gitea is not updated; the outcome stays recorded in teamdeck.",
        ),
    ),  # fmt: skip
    what=lambda decision: f"forge {decision.request_id}",
    detail=lambda decision, short: detail(
        decision, short, (ours("Gitea not updated", "bold"),), body_label="comment:\n", request=True
    ),
    json=lambda decision: {"entry": decision.request_id, "comment": decision.body, "error": decision.reason},
)
"""A delivery to Gitea (forge/outbox.jsonl) whose tries all failed."""


SPECS: dict[str, DecisionSpec] = {
    spec.kind: spec
    for spec in (
        TASK_GATE,
        PLAN_APPROVAL,
        PERMISSION,
        SANDBOX_PERMISSION,
        STUCK_SHUTDOWN,
        FORGE_DELIVERY,
        RUN_FAILED,
        RUN_BUDGET,
    )  # fmt: skip
}
"""Every kind of the workspace's files, by its name (decisions/registry.py adds the live
sessions' kinds, decisions/session_kinds.py, and every front reads the registry)."""
