"""The built-in guardians, the hard timeout of a guardian's process, plug-ins, and write-once records."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from teamdeck.errors import Conflict, NotFound
from teamdeck.model.guardian import Flag, GuardianResult
from teamdeck.protocol.common.events import new_event
from teamdeck.protocol.guardians import registry
from teamdeck.protocol.guardians.command import CommandGuardian
from teamdeck.protocol.guardians.context import GuardianContext
from teamdeck.protocol.guardians.diff import DiffGuardian, normalise_path
from teamdeck.protocol.guardians.process import run_guardian
from teamdeck.protocol.guardians.registry import check_code, guardian_codes, register_guardian
from teamdeck.protocol.guardians.schema import SchemaGuardian
from teamdeck.protocol.task.create import create_task
from teamdeck.protocol.task.taskfile import load_task, transact
from teamdeck.store.write_once import write_once


def _context(ws, task_id: str = "t1", config: dict | None = None) -> GuardianContext:
    return GuardianContext(
        str(ws.root), task_id, "ga-test", load_task(ws, task_id).model_dump(mode="json"), config or {}
    )


def _final(ws, task_id: str, agent: str, **output) -> None:
    path = ws.final_output(task_id, agent)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"summary": "done", "status": "completed", **output}))


# --- write-once records ---------------------------------------------------------------
def test_write_once_creates_then_accepts_the_same_bytes_and_refuses_others(tmp_path):
    target = tmp_path / "records" / "gv-1.json"
    assert write_once(target, b"{}\n") is True
    assert write_once(target, b"{}\n") is False
    with pytest.raises(Conflict, match="gv-1.json already exists with other content; records are write-once"):
        write_once(target, b'{"x": 1}\n')
    assert target.read_bytes() == b"{}\n"
    assert sorted(path.name for path in target.parent.iterdir()) == ["gv-1.json"]  # no temp file left


# --- schema ---------------------------------------------------------------------------
def test_schema_passes_valid_consistent_outputs(ws):
    create_task(ws, "t1", "T")
    _final(ws, "t1", "w1")
    result = SchemaGuardian().verify(_context(ws))
    assert result.verdict_status() == "PASS", result.flags
    assert result.evidence["workers"] == {"w1": "completed"}


def test_schema_flags_invalid_failed_unreported_and_ungated_workers(ws):
    create_task(ws, "t1", "T")
    _final(ws, "t1", "ok")
    _final(ws, "t1", "bad", status="DONE")
    _final(ws, "t1", "dead", status="failed", summary="crashed")
    _final(ws, "t1", "stuck", status="blocked", questions=["which?"])
    transact(
        ws,
        "t1",
        lambda task: [new_event(ws, "task.delegated", {"worker": {"id": "late", "member": "late"}})],
        action="delegate",
    )
    result = SchemaGuardian().verify(_context(ws))
    by_code = {flag.code: flag for flag in result.flags}
    assert (
        by_code["invalid-output"].severity == "needs-changes"
        and by_code["invalid-output"].path == "agents/bad/artifacts/final.json"
    )
    assert by_code["worker-failed"].severity == "fail"
    assert by_code["blocked-without-gate"].severity == "fail"
    assert by_code["not-reported"].severity == "needs-changes"
    assert result.verdict_status() == "FAIL"
    assert any(text.startswith("bad: fix agents/bad/artifacts/final.json $.status") for text in result.recommendations)


def test_schema_without_any_output_is_no_evidence(ws):
    create_task(ws, "t1", "T")
    result = SchemaGuardian().verify(_context(ws))
    assert [flag.code for flag in result.flags] == ["no-evidence"] and result.verdict_status() == "FAIL"


def test_schema_notes_a_stale_joined_summary(ws):
    from teamdeck.protocol.task.join import join_task

    create_task(ws, "t1", "T")
    _final(ws, "t1", "w1")
    join_task(ws, "t1")
    assert SchemaGuardian().verify(_context(ws)).flags == []
    _final(ws, "t1", "w2")
    flags = SchemaGuardian().verify(_context(ws)).flags
    assert [(flag.code, flag.severity) for flag in flags] == [("stale-report", "info")]


# --- diff -----------------------------------------------------------------------------
def test_diff_flags_a_file_two_workers_changed_after_normalising_paths(ws):
    create_task(ws, "t1", "T")
    _final(ws, "t1", "w1", changedFiles=["src/a.py", "docs/x.md"])
    _final(ws, "t1", "w2", changedFiles=["./src/lib/../a.py"])
    _final(ws, "t1", "w3", changedFiles=["docs/y.md"])
    result = DiffGuardian().verify(_context(ws))
    assert [(flag.code, flag.path, flag.severity) for flag in result.flags] == [
        ("conflict", "src/a.py", "needs-changes")
    ]
    assert result.evidence["conflicts"] == {"src/a.py": ["w1", "w2"]}
    assert result.verdict_status() == "NEEDS_CHANGES"
    assert normalise_path("a\\b/../c.py") == "a/c.py"


def test_diff_passes_disjoint_changes(ws):
    create_task(ws, "t1", "T")
    _final(ws, "t1", "w1", changedFiles=["a.py"])
    _final(ws, "t1", "w2", changedFiles=["b.py"])
    assert DiffGuardian().verify(_context(ws)).verdict_status() == "PASS"


# --- command --------------------------------------------------------------------------
def _command(ws, run, cwd=".", timeout=30.0):
    create_task(ws, "t1", "T")
    return CommandGuardian().verify(_context(ws, config={"command": {"run": run, "cwd": cwd, "timeoutS": timeout}}))


def test_command_passes_on_exit_zero_with_evidence(ws):
    (ws.root / "proj").mkdir()
    result = _command(
        ws, [sys.executable, "-c", "import os; print('ran in', os.path.basename(os.getcwd()))"], cwd="proj"
    )
    assert result.verdict_status() == "PASS"
    assert result.evidence["exitCode"] == 0 and "ran in proj" in result.evidence["outputTail"]
    assert result.evidence["durationS"] >= 0 and result.evidence["cwd"].endswith("proj")


def test_command_fails_on_non_zero_exit_with_the_output_tail(ws):
    script = "import sys; print('x' * 5000); print('2 tests failed'); sys.exit(3)"
    result = _command(ws, f'{sys.executable} -c "{script}"')
    assert result.verdict_status() == "FAIL"
    assert result.flags[0].code == "exit-code" and "exited with code 3" in result.flags[0].message
    assert result.evidence["exitCode"] == 3
    assert result.evidence["outputTail"].endswith("2 tests failed\n") and len(result.evidence["outputTail"]) == 2000


def test_command_is_stopped_at_its_timeout_with_what_it_left_running(ws):
    started = time.monotonic()
    result = _command(ws, ["sh", "-c", "sleep 30 & sleep 30"], timeout=0.5)
    assert time.monotonic() - started < 5
    assert result.flags[0].code == "timeout" and result.evidence["exitCode"] is None


def test_command_needs_a_configuration_and_a_real_directory(ws):
    create_task(ws, "t1", "T")
    assert CommandGuardian().verify(_context(ws)).flags[0].code == "not-configured"
    bad = CommandGuardian().verify(_context(ws, config={"command": {"run": "true", "cwd": "nowhere"}}))
    assert bad.flags[0].code == "bad-cwd"
    missing = CommandGuardian().verify(_context(ws, config={"command": {"run": "no-such-program-xyz"}}))
    assert missing.flags[0].code == "not-runnable"


# --- process and registry ---------------------------------------------------------------
class _Hang:
    def verify(self, context):
        time.sleep(60)


class _Crash:
    def verify(self, context):
        raise RuntimeError("boom in the guardian")


class _Odd:
    def verify(self, context):
        return 42


def test_thread_runner_turns_hangs_crashes_and_odd_answers_into_fail(ws, monkeypatch):
    monkeypatch.setattr(registry, "_EXTRA", {})
    create_task(ws, "t1", "T")
    for code, guardian in (("t-hang", _Hang), ("t-crash", _Crash), ("t-odd", _Odd)):
        register_guardian(code, guardian)
    hang = run_guardian("t-hang", _context(ws), timeout_s=0.2, isolation="thread").result
    assert hang.verdict_status() == "FAIL" and hang.flags[0].code == "timeout" and hang.evidence["timeoutS"] == 0.2
    crash = run_guardian("t-crash", _context(ws), timeout_s=5, isolation="thread").result
    assert crash.flags[0].code == "crashed" and "RuntimeError: boom in the guardian" in crash.evidence["error"]
    odd = run_guardian("t-odd", _context(ws), timeout_s=5, isolation="thread").result
    assert odd.flags[0].code == "crashed" and "not a guardian result" in odd.evidence["error"]


def test_process_runner_runs_a_builtin_in_a_child(ws):
    create_task(ws, "t1", "T")
    _final(ws, "t1", "w1")
    outcome = run_guardian("schema", _context(ws), timeout_s=30)
    assert outcome.result.verdict_status() == "PASS" and outcome.duration_s > 0


def test_unknown_guardian_names_the_known_ones():
    with pytest.raises(NotFound, match="No guardian 'nope'; guardians are: schema, command, diff, plan"):
        check_code("nope")


def test_status_follows_the_worst_flag():
    def flags(*severities):
        return GuardianResult(flags=[Flag(code="c", severity=s, message="m") for s in severities]).verdict_status()

    assert flags() == "PASS" and flags("info") == "PASS"
    assert flags("info", "needs-changes") == "NEEDS_CHANGES" and flags("needs-changes", "fail") == "FAIL"


# --- plug-ins through entry points, in a real child process ------------------------------
PLUGIN = """
import os, time
from teamdeck.model.guardian import GuardianResult

