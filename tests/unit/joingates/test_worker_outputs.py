"""Reading and checking worker outputs: schema problems with JSON paths (B11, B12),
hostile names and symlinks (S8, S9, B17), hostile messages (S12), odd files (B6, B7, B16)."""

from __future__ import annotations

import os
import subprocess
import sys

from jsonschema import Draft202012Validator

from teamdeck.protocol.task.worker_outputs import read_worker_outputs

from .kit import blocked, completed, new_task, write_output


def test_valid_outputs_are_read_sorted_with_pending_directories(ws):
    new_task(ws)
    write_output(ws, "t1", "w2", blocked("stuck", "Q1", "Q2"))
    write_output(ws, "t1", "w1", completed("all good", "ship it"))
    (ws.agents_dir("t1") / "w3").mkdir()
    results = read_worker_outputs(ws, "t1")
    assert [(r.agent_id, r.status, r.valid) for r in results] == [
        ("w1", "completed", True),
        ("w2", "blocked", True),
        ("w3", "pending", True),
    ]
    assert results[1].output.questions == ["Q1", "Q2"]
    assert results[0].digest.startswith("sha256:") and results[2].digest is None
    assert results[0].file == "agents/w1/artifacts/final.json"


def test_b11_schema_violations_are_listed_with_json_path(ws):
    new_task(ws)
    write_output(ws, "t1", "w1", {"status": "DONE", "questions": "not a list"})
    (result,) = read_worker_outputs(ws, "t1")
    assert result.status == "invalid" and result.output is None
    paths = [problem.path for problem in result.problems]
    assert sorted(paths) == ["$", "$.questions", "$.status"]
    messages = {problem.path: problem.message for problem in result.problems}
    assert messages["$.status"] == "'DONE' is not one of ['completed', 'blocked', 'failed']"
    assert messages["$"] == "'summary' is a required property"
    assert result.problem_count == 3
    assert result.headline().startswith("agents/w1/artifacts/final.json $")
    assert result.headline().endswith("(+2 more)")
    entry = result.entry()
    assert entry.summary == "" and entry.questions == [] and not entry.valid  # nothing built from invalid data


def test_b12_date_time_format_is_rejected_and_the_checker_is_registered(ws):
    assert "date-time" in Draft202012Validator.FORMAT_CHECKER.checkers  # rfc3339-validator is installed
    new_task(ws)
    write_output(ws, "t1", "w1", {"status": "completed", "summary": "ok", "finishedAt": "yesterday"})
    write_output(ws, "t1", "w2", {"status": "completed", "summary": "ok", "finishedAt": "2026-03-01T12:00:00Z"})
    bad, good = read_worker_outputs(ws, "t1")
    assert [(p.path, p.message) for p in bad.problems] == [("$.finishedAt", "'yesterday' is not a 'date-time'")]
    assert good.valid


def test_b6_b7_unparseable_outputs_are_invalid_results_not_errors(ws):
    new_task(ws)
    write_output(ws, "t1", "w1", '{"status": "completed", "summary": "x", "score": NaN}')
    write_output(ws, "t1", "w2", "[" * 100_000)
    write_output(ws, "t1", "w3", "")
    write_output(ws, "t1", "w4", '{"status": "completed", "status": "failed", "summary": "x"}')
    results = read_worker_outputs(ws, "t1")
    assert [r.status for r in results] == ["invalid"] * 4
    assert results[0].problems[0].path == "$.score" and "NaN" in results[0].problems[0].message
    assert "nesting too deep" in results[1].problems[0].message
    assert "invalid JSON" in results[2].problems[0].message
    assert "duplicate key 'status'" in results[3].problems[0].message


def test_a_fifo_in_place_of_final_json_is_reported_without_blocking(ws):
    new_task(ws)
    folder = ws.agents_dir("t1") / "w1" / "artifacts"
    folder.mkdir(parents=True)
    os.mkfifo(folder / "final.json")
    (result,) = read_worker_outputs(ws, "t1")
    assert result.status == "invalid" and result.problems[0].message == "is not a regular file"


