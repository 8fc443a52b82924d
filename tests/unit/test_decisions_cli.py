"""``teamdeck decisions``: ``decisions list`` is the TUI's queue, and
``decisions decide KEY approve|reject`` answers every kind through its spec, writing
exactly what the kind's old verb writes (the old verbs stay, as aliases).

The old verb and the new one run in-process on two copies of one workspace, on the same
fixed clock, and every file of the two copies is compared (ULIDs, random by nature,
masked)."""

from __future__ import annotations

import re
import shutil
from datetime import datetime
from pathlib import Path

import pytest
from support import decision_world as world
from support import small_worlds
from support.locations import FIXTURES

from teamdeck.cli.common import Output
from teamdeck.cli.main import build_parser
from teamdeck.errors import NotFound, Refused
from teamdeck.protocol.team.messaging.handshake_writes import request_shutdown
from teamdeck.store.workspace import Workspace
from teamdeck.view.refresh.build import build_snapshot

ULID = re.compile(r"\b[0-9A-HJKMNP-TV-Z]{26}\b")


def cli(ws: Workspace, *argv: str) -> Output:
    """Run one command in-process on ``ws`` (its clock and actor), as ``teamdeck`` would."""
    args = build_parser(argv[0]).parse_args([*argv])
    return args.handler(args, ws)


def files(root: Path) -> dict[str, str]:
    """Every file under ``root``, ULIDs masked; lock files and teamdeck's bookkeeping
    (``.teamdeck/``: intents and the observed inbox record, stamped with the real clock on
    purpose, and written by any read of the inboxes) left out."""
    return {
        str(path.relative_to(root)): ULID.sub("<ULID>", path.read_text(errors="replace"))
        for path in sorted(root.rglob("*"))
        if path.is_file()
        and not path.name.endswith(".lock")
        and ".lock" not in path.parts[-1]
        and ".teamdeck" not in path.relative_to(root).parts
    }


def twins(ws: Workspace, tmp_path: Path) -> tuple[Workspace, Workspace]:
    """Two copies of ``ws`` on clocks standing at its clock's time."""
    now: datetime = ws.clock()
    copies = []
    for name in ("old", "new"):
        root = tmp_path / name
        shutil.copytree(ws.root, root)
        copies.append(Workspace.at(root, clock=world.MovableClock(now), actor="human:tester"))
    return copies[0], copies[1]


@pytest.fixture
def team_ws(tmp_path: Path) -> Workspace:
    return world.team_workspace(tmp_path / "ws")


def test_decide_a_task_gate_writes_what_gate_reject_writes(team_ws: Workspace, tmp_path: Path) -> None:
    small_worlds.blocked_task(team_ws)
    [gate] = build_snapshot(team_ws).decisions
    old, new = twins(team_ws, tmp_path)
    cli(old, "gate", "reject", gate.task_id or "", gate.gate_id or "", "--note", "use LALR")
    out = cli(new, "decisions", "decide", gate.key, "reject", "--note", "use LALR")
    assert out.data["kind"] == "task-gate" and out.data["answer"] == "reject"
    assert files(old.root) == files(new.root)
    assert build_snapshot(new).decisions == ()


def test_decide_a_plan_writes_what_plan_approve_writes(team_ws: Workspace, tmp_path: Path) -> None:
    small_worlds.plan_request(team_ws, "alpha", "bob")
    [plan] = build_snapshot(team_ws).decisions
    old, new = twins(team_ws, tmp_path)
    cli(old, "plan", "approve", "alpha", "bob", "--request-id", "plan-1", "--feedback", "go")
    out = cli(new, "decisions", "decide", plan.key, "approve", "--note", "go")
    assert out.text == "plan of bob approved (plan-1)"
    assert files(old.root) == files(new.root)


@pytest.mark.parametrize(("word", "old_verb"), [("approve", "approve"), ("deny", "deny")])
def test_decide_a_permission_request_writes_what_permission_verbs_write(
    team_ws: Workspace, tmp_path: Path, word: str, old_verb: str
) -> None:
    world.ask_permission(team_ws, "alpha", "bob", "perm-1")
    [request] = build_snapshot(team_ws).decisions
    old, new = twins(team_ws, tmp_path)
    cli(old, "permission", old_verb, "alpha", "bob", "perm-1", "--note", "careful")
    cli(new, "decisions", "decide", request.key, word, "--note", "careful")
    assert files(old.root) == files(new.root)
    assert build_snapshot(new).decisions == ()


