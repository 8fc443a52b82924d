"""F17, F18, F23: a crash at any point of an action that writes several files loses nothing
and doubles nothing.

Each action is first run in-process with a seam that records every crash point it
passes. Then, for each of those points, the action runs in a fresh copy of the world in
a subprocess that kills itself there (``TEAMDECK_CRASH_AT``), recovery runs (what the
next command does: ``complete_pending``; for a webhook, also Gitea's redelivery), and
the result must be one of the two allowed: the action complete (the gate approved, its
decision in human-notes.md, the worker told exactly once; every message exactly once)
or, when it was never acknowledged, not done at all.
"""

from __future__ import annotations

import ast
import json
import random
import shutil
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest
from support.forge_world import STORY, delivery, make_team, story_until

from teamdeck.protocol.common.intents import pending
from teamdeck.protocol.coordination.delegation import delegate, report
from teamdeck.protocol.effects.gate_decisions import decide_gate
from teamdeck.protocol.effects.interrupted import complete_pending, completers
from teamdeck.protocol.forge.deliveries import receive
from teamdeck.protocol.forge.issues import load_issue
from teamdeck.protocol.task.create import create_task
from teamdeck.protocol.task.join import join_task
from teamdeck.protocol.task.taskfile import load_task
from teamdeck.protocol.team.messaging.sending import send_message
from teamdeck.protocol.team.teams import add_member, create_team
from teamdeck.store import fs as fs_seam
from teamdeck.store.fs import CRASH_ENV
from teamdeck.store.workspace import Workspace

from .procs import WORKER, expect_line, release, spawn

PROTOCOL = Path(__file__).parents[3] / "src" / "teamdeck" / "protocol"


def test_every_action_that_records_an_intent_has_its_completer_in_the_one_table() -> None:
    """protocol/effects/interrupted.py lists who finishes each action: one that records an
    intent (``intent(ws, "action", ...)`` anywhere in protocol/) without its row there
    would stay unfinished after a crash, and an action no module registers is no hidden
    import away."""
    actions = {
        node.args[1].value
        for path in PROTOCOL.rglob("*.py")
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.func.id == "intent"
        and len(node.args) >= 2
        and isinstance(node.args[1], ast.Constant)
    }
    assert actions == set(completers()) == {"gate.decide", "send", "delegate", "report", "join", "nudge"}


pytestmark = pytest.mark.slow


class Recorder(fs_seam.OsFs):
    """The real filesystem, noting each crash point passed (in order, each once)."""

    def __init__(self) -> None:
        self.points: list[str] = []

    def crash_point(self, name: str) -> None:
        if name not in self.points:
            self.points.append(name)


def crash_points(action) -> list[str]:
    with fs_seam.installed(Recorder()) as recorder:
        action()
    return recorder.points


def run_crashing(point: str, *args: object) -> subprocess.CompletedProcess[str]:
    """Run a worker.py role that dies at ``point``; it must die (or, for a point it does
    not reach on this run, finish)."""
    done = subprocess.run(
        [sys.executable, str(WORKER), *map(str, args)],
        capture_output=True,
        text=True,
        timeout=60,
        env={**__import__("os").environ, CRASH_ENV: point},
    )
    assert done.returncode in (0, -signal.SIGKILL), done.stderr
    return done


def crashed_worlds(tmp_path: Path, build, action, role: str, *args: object) -> list[tuple[str, Workspace, bool]]:
    """Build a world, find the crash points ``action(ws)`` passes on a copy of it, then
    for each point: a fresh copy, the worker.py ``role`` killed there (``args`` after the
    copy's root), recovery as the next command runs it. Returns ``(point, the recovered
    workspace, whether the action was acknowledged)`` for each point."""
    world = tmp_path / "world"
    world.mkdir()
    build(Workspace.at(world, actor="human:tester"))
    probe = tmp_path / "probe"
    shutil.copytree(world, probe)
    results = []
    for point in crash_points(lambda: action(Workspace.at(probe))):
        root = tmp_path / point
        shutil.copytree(world, root)
        done = run_crashing(point, role, root, *args)
        ws = Workspace.at(root, actor="human:tester")
        complete_pending(ws)  # what the next command does first
        assert pending(ws) == ([], []), point
        results.append((point, ws, "done" in done.stdout))
    return results


def inbox_of(ws: Workspace, team: str, member: str) -> list[dict]:
    path = ws.inbox(team, member)
    return json.loads(path.read_text()) if path.exists() else []