def test_s8_b17_agent_directories_with_invalid_names_are_reported_not_read(ws):
    new_task(ws)
    agents = ws.agents_dir("t1")
    for name in ("Evil", ".hidden", "ok\u202eexe"):
        write_output(ws, "t1", name, completed("SECRET-NOT-READ"))
    os.mkdir(os.fsencode(agents) + b"/bad\xff")
    results = read_worker_outputs(ws, "t1")
    assert all(r.ignored and r.status == "invalid" and r.output is None for r in results)
    names = sorted(r.agent_id for r in results)
    assert names == [".hidden", "Evil", "bad\\udcff", "ok\\u202eexe"]
    for result in results:
        assert result.problems[0].message.startswith(f"invalid worker id '{result.agent_id}'")
        assert "SECRET-NOT-READ" not in repr(result)
        assert "\u202e" not in result.headline()


def test_s9_symlinked_agent_directories_are_reported_not_followed(ws, tmp_path):
    new_task(ws)
    outside = tmp_path / "outside"
    (outside / "artifacts").mkdir(parents=True)
    (outside / "artifacts" / "final.json").write_text('{"status": "completed", "summary": "OUTSIDE"}')
    agents = ws.agents_dir("t1")
    (agents / "evil").symlink_to(outside)
    write_output(ws, "t1", "real", completed())
    (agents / "alias").symlink_to(agents / "real")
    (agents / "w9" / "artifacts").mkdir(parents=True)
    (agents / "w9" / "artifacts" / "final.json").symlink_to(outside / "artifacts" / "final.json")
    by_id = {r.agent_id: r for r in read_worker_outputs(ws, "t1")}
    assert by_id["evil"].ignored and by_id["evil"].problems[0].message == "resolves outside the workspace; ignored"
    assert by_id["alias"].ignored and by_id["alias"].problems[0].message == "is a symbolic link; not followed"
    assert by_id["w9"].status == "invalid" and "resolves outside the workspace" in by_id["w9"].problems[0].message
    assert by_id["real"].valid
    assert "OUTSIDE" not in repr(by_id)


def test_s12_hostile_text_in_schema_messages_is_sanitised_and_truncated(ws):
    new_task(ws)
    hostile = "\x1b]52;c;cm0gLXJmIH4=\x07\x1b[2J\u202e" + "A" * 50_000
    write_output(ws, "t1", "w1", {"status": hostile, "summary": "x", hostile: 1, "questions": [1]})
    (result,) = read_worker_outputs(ws, "t1")
    for problem in result.problems:
        for text in (problem.path, problem.message):
            assert "\x1b" not in text and "\x07" not in text and "\u202e" not in text
            assert len(text) < 400


def test_jsonschema_is_not_imported_by_the_cli_until_needed():
    code = (
        "import sys; from teamdeck.cli.main import build_parser; from teamdeck.cli.commands import COMMANDS; "
        "[build_parser(command.name) for command in COMMANDS]; "
        "import teamdeck.protocol.task.join, teamdeck.protocol.effects.gate_decisions, teamdeck.protocol.checks.validate; "
        "print('jsonschema' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "False"


def test_jsonschema_is_imported_without_rfc3987_syntax_but_with_date_time():
    code = (
        "import sys; from teamdeck.protocol.task.worker_outputs import check_output; "
        'r = check_output(\'w1\', \'f\', b\'{"status": "completed", "summary": "x", "finishedAt": "soon"}\'); '
        "from jsonschema import Draft202012Validator as V; "
        "print(r.status, 'date-time' in V.FORMAT_CHECKER.checkers, 'rfc3987_syntax' in sys.modules, 'iri' in V.FORMAT_CHECKER.checkers)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["invalid", "True", "False", "False"]
