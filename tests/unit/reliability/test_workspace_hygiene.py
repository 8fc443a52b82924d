"""A read-only workspace (F7), what a crash leaves (F1, F11), names used twice (B21) and
hostile team names (S17), as a fault campaign found them.

Each test reproduces the defect as the issue found it; the read-only cases inject the
mount flag (CI runs as root, where chmod proves nothing) and, where the machine allows
a user namespace, also run the real CLI on a read-only bind mount.
"""

from __future__ import annotations

import errno
import os
import shutil
import signal
import subprocess
import sys
import time
from types import SimpleNamespace

import pytest

from teamdeck.cli.main import disk_refusal
from teamdeck.errors import ReadOnly, Refused, WriteFailed
from teamdeck.protocol.checks.hygiene import STALE_TEMP_S, sweep_temp_files
from teamdeck.protocol.checks.validate import validate_workspace
from teamdeck.protocol.effects.gate_decisions import decide_gate
from teamdeck.protocol.task.create import create_task
from teamdeck.protocol.task.gates import list_gates
from teamdeck.protocol.task.join import join_task
from teamdeck.protocol.team.messaging.sending import send_message
from teamdeck.protocol.team.teams import add_member, create_team
from teamdeck.sim.outputs import write_final_output
from teamdeck.store import locks, workspace
from teamdeck.store.lock_owner import read_owner
from teamdeck.store.paths import InvalidId


@pytest.fixture
def world(ws):
    create_team(ws, "alpha")
    add_member(ws, "alpha", "bob")
    create_task(ws, "t1", "Build it", team="alpha")
    write_final_output(ws, "t1", "w1", {"status": "blocked", "summary": "stuck", "questions": ["Which way?"]})
    join_task(ws, "t1")
    return ws


def files_of(root):
    return {str(path): path.read_bytes() for path in sorted(root.rglob("*")) if path.is_file()}


# --- F7: a read-only mount ----------------------------------------------------------

ACTIONS = {
    "send": lambda ws: send_message(ws, "alpha", "bob", "hi", summary="hi"),
    "join": lambda ws: join_task(ws, "t1"),
    "gate approve": lambda ws: decide_gate(ws, "t1", list_gates(ws, "t1").gates[0].gate.id, "approve"),
    "task create": lambda ws: create_task(ws, "t2", "Another"),
    "team add": lambda ws: add_member(ws, "alpha", "carol"),
}


@pytest.mark.parametrize("action", ACTIONS, ids=list(ACTIONS))
def test_f7_every_write_on_a_read_only_mount_is_one_clear_refusal(world, monkeypatch, action):
    real = os.statvfs
    monkeypatch.setattr(workspace.os, "statvfs", lambda path: SimpleNamespace(f_flag=real(path).f_flag | os.ST_RDONLY))
    before = files_of(world.root)
    with pytest.raises(ReadOnly) as refused:
        ACTIONS[action](world)
    assert f"{world.root} is on a read-only file system (EROFS); nothing was written" in str(refused.value)
    assert str(refused.value).endswith("Use --read-only to look without writing.")
    assert files_of(world.root) == before


def test_f7_forge_serve_refuses_to_start_on_a_read_only_mount(world, monkeypatch, capsys):
    from teamdeck.cli.main import main

    real = os.statvfs
    monkeypatch.setattr(workspace.os, "statvfs", lambda path: SimpleNamespace(f_flag=real(path).f_flag | os.ST_RDONLY))
    monkeypatch.setenv("TEAMDECK_FORGE_SECRET", "s")
    assert main(["--workspace", str(world.root), "forge", "serve", "--listen", "127.0.0.1:0"]) == 1
    assert capsys.readouterr().err.strip() == (
        f"teamdeck: Could not serve Gitea webhooks: {world.root} is on a read-only file system (EROFS); "
        "nothing was written. Use --read-only to look without writing."
    )


def test_f7_the_live_view_opens_read_only_and_says_why(world, monkeypatch):
    from teamdeck.view.refresh.build import build_snapshot

    real = os.statvfs
    monkeypatch.setattr(workspace.os, "statvfs", lambda path: SimpleNamespace(f_flag=real(path).f_flag | os.ST_RDONLY))
    snapshot = build_snapshot(world)
    assert snapshot.read_only
    assert snapshot.read_only_reason == f"{world.root} is on a read-only file system (EROFS)"