def texts(ws: Workspace, team: str, member: str) -> Counter[tuple[str, str]]:
    return Counter((entry["summary"], entry["text"]) for entry in inbox_of(ws, team, member) if "summary" in entry)


# --- gate decide ------------------------------------------------------------------------


def _blocked_gate(ws: Workspace) -> None:
    create_team(ws, "alpha")
    add_member(ws, "alpha", "bob")
    create_task(ws, "t1", "Parser", team="alpha")
    delegate(ws, "t1", "bob")
    report(ws, "t1", "bob", status="blocked", summary="need a decision", questions=["LALR?"])


def _told(ws: Workspace, gate_id: str) -> int:
    return sum(1 for entry in inbox_of(ws, "alpha", "bob") if entry.get("summary") == f"gate {gate_id} approved")


GATE = "g-bob-1"


def test_f17_a_gate_approval_crashed_at_any_point_is_complete_after_recovery_or_not_done(tmp_path):
    worlds = crashed_worlds(
        tmp_path, _blocked_gate, lambda ws: decide_gate(ws, "t1", GATE, "approve", "go ahead"), "decide", "t1", GATE
    )
    points = {point for point, _ws, _acknowledged in worlds}
    assert {"intent.recorded", "task.after_replace", "notes.after_replace", "inbox.after_replace"} <= points
    outcomes: Counter[str] = Counter()
    for point, ws, acknowledged in worlds:
        gate = load_task(ws, "t1").gate(GATE)
        decided = f"<!-- teamdeck:decision {GATE} -->" in ws.human_notes("t1").read_text()
        if gate.state == "approved":
            assert decided and _told(ws, GATE) == 1, point
            outcomes["complete"] += 1
        else:
            assert not acknowledged, f"{point}: acknowledged but not done"
            assert gate.state == "blocked" and not decided and _told(ws, GATE) == 0, point
            outcomes["not done"] += 1
    assert outcomes["complete"] > 0 and outcomes["not done"] > 0  # both kinds of crash happened


# --- delegation and report -----------------------------------------------------------------


def _team_task(ws: Workspace) -> None:
    create_team(ws, "alpha")
    add_member(ws, "alpha", "bob")
    create_task(ws, "t1", "Parser", team="alpha")


def _delegated(ws: Workspace) -> None:
    _team_task(ws)
    delegate(ws, "t1", "bob")


def _assignments(ws: Workspace) -> int:
    return sum(
        1 for entry in inbox_of(ws, "alpha", "bob") if '"type":"task_assignment"' in entry["text"].replace(" ", "")
    )


def test_f17_a_delegation_crashed_at_any_point_is_complete_after_recovery_or_not_done(tmp_path):
    worlds = crashed_worlds(tmp_path, _team_task, lambda ws: delegate(ws, "t1", "bob"), "delegate-to", "t1", "bob")
    assert "inbox.after_replace" in {point for point, _ws, _acknowledged in worlds}
    for point, ws, acknowledged in worlds:
        if any(worker.member == "bob" for worker in load_task(ws, "t1").workers):
            assert _assignments(ws) == 1, point  # recorded: the assignment arrives, once
        else:
            assert not acknowledged and _assignments(ws) == 0, point


def test_f17_a_report_crashed_at_any_point_is_complete_after_recovery_or_not_done(tmp_path):
    def blocked(ws: Workspace) -> None:
        report(ws, "t1", "bob", status="blocked", summary="stuck", questions=["A or B?"])

    worlds = crashed_worlds(tmp_path, _delegated, blocked, "report-blocked", "t1", "bob")
    assert "final.after_replace" in {point for point, _ws, _acknowledged in worlds}
    for point, ws, acknowledged in worlds:
        told = sum(1 for entry in inbox_of(ws, "alpha", "team-lead") if "stuck" in entry["text"])
        events = [json.loads(line) for line in ws.events_file("t1").read_text().splitlines()]
        reported = sum(1 for event in events if event["type"] == "worker.reported")
        if ws.final_output("t1", "bob").exists():
            assert len(load_task(ws, "t1").open_gates) == 1 and told == 1, point  # joined, the lead told once
            assert "A or B?" in ws.human_notes("t1").read_text(), point
            assert reported == 1, point  # recorded once, not again by the completer (F17)
        else:
            assert not acknowledged and told == 0 and reported == 0, point


