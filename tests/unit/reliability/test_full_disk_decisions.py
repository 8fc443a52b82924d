"""F24: a full disk never loses a decision's effects, and never says the decision is done.

A gate decided while the disk is full can be recorded (events.jsonl, task.yaml) and still
fail to write its human-notes.md entry or the worker's message. Those effects are owed:
the decision's intent stays in ``.teamdeck/intents/`` for its completer (the next
command, ``teamdeck doctor --repair``, the TUI at start), and every front says the
decision is not done (the CLI exits 3, like a send not yet confirmed delivered; the
TUI's and ``teamdeck serve``'s action fails). Before, the intent was removed anyway, the
command exited 0, a retry said "already approved" and the worker never heard.

The full disk is the store's seam failing with ``ENOSPC`` (tests/unit/reliability/faults.py),
and, where the test may mount one (as root), a real 3 MB tmpfs left with 16 KB free.
"""

from __future__ import annotations

import errno
import json
import os
import subprocess
from pathlib import Path

import pytest

from teamdeck.cli.main import main
from teamdeck.errors import NotDone
from teamdeck.live import calls
from teamdeck.protocol.common.events import new_event
from teamdeck.protocol.common.intents import pending
from teamdeck.protocol.coordination.delegation import delegate, report
from teamdeck.protocol.effects.gate_decisions import decide_gate
from teamdeck.protocol.effects.interrupted import complete_pending
from teamdeck.protocol.task.create import create_task
from teamdeck.protocol.task.taskfile import load_task, transact
from teamdeck.protocol.team.messaging.sending import send_message
from teamdeck.protocol.team.teams import add_member, create_team
from teamdeck.store import fs
from teamdeck.store.workspace import Workspace
from teamdeck.view.refresh.build import build_snapshot

from .faults import Fault, FaultyFs

INBOX = "*bob.json*"  # the worker's inbox and the temp file it is replaced from
NOTES = "*human-notes.md*"


def blocked(ws: Workspace) -> str:
    """Team alpha's task t1, delegated to bob, who reported blocked: its gate id."""
    create_task(ws, "t1", "Parser", team="alpha")
    delegate(ws, "t1", "bob")
    return (
        report(ws, "t1", "bob", status="blocked", summary="need a decision", questions=["LALR?"]).task.open_gates[0].id
    )


def failed_verification(ws: Workspace, task_id: str = "t1") -> str:
    """Task ``task_id`` of team alpha, bob its worker, blocked on a FAIL gate: its id."""
    create_task(ws, task_id, "Parser", team="alpha")
    delegate(ws, task_id, "bob")
    transact(
        ws,
        task_id,
        lambda task: [
            new_event(
                ws,
                "gate.blocked",
                {"gateId": "g-fail", "kind": "verification-failed", "agentInstance": None, "reason": "FAIL"},
            ),
            new_event(ws, "task.state_changed", {"from": task.state, "to": "input-required", "reason": "FAIL"}),
        ],
        action="open a FAIL gate",
    )
    return "g-fail"


def told(ws: Workspace, gate_id: str) -> int:
    """How many messages about ``gate_id`` bob's inbox holds."""
    path = ws.inbox("alpha", "bob")
    entries = json.loads(path.read_text()) if path.exists() else []
    return sum(1 for entry in entries if entry.get("summary", "").startswith(f"gate {gate_id} "))


def noted(ws: Workspace, gate_id: str) -> bool:
    """human-notes.md of t1 holds the decision of ``gate_id``."""
    path = ws.human_notes("t1")
    return path.exists() and f"<!-- teamdeck:decision {gate_id} -->" in path.read_text()


def disk_full(name: str) -> FaultyFs:
    """The seam failing every write of the files ``name`` matches, as a full disk would."""
    return FaultyFs(Fault("write", errno.ENOSPC, name=name))


def intents(ws: Workspace) -> list[str]:
    """The actions of the intents left in the workspace."""
    found, problems = pending(ws)
    assert problems == []
    return [item.action for item in found]


@pytest.mark.parametrize("failing", [INBOX, NOTES])
def test_f24_a_decision_whose_effects_hit_a_full_disk_keeps_them_owed_until_done(team, failing):
    """The decision is recorded; what failed is listed in ``owed`` and its intent kept;
    the next command's recovery, once the disk has room, writes the note and tells the
    worker exactly once, and leaves no intent."""
    ws = team
    gate_id = blocked(ws)
    with fs.installed(disk_full(failing)) as faulty:
        change = decide_gate(ws, "t1", gate_id, "approve", "go")
    assert faulty.fired
    assert change.task.gate(gate_id).state == "approved"
    assert change.owed and all("No space left on device" in line for line in change.owed)
    assert any("is kept" in notice for notice in change.notices)
    assert intents(ws) == ["gate.decide"]
    assert (told(ws, gate_id), noted(ws, gate_id)) != (1, True)  # something really was left undone

    with fs.installed(disk_full(failing)):
        lines = complete_pending(ws)  # the disk still full: tried, kept, said
    assert any("could not finish" in line for line in lines) and intents(ws) == ["gate.decide"]

    complete_pending(ws)  # room again: what the next command does first
    assert intents(ws) == []
    assert told(ws, gate_id) == 1 and noted(ws, gate_id)
    complete_pending(ws)
    assert told(ws, gate_id) == 1


def test_f24_a_decision_with_every_effect_done_leaves_no_intent_and_owes_nothing(team):
    """The ordinary case is unchanged: nothing owed, no intent left."""
    ws = team
    gate_id = blocked(ws)
    change = decide_gate(ws, "t1", gate_id, "approve", "go")
    assert change.owed == () and intents(ws) == [] and told(ws, gate_id) == 1