def test_f7_a_lock_file_the_disk_refuses_is_a_write_failure_not_an_internal_error(world, monkeypatch):
    def refuse(lock_file, timeout, **options):
        raise OSError(errno.EROFS, "Read-only file system", str(lock_file))

    monkeypatch.setattr(locks, "take_flock", refuse)
    with pytest.raises(WriteFailed, match=r"^could not lock teams/alpha/messages.jsonl: Read-only file system"):
        send_message(world, "alpha", "bob", "hi", summary="hi")


def test_f7_the_cli_names_any_disk_refusal_in_one_line():
    assert disk_refusal(OSError(errno.EROFS, "Read-only file system", "/ws/tasks/t1")) == (
        "Read-only file system (EROFS) on /ws/tasks/t1; the command stopped there. "
        "Use --read-only to look without writing."
    )
    assert disk_refusal(ValueError("a bug")) is None


def _unshare_works() -> bool:
    if shutil.which("unshare") is None:
        return False
    return subprocess.run(["unshare", "-rm", "true"], capture_output=True).returncode == 0


@pytest.mark.skipif(not _unshare_works(), reason="needs a user namespace to mount read-only")
def test_f7_the_real_cli_on_a_read_only_bind_mount(world):
    """The issue's reproduction: send, gate approve, task create and forge serve on a
    read-only mount used to exit 70 ("internal error") or, for the server, start."""
    root = world.root
    gate = list_gates(world, "t1").gates[0].gate.id
    teamdeck = f"{sys.executable} -m teamdeck --workspace {root}"
    script = "; ".join(
        [
            f"mount --bind {root} {root}",
            f"mount -o remount,bind,ro {root}",
            f"{teamdeck} send alpha bob hi --summary hi; echo rc=$?",
            f"{teamdeck} gate approve t1 {gate}; echo rc=$?",
            f"{teamdeck} task create t2 --title T; echo rc=$?",
            f"TEAMDECK_FORGE_SECRET=s timeout 10 {teamdeck} forge serve --listen 127.0.0.1:0; echo rc=$?",
        ]
    )
    env = {**os.environ, "TEAMDECK_WORKSPACE": ""}
    proc = subprocess.run(["unshare", "-rm", "sh", "-c", script], capture_output=True, text=True, env=env, timeout=120)
    assert proc.stdout.split() == ["rc=1"] * 4, proc.stderr
    errors = proc.stderr.strip().splitlines()
    assert len(errors) == 4
    assert all("read-only file system (EROFS)" in line and "--read-only" in line for line in errors), errors


# --- F1, F11: what a crash leaves --------------------------------------------------

TEMPS = [
    "teams/alpha/inboxes/.bob.json.3f2a91c0d4e5.tmp",
    "teams/alpha/.config.json.0b1c2d3e4f5a.tmp",
    "tasks/t1/shared/.human-notes.md.a1b2c3d4e5f6.tmp",
    "tasks/t1/.task.yaml.9a8b7c6d5e4f.tmp",
    "tasks/t1/shared/reports/.joined-summary.md.abcdefabcdef.tmp",
    "teams/alpha/inboxes/.carol.json.k2_x9qzw.tmp",  # ensure_inbox's first "[]" (mkstemp)
    ".teamdeck/intents/.01JD3Z8Y5Q7W1F0G2H3K4M5N6P.json.tmp",  # an intent's, crashed before its replace
]


def plant(ws, relative, age):
    path = ws.root / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(b"half a file")
    then = time.time() - age
    os.utime(path, (then, then))
    return path


def test_f1_temp_files_of_every_kind_left_by_a_crash_are_reported_and_swept(world):
    stale = [plant(world, relative, STALE_TEMP_S + 60) for relative in TEMPS]
    fresh = plant(world, "teams/alpha/inboxes/.bob.json.ffffffffffff.tmp", 1)  # a live writer's
    problems = {problem.path: problem.message for problem in validate_workspace(world)}
    assert set(problems) == set(TEMPS)
    assert all(message.startswith("temp file left by a crash 2 min ago") for message in problems.values())
    assert sorted(sweep_temp_files(world)) == sorted(TEMPS)
    assert not any(path.exists() for path in stale)
    assert fresh.exists()
    assert validate_workspace(world) == []