def test_f17_a_join_crashed_at_any_point_is_complete_after_recovery(tmp_path):
    def blocked_output(ws: Workspace) -> None:
        _delegated(ws)
        final = ws.final_output("t1", "bob")
        final.parent.mkdir(parents=True)
        final.write_text(json.dumps({"status": "blocked", "summary": "stuck", "questions": ["A or B?"]}))

    worlds = crashed_worlds(tmp_path, blocked_output, lambda ws: join_task(ws, "t1"), "join", "t1")
    assert {"report.after_replace", "notes.after_replace"} <= {point for point, _ws, _acknowledged in worlds}
    for point, ws, _acknowledged in worlds:  # a join is never acknowledged half-way: it is finished
        gates = load_task(ws, "t1").open_gates
        assert len(gates) == 1 and gates[0].agentInstance == "bob", point
        assert "A or B?" in ws.human_notes("t1").read_text(), point
        assert (ws.reports_dir("t1") / "joined-summary.json").exists(), point


# --- send ---------------------------------------------------------------------------------


def _team(ws: Workspace) -> None:
    create_team(ws, "alpha")
    add_member(ws, "alpha", "bob")


def test_f17_a_send_crashed_at_any_point_is_delivered_once_after_recovery_or_not_at_all(tmp_path):
    worlds = crashed_worlds(
        tmp_path,
        _team,
        lambda ws: send_message(ws, "alpha", "bob", "hello", summary="crash test"),
        "send",
        "alpha",
        "bob",
        "hello",
    )
    assert {"intent.recorded", "inbox.after_tmp_write", "inbox.after_replace"} <= {p for p, _ws, _a in worlds}
    for point, ws, acknowledged in worlds:
        got = texts(ws, "alpha", "bob")[("crash test", "hello")]
        log = ws.messages_log("alpha")
        logged = log.exists() and '"text":"hello"' in log.read_text()
        assert got == (1 if logged else 0), point  # a logged send arrives once; an unlogged one never did
        assert got == 1 or not acknowledged, point


# --- webhook deliveries ----------------------------------------------------------------------

DELIVERIES = ("issue-comment-created-100-guanyu", "issues-opened-sub-101", "pull-request-review-rejected-104")
"""A mention, an assignment, a review asking for changes: the messages that were sent twice."""


def _forge_world(root: Path, upto: str) -> Workspace:
    ws = Workspace.at(root)
    make_team(ws)
    for name in STORY[: STORY.index(upto)]:
        headers, body = delivery(name)
        assert receive(ws, headers, body).to_json()["ok"]
    return ws


def _all_inboxes(ws: Workspace) -> dict[str, Counter[tuple[str, str]]]:
    """Each member's messages, summary and text: the text carries what the delivery's
    state changes made of the issue (a review's attempt number), so a state change
    applied twice by the redelivery shows as well as a message sent twice."""
    inboxes = ws.inboxes_dir("quant")
    return {path.stem: texts(ws, "quant", path.stem) for path in sorted(inboxes.glob("*.json"))}


@pytest.mark.parametrize("name", DELIVERIES)
def test_f18_a_delivery_crashed_at_any_point_and_redelivered_sends_each_message_once(tmp_path, name):
    world = tmp_path / "world"
    world.mkdir()
    _forge_world(world, name)
    headers, body = delivery(name)
    (tmp_path / "headers.json").write_text(json.dumps(headers))
    (tmp_path / "body.json").write_bytes(body)
    expected_root = tmp_path / "expected"
    shutil.copytree(world, expected_root)
    expected_ws = Workspace.at(expected_root)
    points = crash_points(lambda: receive(expected_ws, headers, body))
    expected = _all_inboxes(expected_ws)
    assert any(count for inbox in expected.values() for count in inbox.values())
    assert "inbox.after_replace" in points
    for point in points:
        root = tmp_path / point
        shutil.copytree(world, root)
        run_crashing(point, "receive", root, tmp_path / "headers.json", tmp_path / "body.json")
        ws = Workspace.at(root)
        complete_pending(ws)
        again = receive(ws, headers, body)  # Gitea redelivers what was not answered
        assert again.outcome in ("applied", "duplicate"), point
        assert _all_inboxes(ws) == expected, point


# --- a CI failure's notice and its "already told" mark (F23) -----------------------------

CI_FAILURE = "status-failure-104"
CI_ISSUE = "acme__quant/101"
CI_MARK = "ci:4149ba53a2f3"  # the start of the failing head commit


class Passes(fs_seam.OsFs):
    """The real filesystem, noting every pass of every crash point as ``NAME@N``."""

    def __init__(self) -> None:
        self.passes: list[str] = []

    def crash_point(self, name: str) -> None:
        self.passes.append(f"{name}@{sum(1 for seen in self.passes if seen.startswith(f'{name}@')) + 1}")