def run(root: Path, *argv: str) -> int:
    """``teamdeck -w ROOT ARGV`` in-process (the seam installed by the test applies)."""
    return main(["--workspace", str(root), *argv])


@pytest.mark.parametrize(
    "command",
    [
        ("gate", "approve", "t1", "{gate}", "--note", "go"),
        ("gate", "reject", "t1", "{gate}", "--note", "no"),
        ("decisions", "decide", "{key}", "reject", "--note", "no"),
        ("decisions", "decide", "{key}", "approve"),
    ],
    ids=["gate-approve", "gate-reject", "decisions-reject", "decisions-approve"],
)
def test_f24_the_cli_exits_3_while_a_decision_is_owed_and_doctor_repair_tells_the_worker(team, capsys, command):
    """``gate approve|reject`` and ``decisions decide`` with the worker's inbox on a full
    disk: exit 3 and "NOT DONE YET"; ``doctor --repair`` then tells the worker, once, and
    a second answer is refused as already decided without telling again."""
    ws = team
    gate_id = blocked(ws)
    [decision] = build_snapshot(ws).decisions
    argv = [part.format(gate=gate_id, key=decision.key) for part in command]
    with fs.installed(disk_full(INBOX)):
        code = run(ws.root, *argv)
    out = capsys.readouterr()
    assert code == 3, out.err
    assert "NOT DONE YET" in out.out  # what failed is logged as warnings
    assert intents(ws) == ["gate.decide"] and told(ws, gate_id) == 0

    assert run(ws.root, "doctor", "--repair") in (0, 1)  # healthy or not, for other reasons
    assert intents(ws) == [] and told(ws, gate_id) == 1
    assert run(ws.root, "gate", "approve", "t1", gate_id) == 1  # already decided
    assert told(ws, gate_id) == 1


def test_f24_task_retry_exits_3_while_its_fail_gate_decision_is_owed(team, capsys):
    """``task retry`` approves the FAIL gate like any decision: owed effects, exit 3."""
    ws = team
    gate_id = failed_verification(ws)
    with fs.installed(disk_full(INBOX)):
        code = run(ws.root, "task", "retry", "t1")
    assert code == 3 and "NOT DONE YET" in capsys.readouterr().out
    assert load_task(ws, "t1").gate(gate_id).state == "approved" and intents(ws) == ["gate.decide"]
    run(ws.root, "doctor", "--repair")
    assert told(ws, gate_id) == 1


def test_f24_the_tui_and_serve_actions_fail_while_a_decision_is_owed(team):
    """The TUI's keys and ``teamdeck serve`` run live/calls.py's actions: an answer or a
    retry whose effects are owed raises NotDone (the action runner shows a failure, serve
    answers ``ok: false``) with the line that says what failed and what is kept."""
    ws = team
    gate_id = blocked(ws)
    [decision] = build_snapshot(ws).decisions
    with fs.installed(disk_full(INBOX)), pytest.raises(NotDone, match="is kept") as answered:
        calls.answer(decision, "approve", "go").call(ws)
    assert f"gate {gate_id} of task t1 approved" in str(answered.value) and answered.value.exit_code == 3

    failed = failed_verification(ws, "t2")
    with fs.installed(disk_full(INBOX)), pytest.raises(NotDone, match="No space left on device"):
        calls.retry_task("t2", None).call(ws)
    assert load_task(ws, "t2").gate(failed).state == "approved"
    complete_pending(ws)
    assert intents(ws) == [] and told(ws, gate_id) == 1


@pytest.fixture
def small_disk(tmp_path: Path):
    """A real 3 MB tmpfs at ``tmp_path/disk`` (root can mount one), unmounted after."""
    mount = tmp_path / "disk"
    mount.mkdir()
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=3m", "tmpfs", str(mount)], capture_output=True, text=True, check=False
    )
    if done.returncode != 0:
        pytest.skip(f"cannot mount a small tmpfs here (needs root): {done.stderr.strip()}")
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], check=False)


def fill(disk: Path, leave: int) -> Path:
    """Fill ``disk`` until only about ``leave`` bytes are free; returns the filler file."""
    stats = os.statvfs(disk)
    filler = disk / "filler"
    filler.write_bytes(bytes(stats.f_bavail * stats.f_frsize - leave))
    return filler


def test_f24_a_gate_approved_on_a_really_full_disk_exits_3_and_is_finished_once_space_is_freed(small_disk, run_cli):
    """The fault campaign's case on a real disk: 16 KB free, bob's inbox (40 earlier
    messages) bigger than that. ``gate approve`` records the decision and exits 3 with
    its intent kept; once space is freed ``doctor --repair`` tells bob, once."""
    root = small_disk / "ws"
    root.mkdir()
    ws = Workspace.at(root, actor="human:tester")
    create_team(ws, "alpha")
    add_member(ws, "alpha", "bob")
    gate_id = blocked(ws)
    for number in range(40):
        send_message(ws, "alpha", "bob", "earlier work " * 40, summary=f"note {number}")
    filler = fill(small_disk, 16 * 1024)

    approved = run_cli(root, "gate", "approve", "t1", gate_id, "--note", "go")
    assert approved.code == 3, approved.err
    assert "NOT DONE YET" in approved.out and "No space left on device" in approved.err
    assert load_task(ws, "t1").gate(gate_id).state == "approved"
    assert intents(ws) == ["gate.decide"] and told(ws, gate_id) == 0

    filler.unlink()
    assert run_cli(root, "doctor", "--repair").code in (0, 1)  # healthy or not, for other reasons
    assert intents(ws) == [] and told(ws, gate_id) == 1
    again = run_cli(root, "gate", "approve", "t1", gate_id)
    assert again.code == 1 and told(ws, gate_id) == 1
