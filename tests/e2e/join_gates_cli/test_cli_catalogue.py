"""Catalogue cases through the real CLI: C8 (approve/reject race), F13 (crash while
regenerating reports), a workspace full of broken files, and one-line errors."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

import pytest

from .kit import events, make_task, no_traceback, task_yaml, world, write_output


def _files(root):
    found = {}
    for folder, _dirs, names in os.walk(root):
        for name in names:
            if not name.endswith(".lock"):
                path = os.path.join(folder, name)
                with open(path, "rb") as handle:
                    found[os.path.relpath(path, root)] = handle.read()
    return found


def _teamdeck(root, *args):
    env = {**os.environ, "TEAMDECK_WORKSPACE": ""}
    return subprocess.Popen(
        [sys.executable, "-m", "teamdeck", "--workspace", str(root), *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )


def test_c8_approve_and_reject_race_exactly_one_wins_and_the_loser_names_the_winner(tmp_path, run_cli):
    root = world(tmp_path)
    make_task(run_cli, root, "t1")
    agents = ("w1", "w2", "w3")
    for agent in agents:
        write_output(root, "t1", agent, {"status": "blocked", "summary": "stuck", "questions": ["?"]})
    assert run_cli(root, "join", "t1").code == 0
    for agent in agents:
        gate = f"g-{agent}-1"
        racers = [
            _teamdeck(root, "gate", "approve", "t1", gate),
            _teamdeck(root, "gate", "reject", "t1", gate, "--note", "no"),
        ]
        outcomes = [(proc.wait(timeout=60), *proc.communicate()) for proc in racers]
        codes = sorted(code for code, _out, _err in outcomes)
        assert codes == [0, 1], outcomes
        state = next(g["state"] for g in task_yaml(root, "t1")["gates"] if g["id"] == gate)
        (loser_err,) = [err for code, _out, err in outcomes if code == 1]
        assert f"gate {gate} already {state} by" in loser_err and no_traceback(loser_err)
        decisions = [
            e
            for e in events(root, "t1")
            if e["type"] in ("gate.approved", "gate.rejected") and e["payload"]["gateId"] == gate
        ]
        assert len(decisions) == 1 and decisions[0]["type"] == f"gate.{state}"
    assert task_yaml(root, "t1")["state"] == "working"


def test_f13_crash_while_regenerating_reports_keeps_the_old_ones_and_rerun_is_byte_identical(tmp_path, run_cli):
    root = world(tmp_path)
    make_task(run_cli, root, "t1")
    write_output(root, "t1", "w1", {"status": "completed", "summary": "first"})
    assert run_cli(root, "join", "t1").code == 0
    reports = root / "tasks" / "t1" / "shared" / "reports"
    old = {name: (reports / name).read_bytes() for name in ("joined-summary.md", "joined-summary.json")}
    write_output(root, "t1", "w1", {"status": "blocked", "summary": "second", "questions": ["why?"]})
    reference = tmp_path / "reference"
    shutil.copytree(root, reference, symlinks=True)
    for point in ("report.after_tmp_write", "report.after_tmp_fsync"):
        crashed = run_cli(root, "join", "t1", env={"TEAMDECK_CRASH_AT": point})
        assert crashed.code == -9
        assert {name: (reports / name).read_bytes() for name in old} == old  # the previous reports, intact
    rerun = run_cli(root, "join", "t1")
    assert rerun.code == 0, rerun.err
    assert run_cli(reference, "join", "t1").code == 0
    ref_reports = reference / "tasks" / "t1" / "shared" / "reports"
    for name in old:
        assert (reports / name).read_bytes() == (ref_reports / name).read_bytes()
    assert not [name for name in os.listdir(reports) if name.endswith(".tmp")]  # crash debris cleaned
    before = _files(root)
    assert run_cli(root, "join", "t1").out.strip().endswith("nothing changed")
    assert _files(root) == before


def test_validate_lists_every_problem_of_a_broken_workspace_and_join_still_writes_reports(tmp_path, run_cli):
    root = world(tmp_path)
    make_task(run_cli, root, "t1")
    make_task(run_cli, root, "t2")
    (root / ".teamdeck.yaml").write_text("autoJoin: 12\n")
    write_output(root, "t1", "w1", {"status": "DONE", "finishedAt": "yesterday"})
    write_output(root, "t1", "w2", '{"status": "completed", "summary": "x", "score": NaN}')
    write_output(root, "t1", "w3", "[" * 50_000)
    write_output(root, "t1", "w4", b"\xff\xfe not utf-8".decode("latin-1"))
    write_output(root, "t1", "w5", {"status": "blocked", "summary": "fine", "questions": ["Q?"]})
    (root / "tasks" / "t1" / "agents" / "evil").symlink_to(tmp_path)
    with open(root / "tasks" / "t1" / "events.jsonl", "ab") as log:
        log.write(b'{"id": "x"}\n{broken\n')
    (root / "tasks" / "t2" / "task.yaml").write_text("a: &x [1]\nb: *x\n")
    result = run_cli(root, "validate")
    assert result.code == 1 and no_traceback(result.out, result.err)
    lines = result.out.strip().splitlines()
    expected = [
        ".teamdeck.yaml $.autoJoin:",
        "tasks/t1/events.jsonl line 2 $.id:",
        "tasks/t1/events.jsonl line 3: not a JSON record",
        "tasks/t1/agents/evil: resolves outside the workspace; ignored",
        "tasks/t1/agents/w1/artifacts/final.json $.status:",
        "tasks/t1/agents/w1/artifacts/final.json $.finishedAt: 'yesterday' is not a 'date-time'",
        "tasks/t1/agents/w2/artifacts/final.json $.score: non-finite number NaN",
        "tasks/t1/agents/w3/artifacts/final.json",
        "tasks/t1/agents/w4/artifacts/final.json",
        "tasks/t2/task.yaml line 1: uses YAML anchors/aliases",
    ]
    for start in expected:
        assert any(line.startswith(start) for line in lines), (start, lines)
    assert lines[-1].endswith("problem(s) found")
    as_json = run_cli(root, "validate", "--json")
    assert as_json.code == 1 and not as_json.json["ok"] and len(as_json.json["problems"]) == len(lines) - 1

    # A broken .teamdeck.yaml stops every writing command (it may have said readOnly: true) ...
    refused = run_cli(root, "join", "t1")
    assert refused.code == 1 and refused.err.startswith("teamdeck: .teamdeck.yaml: ") and no_traceback(refused.err)
    assert not (root / "tasks" / "t1" / "shared" / "reports" / "joined-summary.md").exists()
    (root / ".teamdeck.yaml").unlink()
    # ... but broken outputs, logs and a broken task.yaml do not stop the reports.
    joined = run_cli(root, "join", "t1")
    assert joined.code == 0 and no_traceback(joined.out, joined.err), joined.err
    assert "opened gate g-w5-1" in joined.out and "invalid: agents/w1/artifacts/final.json" in joined.out
    data = json.loads((root / "tasks" / "t1" / "shared" / "reports" / "joined-summary.json").read_text())
    assert data["totals"]["invalid"] == 5 and data["totals"]["blocked"] == 1
    assert (root / "tasks" / "t1" / "shared" / "reports" / "joined-summary.md").exists()

    broken = run_cli(root, "join", "t2")
    assert broken.code == 1 and no_traceback(broken.err)
    assert "uses YAML anchors/aliases" in broken.err and "the joined reports were written" in broken.err
    assert (root / "tasks" / "t2" / "shared" / "reports" / "joined-summary.md").exists()


@pytest.mark.parametrize(
    "args, message",
    [
        (("join", "nope"), "Could not join task nope: No task 'nope'"),
        (("join", "../etc"), "invalid task id '../etc'"),
        (("gate", "approve", "nope", "g1"), "Could not approve gate g1: No task 'nope'"),
        (("gate", "approve", "t1", "g9"), "task t1 has no gate 'g9'"),
        (("gate", "reject", "t1", "g9", "--note", "x"), "task t1 has no gate 'g9'"),
        (("gate", "list", "nope"), "No task 'nope'"),
    ],
)
def test_errors_are_one_line_with_no_traceback_and_nothing_written(tmp_path, run_cli, args, message):
    root = world(tmp_path)
    make_task(run_cli, root, "t1")
    before = _files(root)
    result = run_cli(root, *args)
    assert result.code == 1
    assert message in result.err and len(result.err.strip().splitlines()) == 1 and no_traceback(result.err)
    assert _files(root) == before


def test_join_json_output(tmp_path, run_cli):
    root = world(tmp_path)
    make_task(run_cli, root, "t1")
    write_output(root, "t1", "w1", {"status": "blocked", "summary": "s", "questions": ["q"]})
    first = run_cli(root, "join", "t1", "--json").json
    assert first["ok"] and first["changed"] and first["gatesOpened"] == ["g-w1-1"]
    assert first["totals"]["blocked"] == 1 and first["workers"][0]["questions"] == ["q"]
    second = run_cli(root, "join", "t1", "--json").json
    assert not second["changed"] and second["events"] == [] and second["written"] == []
