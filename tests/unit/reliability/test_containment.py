"""Symbolic links out of the workspace (docs/reliability.md S16).

Each case plants what an agent could: a file or a directory of the workspace moved
outside and replaced by a link to it, so following the link would "work". Before the
fix every action here wrote (or read) outside the workspace and reported success.
Now each is refused with one clear message, the outside bytes stay as they were, and
``teamdeck validate`` names the link.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from teamdeck.errors import TeamdeckError
from teamdeck.formats.claude_code.inbox import read_inbox
from teamdeck.protocol.checks.validate import validate_workspace
from teamdeck.protocol.effects.gate_decisions import decide_gate
from teamdeck.protocol.task.gates import list_gates
from teamdeck.protocol.task.join import join_task
from teamdeck.protocol.team.messaging.sending import send_message
from teamdeck.protocol.team.teams import read_team
from teamdeck.sim.outputs import write_final_output
from teamdeck.store.paths import EscapesWorkspace, beneath
from teamdeck.store.workspace import Workspace


def move_out(ws: Workspace, relative: str, outside: Path) -> Path:
    """Move ``relative`` (a file or directory of the workspace) to ``outside`` and put a
    symbolic link to it in its place (absolute, as a careless script would)."""
    source = ws.root / relative
    target = outside / relative.replace("/", "__")
    outside.mkdir(exist_ok=True)
    shutil.move(source, target)
    source.symlink_to(target)
    return target


def contents(directory: Path) -> dict[str, bytes]:
    return {str(path): path.read_bytes() for path in sorted(directory.rglob("*")) if path.is_file()}


def approve(ws: Workspace):
    gate = list_gates(ws, "t1").gates[0].gate
    return decide_gate(ws, "t1", gate.id, "approve")


def send(ws: Workspace):
    return send_message(ws, "alpha", "bob", "second", summary="second")


WRITES = [
    ("teams/alpha/messages.jsonl", send),
    ("teams/alpha", send),
    ("teams/alpha/inboxes", send),
    ("teams/alpha/inboxes/bob.json", send),
    ("teams/alpha/config.json", send),
    ("tasks/t1/events.jsonl", approve),
    ("tasks/t1/task.yaml", approve),
    ("tasks/t1", approve),
]


@pytest.mark.parametrize(("linked", "action"), WRITES, ids=[linked for linked, _ in WRITES])
def test_s16_an_action_through_a_link_out_is_refused_and_nothing_outside_changes(world, tmp_path, linked, action):
    outside = tmp_path / "outside"
    move_out(world, linked, outside)
    before = contents(outside)
    with pytest.raises(TeamdeckError, match="outside the workspace; not followed"):
        action(world)
    assert contents(outside) == before


def outcome(action, ws: Workspace) -> str:
    """What an action told the person: its error, or its notices (a join or a decision
    whose human-notes.md could not be written is still recorded, and says so)."""
    try:
        return " ".join(action(ws).notices)
    except TeamdeckError as err:
        return str(err)


def join_again(ws: Workspace):
    write_final_output(ws, "t1", "w2", {"status": "completed", "summary": "done"})
    return join_task(ws, "t1")


@pytest.mark.parametrize("linked", ["tasks/t1/shared", "tasks/t1/shared/reports", "tasks/t1/shared/human-notes.md"])
def test_s16_joins_and_notes_never_write_through_a_link_out(world, tmp_path, linked):
    outside = tmp_path / "outside"
    move_out(world, linked, outside)
    before = contents(outside)
    told = outcome(approve, world) + outcome(join_again, world)
    assert "outside the workspace; not followed" in told
    assert contents(outside) == before


def test_s16_a_linked_inbox_or_config_is_not_read_through(world, tmp_path):
    move_out(world, "teams/alpha/inboxes/bob.json", tmp_path / "outside")
    with pytest.raises(TeamdeckError, match=r"teams/alpha/inboxes/bob\.json is a symbolic link to .*outside"):
        read_inbox(world.inbox("alpha", "bob"))
    move_out(world, "teams/alpha/config.json", tmp_path / "outside")
    with pytest.raises(TeamdeckError, match=r"teams/alpha/config\.json is a symbolic link to .*outside"):
        read_team(world, "alpha")


def test_s16_a_link_that_stays_inside_the_workspace_is_followed(world):
    """Only links out are refused: a team directory moved elsewhere in the workspace works."""
    (world.root / "teams" / "alpha").rename(world.root / "alpha-real")
    (world.root / "teams" / "alpha").symlink_to("../alpha-real")
    assert send(world).confirmed
    assert beneath(world.inbox("alpha", "bob")) == world.inbox("alpha", "bob")


def test_s16_paths_outside_every_workspace_are_not_checked(tmp_path):
    elsewhere = tmp_path / "not-a-workspace" / "file"
    assert beneath(elsewhere) is elsewhere


def test_s16_the_refusal_is_an_oserror_naming_the_link_and_its_target(world, tmp_path):
    target = move_out(world, "teams/alpha", tmp_path / "outside")
    with pytest.raises(EscapesWorkspace) as refused:
        beneath(world.messages_log("alpha"))
    assert refused.value.strerror == f"teams/alpha is a symbolic link to {target}, outside the workspace; not followed"


def test_s16_a_linked_lock_file_gives_one_clear_line_not_an_internal_error(world, tmp_path, run_cli):
    lock = world.root / "teams/alpha/messages.jsonl.lock"
    lock.unlink(missing_ok=True)
    lock.symlink_to(world.root / "teams/alpha/config.json")  # inside: a lock is never taken through a link
    result = run_cli(world.root, "send", "alpha", "bob", "hello", "--summary", "hello")
    assert result.code == 1, result.err
    assert result.err.strip().splitlines() == [
        "teamdeck: could not lock teams/alpha/messages.jsonl: it is a symbolic link (messages.jsonl.lock); nothing was written"
    ]
    lock.unlink()
    lock.symlink_to(tmp_path / "elsewhere.lock")
    result = run_cli(world.root, "send", "alpha", "bob", "hello", "--summary", "hello")
    assert result.code == 1
    assert "messages.jsonl.lock is a symbolic link to" in result.err
    assert not (tmp_path / "elsewhere.lock").exists()


def test_s16_validate_names_every_link_out_once(world, tmp_path):
    outside = tmp_path / "outside"
    linked = [
        "teams/alpha/messages.jsonl",
        "teams/alpha/inboxes/bob.json",
        "tasks/t1/events.jsonl",
        "tasks/t1/shared/human-notes.md",
    ]
    for relative in linked:
        move_out(world, relative, outside)
    os.symlink(tmp_path / "gone.lock", world.root / "teams/alpha/config.json.lock")
    problems = validate_workspace(world)
    about_links = [problem for problem in problems if "outside the workspace" in problem.message]
    assert sorted(problem.path for problem in about_links) == sorted([*linked, "teams/alpha/config.json.lock"])
    assert len(about_links) == len(problems), [str(problem) for problem in problems]
    assert str(about_links[0]).startswith(f"{about_links[0].path}: symbolic link to ")


def test_s16_the_live_view_names_a_linked_log_and_shows_none_of_its_lines(world, tmp_path):
    from teamdeck.view.refresh.build import build_snapshot

    target = move_out(world, "tasks/t1/events.jsonl", tmp_path / "outside")
    target.write_bytes(target.read_bytes() + b'{"id":"01OUTSIDE0000000000000000","type":"secret"}\n')
    snapshot = build_snapshot(world)
    assert not any(row.kind == "secret" for row in snapshot.events)
    assert not any(row.source == "task t1" for row in snapshot.events)
    assert any("tasks/t1/events.jsonl is a symbolic link to" in str(problem) for problem in snapshot.problems)


def test_s16_a_link_inside_that_leads_to_a_link_out_is_refused_naming_the_second(world, tmp_path):
    (world.root / "teams" / "alpha").rename(world.root / "alpha-real")
    (world.root / "teams" / "alpha").symlink_to("../alpha-real")
    target = move_out(world, "alpha-real/inboxes", tmp_path / "outside")
    with pytest.raises(EscapesWorkspace) as refused:
        beneath(world.inbox("alpha", "bob"))
    assert (
        refused.value.strerror
        == f"teams/alpha/inboxes is a symbolic link to {target}, outside the workspace; not followed"
    )