class Lint:
    code = "lint"
    description = "a plug-in"
    def verify(self, context):
        print("noise on stdout must not break the answer")
        return {"status": "NEEDS_CHANGES", "recommendations": ["rename x"], "evidence": {"task": context.task_id}}

class Hang:
    def verify(self, context):
        time.sleep(600)

class Crash:
    def verify(self, context):
        os._exit(9)
"""


@pytest.fixture
def plugin_path(tmp_path: Path) -> Path:
    """A directory holding a module and a dist-info with ``teamdeck.guardians`` entry points."""
    root = tmp_path / "plugins"
    info = root / "fakeguard-1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: fakeguard\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(
        "[teamdeck.guardians]\nlint = fakeguard:Lint\nhang = fakeguard:Hang\ncrash = fakeguard:Crash\nschema = fakeguard:Crash\n"
    )
    (root / "fakeguard.py").write_text(PLUGIN)
    return root


def test_the_built_ins_are_the_classes_the_registry_imports_each_under_its_own_code():
    """protocol/guardians/registry.py lists the built-ins as classes it imports (a string
    naming a module would hide an import that points back up), each under its ``code``."""
    assert list(registry.BUILTINS) == ["schema", "command", "diff", "plan"]
    assert all(isinstance(found, type) and found.code == code for code, found in registry.BUILTINS.items())


def test_entry_point_plugins_are_found_run_and_contained(ws, plugin_path, monkeypatch):
    monkeypatch.syspath_prepend(str(plugin_path))
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join([str(plugin_path), os.environ.get("PYTHONPATH", "")]))
    assert guardian_codes() == [
        "schema",
        "command",
        "diff",
        "plan",
        "crash",
        "hang",
        "lint",
    ]  # a plug-in cannot replace schema
    create_task(ws, "t1", "T")
    lint = run_guardian("lint", _context(ws), timeout_s=30).result
    assert lint.verdict_status() == "NEEDS_CHANGES" and lint.evidence == {"task": "t1"}
    started = time.monotonic()
    hang = run_guardian("hang", _context(ws), timeout_s=1.0).result
    assert hang.flags[0].code == "timeout" and time.monotonic() - started < 10
    crash = run_guardian("crash", _context(ws), timeout_s=30).result
    assert crash.flags[0].code == "crashed" and crash.evidence["exitCode"] == 9


def test_a_hung_guardian_process_is_killed_not_left_behind(ws, plugin_path, monkeypatch):
    monkeypatch.setenv("PYTHONPATH", str(plugin_path))
    monkeypatch.syspath_prepend(str(plugin_path))
    create_task(ws, "t1", "T")
    run_guardian("hang", _context(ws), timeout_s=0.5)
    leftovers = subprocess.run(
        ["pgrep", "-f", "teamdeck.protocol.guardians.child"], capture_output=True, text=True
    ).stdout.split()
    mine = [
        pid
        for pid in leftovers
        if Path(f"/proc/{pid}/environ").exists()
        and str(plugin_path).encode() in Path(f"/proc/{pid}/environ").read_bytes()
    ]
    assert mine == []
