"""validate_workspace: every problem of every file, with its place; never a crash."""

from __future__ import annotations

from teamdeck.protocol.checks.validate import CHECKERS, ValidationProblem, validate_workspace
from teamdeck.protocol.task.join import join_task

from .kit import blocked, completed, new_task, write_output


def test_a_healthy_workspace_has_no_problems(ws):
    new_task(ws)
    write_output(ws, "t1", "w1", blocked())
    write_output(ws, "t1", "w2", completed())
    join_task(ws, "t1")
    (ws.root / ".teamdeck.yaml").write_text("autoJoin: false\n")
    assert validate_workspace(ws) == []


def test_every_broken_file_is_listed_with_its_place(ws):
    new_task(ws)
    new_task(ws, "t2")
    (ws.root / ".teamdeck.yaml").write_text("readOnly: maybe\n")
    ws.task_file("t1").write_text(
        "id: other\ntitle: x\nstate: nowhere\ngates: []\ncreatedAt: x\nupdatedAt: y\nrevision: 1\n"
    )
    ws.task_file("t2").write_text("!!python/object/apply:os.system ['true']\n")
    with ws.events_file("t1").open("ab") as log:
        log.write(b'{"id": 1}\nnot json\n\n{"torn":')
    write_output(ws, "t1", "w1", {"status": "DONE", "finishedAt": "yesterday"})
    write_output(ws, "t1", "Bad", completed())
    (ws.reports_dir("t1") / "joined-summary.json").write_text('{"taskId": "t1"}')
    problems = [str(problem) for problem in validate_workspace(ws)]
    expected = [
        ".teamdeck.yaml $.readOnly:",
        "tasks/t1/task.yaml $.state:",
        "tasks/t1/task.yaml $.createdAt:",
        "tasks/t1/events.jsonl line 2 $.id:",
        "tasks/t1/events.jsonl line 3: not a JSON record",
        "tasks/t1/events.jsonl line 5: incomplete last record",
        "tasks/t1/agents/Bad: invalid worker id 'Bad'",
        "tasks/t1/agents/w1/artifacts/final.json $:",
        "tasks/t1/agents/w1/artifacts/final.json $.finishedAt: 'yesterday' is not a 'date-time'",
        "tasks/t1/agents/w1/artifacts/final.json $.status: 'DONE' is not one of",
        "tasks/t1/shared/reports/joined-summary.json $.workers:",
        "tasks/t2/task.yaml line 1: tag !!python/object/apply is not allowed",
    ]
    for start in expected:
        assert any(problem.startswith(start) for problem in problems), (start, problems)
    assert all("\n" not in problem for problem in problems)


def test_task_yaml_consistency_rules(ws):
    new_task(ws)
    text = ws.task_file("t1").read_text().replace("id: t1", "id: t9")
    text = text.replace(
        "gates: []",
        "gates:\n- {id: g1, state: blocked, createdAt: '2026-03-01T12:00:00Z'}\n"
        "- {id: g1, state: blocked, createdAt: '2026-03-01T12:00:00Z'}",
    )
    ws.task_file("t1").write_text(text)
    assert [str(problem) for problem in validate_workspace(ws)] == [
        "tasks/t1/task.yaml $.id: 't9' does not match the directory name 't1'",
        "tasks/t1/task.yaml $.gates[1].id: gate id 'g1' is used twice",
    ]


def test_a_missing_task_yaml_with_a_log_is_reported(ws):
    new_task(ws)
    ws.task_file("t1").unlink()
    assert [str(problem) for problem in validate_workspace(ws)] == [
        "tasks/t1/task.yaml: missing; the next command rebuilds it from events.jsonl"
    ]


def test_a_checker_that_cannot_run_becomes_a_problem(ws, monkeypatch):
    def broken(_ws):
        from teamdeck.errors import InvalidFile

        raise InvalidFile("teams", "", "cannot list: Permission denied")

    monkeypatch.setattr("teamdeck.protocol.checks.validate.CHECKERS", (*CHECKERS, broken))
    assert validate_workspace(ws) == [ValidationProblem("teams", "", "cannot list: Permission denied")]
