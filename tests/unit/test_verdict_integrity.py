"""A verdict edited by hand is found, not believed (seed 003; docs/reliability.md S18).

The guardian's FAIL is turned into PASS in the verdict file, as a person (or an agent)
with a text editor could. Before the fix ``validate`` and ``doctor`` said nothing and
``teamdeck verdicts`` showed PASS next to a fail-severity finding.
"""

from __future__ import annotations

import json

import pytest

from teamdeck.model.guardian import Flag, GuardianResult
from teamdeck.protocol.checks.validate import validate_workspace
from teamdeck.protocol.guardians import registry
from teamdeck.protocol.guardians.verdict_history import list_verdicts
from teamdeck.protocol.guardians.verification import verify
from teamdeck.protocol.task.create import create_task


class Failing:
    def verify(self, context):
        return GuardianResult(status="FAIL", flags=[Flag(code="tests", severity="fail", message="3 tests fail")])


@pytest.fixture
def failed(ws, monkeypatch):
    """Task t1 whose guardian said FAIL; returns the verdict."""
    monkeypatch.setattr(registry, "_EXTRA", {"failing": Failing})
    create_task(ws, "t1", "T")
    return verify(ws, "t1", guardian="failing", isolation="thread").verdict


def edit_to_pass(ws, verdict):
    path = ws.verdict_file("t1", verdict.id)
    record = json.loads(path.read_text())
    record["status"] = "PASS"
    path.write_text(json.dumps(record, indent=2) + "\n")
    return f"tasks/t1/guardian/verdicts/{verdict.id}.json"


def test_s18_an_untouched_verdict_is_no_problem(ws, failed):
    assert validate_workspace(ws) == []
    assert list_verdicts(ws, "t1") == ([failed], [])


def test_s18_validate_reports_a_verdict_edited_by_hand(ws, failed):
    rel = edit_to_pass(ws, failed)
    assert [str(problem) for problem in validate_workspace(ws)] == [
        f"{rel}: edited after it was recorded (status FAIL -> PASS); verdicts never change: "
        "the verdict recorded in events.jsonl stands"
    ]


def test_s18_verdicts_shows_the_recorded_verdict_and_the_problem(ws, failed, run_cli):
    rel = edit_to_pass(ws, failed)
    verdicts, problems = list_verdicts(ws, "t1")
    assert [verdict.status for verdict in verdicts] == ["FAIL"]
    assert problems == [
        f"{rel}: edited after it was recorded (status FAIL -> PASS); verdicts never change: "
        "the verdict recorded in events.jsonl stands"
    ]
    shown = run_cli(ws.root, "verdicts", "t1")
    assert " FAIL " in shown.out and " PASS " not in shown.out
    assert "edited after it was recorded" in shown.err


def test_s18_doctor_reports_it_and_is_not_healthy(ws, failed, run_cli):
    rel = edit_to_pass(ws, failed)
    result = run_cli(ws.root, "--json", "doctor")
    assert result.code == 1
    assert result.json["healthy"] is False
    assert result.json["editedVerdicts"] == [
        f"{rel}: edited after it was recorded (status FAIL -> PASS); verdicts never change: "
        "the verdict recorded in events.jsonl stands"
    ]


def test_s18_a_verdict_file_no_event_records_is_reported(ws, failed):
    forged = ws.verdict_file("t1", "gv-forged")
    record = json.loads(ws.verdict_file("t1", failed.id).read_text())
    forged.write_text(json.dumps({**record, "id": "gv-forged", "status": "PASS"}, indent=2) + "\n")
    assert [str(problem) for problem in validate_workspace(ws)] == [
        "tasks/t1/guardian/verdicts/gv-forged.json: no guardian.verdict_recorded event in events.jsonl records it"
    ]