def test_f1_doctor_reports_every_kind_and_repair_sweeps_them(world, run_cli):
    stale = [plant(world, relative, STALE_TEMP_S + 60) for relative in TEMPS]
    result = run_cli(world.root, "--json", "doctor")
    assert result.code == 1, result.err  # not healthy while a crash's leftovers stay
    assert sorted(line.split(":")[0] for line in result.json["leftovers"]) == sorted(TEMPS)
    result = run_cli(world.root, "--json", "doctor", "--repair")
    assert sorted(line.split(":")[0].removeprefix("removed ") for line in result.json["leftovers"]) == sorted(TEMPS)
    assert not any(path.exists() for path in stale)
    assert run_cli(world.root, "--json", "doctor").json["leftovers"] == []


def test_f1_validate_clean_removes_them_from_the_command_line(world, run_cli):
    plant(world, TEMPS[0], STALE_TEMP_S + 60)
    result = run_cli(world.root, "--json", "validate", "--clean")
    assert result.code == 0, result.err
    assert result.json["removed"] == [TEMPS[0]]
    assert "removed teams/alpha/inboxes/.bob.json.3f2a91c0d4e5.tmp" in result.err


def test_f11_a_left_over_inbox_lock_directory_is_reported(world):
    lock = world.root / "teams/alpha/inboxes/bob.json.lock"
    lock.mkdir()
    then = time.time() - 600
    os.utime(lock, (then, then))
    [problem] = validate_workspace(world)
    assert problem.path == "teams/alpha/inboxes/bob.json.lock"
    assert problem.message.startswith("lock taken 10 min ago and not released")


def test_f11_a_lock_left_by_a_killed_writer_of_ours_is_reported_with_its_owner(world):
    inbox = world.root / "teams/alpha/inboxes/bob.json"
    killed = subprocess.run(
        [
            sys.executable,
            "-c",
            "import os, signal, sys; from pathlib import Path; from teamdeck.store.dirlock import dir_locked\n"
            "with dir_locked(Path(sys.argv[1])):\n    os.kill(os.getpid(), signal.SIGKILL)",
            str(inbox),
        ],
        capture_output=True,
        timeout=60,
    )
    assert killed.returncode == -signal.SIGKILL
    lock = inbox.with_name("bob.json.lock")
    then = time.time() - 600
    os.utime(lock, (then, then))
    owner = read_owner(lock)
    assert owner is not None
    [problem] = validate_workspace(world)
    assert problem.path == "teams/alpha/inboxes/bob.json.lock"
    assert problem.message.startswith(f"lock taken by pid {owner.pid} on host {owner.host} since ")
    assert "(no longer running) 10 min ago and not released" in problem.message


# --- B21: a task named like a team --------------------------------------------------


def test_b21_a_task_named_like_a_team_is_refused(world):
    with pytest.raises(Refused, match=r"^Could not create task 'alpha': team 'alpha' exists and tasks/alpha is its"):
        create_task(world, "alpha", "Hides the task list")
    assert not (world.root / "tasks/alpha/task.yaml").exists()


def test_b21_validate_reports_a_task_that_already_hides_a_team_task_list(world):
    for name in ("task.yaml", "events.jsonl"):
        shutil.copy(world.task_dir("t1") / name, world.root / "tasks/alpha" / name)
    problems = [str(problem) for problem in validate_workspace(world)]
    assert (
        "tasks/alpha: a teamdeck task named like team 'alpha': it hides the team's Claude Code task list; "
        "rename the task" in problems
    )


# --- S17: hostile team names ----------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("a\nb", r"invalid team name 'a\\nb': control or invisible character U\+000A is not allowed"),
        ("ok\u202eexe", r"invalid team name 'ok\\u202eexe': control or invisible character U\+202E is not allowed"),
        ("zero\u200bwidth", r".* U\+200B is not allowed"),
        (".hidden", r"invalid team name '.hidden' \(as a directory: '-hidden'\): use A-Z, a-z"),
    ],
)
def test_s17_team_create_refuses_a_hostile_name_instead_of_renaming_it(ws, name, message):
    with pytest.raises(InvalidId, match=f"^{message}"):
        create_team(ws, name)
    assert not (ws.root / "teams").exists() or not any((ws.root / "teams").iterdir())


def test_s17_an_ordinary_name_is_still_made_a_directory_name_as_claude_code_does(ws):
    assert create_team(ws, "Checkout API").name == "checkout-api"