def _ci_world(tmp_path: Path) -> tuple[Path, dict[str, str], bytes]:
    """PR #104 open for issue #101 (assigned to zhangfei-dev), and the failed check's
    delivery in files for the worker."""
    world = tmp_path / "world"
    world.mkdir()
    ws = Workspace.at(world)
    make_team(ws)
    for name in story_until("pull-request-opened-104"):
        assert receive(ws, *delivery(name)).outcome == "applied", name
    headers, body = delivery(CI_FAILURE)
    (tmp_path / "headers.json").write_text(json.dumps(headers))
    (tmp_path / "body.json").write_bytes(body)
    return world, headers, body


def _ci_told(ws: Workspace) -> int:
    return sum(1 for entry in inbox_of(ws, "quant", "zhangfei-dev") if entry.get("summary", "").startswith("CI failed"))


def _ci_marked(ws: Workspace) -> bool:
    return any(key.startswith(CI_MARK) for key in load_issue(ws, CI_ISSUE).notified)


def _check_ci_after_crash(ws: Workspace, headers: dict[str, str], body: bytes, what: str) -> None:
    """What a crash may leave, then what the restarted server makes of it: marked told
    only with the notice in the inbox; after recovery and Gitea's redelivery, told once,
    marked once, the issue sent back once."""
    assert not _ci_marked(ws) or _ci_told(ws) == 1, f"{what}: marked told, the notice not in the inbox"
    complete_pending(ws)  # what `forge serve` does at its start
    again = receive(ws, headers, body)  # Gitea redelivers what was not answered
    assert again.outcome in ("applied", "duplicate"), (what, again)
    assert _ci_told(ws) == 1 and _ci_marked(ws), what
    issue = load_issue(ws, CI_ISSUE)
    assert issue.status == "working" and issue.work is not None and issue.work.kind == "ci_failure", what
    events = [json.loads(line) for line in ws.forge_issue_log(CI_ISSUE).read_text().splitlines()]
    given = [e for e in events if e["type"] == "issue.work_given" and e["payload"]["work"]["kind"] == "ci_failure"]
    marks = [e for e in events if e["type"] == "issue.notified" and e["payload"]["key"].startswith(CI_MARK)]
    assert len(given) == 1 and len(marks) == 1, what


def test_f23_a_ci_failure_killed_at_every_pass_of_every_crash_point_is_told_once_after_redelivery(tmp_path):
    """F23: the receiving process SIGKILLed at each pass of each crash point (the issue's
    files, the inbox, the intents, the delivery log): the "already told" mark is never
    on disk without the notice in the inbox, and the redelivery leaves it told once."""
    world, headers, body = _ci_world(tmp_path)
    probe = tmp_path / "probe"
    shutil.copytree(world, probe)
    recorder = Passes()
    with fs_seam.installed(recorder):
        receive(Workspace.at(probe), headers, body)
    assert {"issue.after_replace@1", "inbox.after_replace@1", "intent.recorded@1"} <= set(recorder.passes)
    for point in recorder.passes:
        root = tmp_path / point.replace("@", "-")
        shutil.copytree(world, root)
        run_crashing(point, "receive", root, tmp_path / "headers.json", tmp_path / "body.json")
        _check_ci_after_crash(Workspace.at(root), headers, body, point)


def test_f23_a_ci_failure_killed_at_random_moments_is_told_once_after_redelivery(tmp_path):
    """F23 over random kill points: the receiving process SIGKILLed a random time after it
    starts (seeded), in several trials, then recovered and redelivered."""
    world, headers, body = _ci_world(tmp_path)
    files = (tmp_path / "headers.json", tmp_path / "body.json")

    def started(root: Path) -> subprocess.Popen[str]:
        shutil.copytree(world, root)
        proc = spawn("receive-on-cue", root, *files)
        release([proc])
        return proc

    def timed(root: Path) -> float:
        proc = started(root)
        begun = time.monotonic()
        expect_line(proc, "outcome applied")
        took = time.monotonic() - begun
        proc.communicate(timeout=30)
        return took

    took = min(timed(tmp_path / f"timed-{n}") for n in range(3))  # the cue to the outcome, warm
    rng = random.Random(23)
    killed = 0
    for trial in range(16):
        root = tmp_path / f"trial-{trial}"
        proc = started(root)
        time.sleep(rng.uniform(0, took))
        proc.kill()
        proc.communicate(timeout=30)
        killed += proc.returncode == -signal.SIGKILL
        _check_ci_after_crash(Workspace.at(root), headers, body, f"trial {trial}")
    assert killed > 0
