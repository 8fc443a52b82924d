"""A runtime owns how its run log reads and is found by name (teamdeck/runtime/registry.py):
a run's log reads through the runtime recorded in its run.yaml, a runtime no longer
installed reads as plain text, and an entry point that cannot be loaded is a mistake of
``.teamdeck.yaml`` named where the runtime is."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from teamdeck.clock import iso
from teamdeck.model.run import RunRecord
from teamdeck.runtime.config import AgentsConfigError, check_agents
from teamdeck.store.runs import write_run
from teamdeck.view.readers.runs import run_output

SAID = json.dumps({"type": "assistant", "message": {"content": [{"type": "text", "text": "parsed it"}]}})


def _run_of(ws, runtime: str, run_id: str) -> RunRecord:
    record = RunRecord(
        id=run_id, team="alpha", member="alice", runtime=runtime, trigger="message", state="ended",
        createdAt=iso(ws.clock()),
    )  # fmt: skip
    (write_run(ws, record) / "output.log").write_text(f"{SAID}\nplain words\n")
    return record


def test_a_runs_log_reads_through_the_runtime_it_ran_with(ws) -> None:
    claude = run_output(ws, _run_of(ws, "claude-code", "r-01"))["output.log"]
    command = run_output(ws, _run_of(ws, "command", "r-02"))["output.log"]
    gone = run_output(ws, _run_of(ws, "uninstalled-since", "r-03"))["output.log"]
    assert claude == "assistant: parsed it\nplain words"
    assert command.splitlines() == [SAID, "plain words"]  # a command's log is its own plain text
    assert gone == command


def test_an_entry_point_that_cannot_be_loaded_is_named_where_its_runtime_is(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    dist = tmp_path / "teamdeck_broken-0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text("Metadata-Version: 2.1\nName: teamdeck-broken\nVersion: 0\n")
    (dist / "entry_points.txt").write_text("[teamdeck.runtimes]\nbroken = no_such_module_here:RUNTIME\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    with pytest.raises(AgentsConfigError) as raised:
        check_agents({"crew/*": {"runtime": "broken", "flavour": 1}, "ops/*": {"runtime": "absent"}})
    lines = str(raised.value).splitlines()
    assert lines[0] == (
        ".teamdeck.yaml agents.\"crew/*\".runtime: runtime 'broken' (no_such_module_here:RUNTIME) cannot be "
        "loaded: ModuleNotFoundError: No module named 'no_such_module_here'"
    )  # and not its settings too: who knows them
    assert lines[1].startswith(".teamdeck.yaml agents.\"ops/*\".runtime: unknown runtime 'absent' (known: ")
    assert "broken, claude-code, command" in lines[1]  # the installed ones are named, unloaded
    assert len(lines) == 2