def test_decide_a_stuck_shutdown_resend_and_force_write_what_the_old_verbs_write(
    team_ws: Workspace, tmp_path: Path
) -> None:
    request_shutdown(team_ws, "alpha", "alice")
    team_ws.clock.advance(121)
    [stuck] = build_snapshot(team_ws).decisions
    assert stuck.kind == "shutdown-stuck"
    old, new = twins(team_ws, tmp_path / "resend")
    cli(old, "shutdown", "alpha", "alice", "--resend", "--reason", "still there?")
    cli(new, "decisions", "decide", stuck.key, "approve", "--note", "still there?")
    assert files(old.root) == files(new.root)
    old, new = twins(team_ws, tmp_path / "force")
    cli(old, "member", "deactivate", "alpha", "alice", "--force", "--reason", "gone")
    out = cli(new, "decisions", "decide", stuck.key, "force", "--note", "gone")
    assert out.data["isActive"] is False
    assert files(old.root) == files(new.root)


def test_a_missing_required_note_and_a_wrong_answer_write_nothing(team_ws: Workspace, tmp_path: Path) -> None:
    small_worlds.blocked_task(team_ws)
    world.ask_permission(team_ws, "alpha", "bob", "perm-1")
    before = files(team_ws.root)
    by_kind = {decision.kind: decision for decision in build_snapshot(team_ws).decisions}
    gate, permission = by_kind["task-gate"], by_kind["permission"]
    with pytest.raises(Refused, match="note is required"):
        cli(team_ws, "decisions", "decide", gate.key, "reject")
    with pytest.raises(Refused, match="no answer to"):
        cli(team_ws, "decisions", "decide", permission.key, "resend")
    with pytest.raises(NotFound, match="decisions list"):
        cli(team_ws, "decisions", "decide", "task:t1:g-nope", "approve")
    assert files(team_ws.root) == before


def test_a_wrong_answer_names_the_kinds_own_words_only_when_they_are_other_words(team_ws: Workspace) -> None:
    """A gate's own answers are approve and reject: said once; a permission's are
    allow and deny: said after approve or reject, which also answer it."""
    small_worlds.blocked_task(team_ws)
    world.ask_permission(team_ws, "alpha", "bob", "perm-1")
    by_kind = {decision.kind: decision for decision in build_snapshot(team_ws).decisions}
    with pytest.raises(Refused) as gate:
        cli(team_ws, "decisions", "decide", by_kind["task-gate"].key, "maybe")
    assert str(gate.value).endswith(": use approve or reject")
    with pytest.raises(Refused) as permission:
        cli(team_ws, "decisions", "decide", by_kind["permission"].key, "maybe")
    assert str(permission.value).endswith(": use approve or reject (allow or deny)")


def test_decisions_help_says_what_the_command_is_for(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        build_parser("decisions").parse_args(["decisions", "--help"])
    usage, description = capsys.readouterr().out.split("\n\n")[:2]
    assert usage.startswith("usage: teamdeck decisions")
    assert description.startswith("The decisions waiting for a person") and "decide KEY" in description


def test_list_is_the_queue_oldest_first_with_stable_keys_on_the_captured_fixture(tmp_path: Path, run_cli) -> None:
    root = tmp_path / "synthesized"
    shutil.copytree(FIXTURES / "synthesized", root)
    listed = run_cli(root, "decisions", "list", "--json").json
    keys = [decision["key"] for decision in listed["decisions"]]
    assert "permission:fixture-team:worker-b:perm-fixture-0001" in keys
    assert keys == [gate.key for gate in build_snapshot(Workspace.at(root, read_only=True)).decisions]
    times = [decision["createdAt"] for decision in listed["decisions"]]
    assert times == sorted(times)
    [permission] = [decision for decision in listed["decisions"] if decision["kind"] == "permission"]
    assert (permission["label"], permission["tool"], permission["answers"]["approve"]["action"]) == (
        "permit",
        "Bash",
        "allow",
    )
    assert run_cli(root, "decisions", "list", "--json").json["decisions"] == listed["decisions"]  # stable
    text = run_cli(root, "decisions", "list").out
    assert "permission:fixture-team:worker-b:perm-fixture-0001" in text and "[allow|deny]" in text
