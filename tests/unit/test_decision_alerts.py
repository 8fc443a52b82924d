"""The alert a decision of each kind raises says why in the words of the kind's spec
(decisions/): who waits, the reason, where it comes from, what is asked. Every
registered kind is listed, so a kind added without its reason fails here."""

from __future__ import annotations

import pytest

from teamdeck.decisions.registry import SPECS
from teamdeck.tui.alerts import decision_alert
from teamdeck.view.snapshot.workspace import Decision

LINES = {
    ("task-gate", "worker-blocked"): "alice is blocked (task t1): Which dialect?",
    ("task-gate", "verification-failed"): "alice failed verification (task t1): Which dialect?",
    ("plan-approval", ""): "alice asks to approve a plan (team alpha): Which dialect?",
    ("permission", ""): "alice asks for permission (team alpha): Which dialect?",
    ("sandbox-permission", ""): "alice asks for its sandbox to reach a host (team alpha): Which dialect?",
    ("shutdown-stuck", ""): "alice has not answered a shutdown request (team alpha): Which dialect?",
    ("forge-delivery", ""): "alice could not update Gitea (team alpha): Which dialect?",
    ("run-failed", ""): "alice has a run that failed every retry (team alpha): Which dialect?",
    ("run-budget", ""): "alice reached its budget (team alpha): Which dialect?",
    ("session-permission", ""): "alice asks for permission in its live session (team alpha): Which dialect?",
    ("session-elicitation", ""): "alice passes on an MCP server's question to you (team alpha): Which dialect?",
}


def test_every_registered_kind_has_its_line_here() -> None:
    assert {kind for kind, _ in LINES} == set(SPECS)


@pytest.mark.parametrize(("kind", "subkind"), list(LINES))
def test_a_decision_alerts_with_its_kinds_reason(kind: str, subkind: str) -> None:
    decision = Decision(
        key=f"{kind}:1",
        kind=kind,
        subkind=subkind,
        state="blocked",
        created_at="",
        source="task t1" if kind == "task-gate" else "team alpha",
        title="Which dialect?",
        agent="alice",
    )
    assert decision_alert(decision).line == LINES[kind, subkind]
