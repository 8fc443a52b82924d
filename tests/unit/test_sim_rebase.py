"""A copy of the demo rebased to now (teamdeck.sim.clock.rebase): the same world, later.

``teamdeck demo`` used to run its agents on a shifted clock that nothing else knew, so a
``teamdeck send`` or ``teamdeck status`` from another shell saw a workspace 275 days old.
Now the copy itself is moved: every timestamp by the same amount, in its own form."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import yaml

from teamdeck.clock import fixed_clock, parse_iso
from teamdeck.protocol.task.join import join_task
from teamdeck.protocol.task.taskfile import task_ids
from teamdeck.resources import data_dir
from teamdeck.sim.clock import DEMO_NOW, rebase, shift_text
from teamdeck.store.workspace import Workspace
from teamdeck.view.figures.overview import overview
from teamdeck.view.refresh.build import build_snapshot

LATER = datetime(2026, 12, 4, 19, 0, 30, tzinfo=UTC)
DELTA = LATER - DEMO_NOW


def test_every_form_of_a_moment_moves_by_the_same_amount_and_keeps_its_form():
    day = timedelta(days=1, hours=1, seconds=1)
    text = (
        '{"timestamp":"2026-03-01T11:15:00.000Z","at":"2026-11-23T09:12:40+08:00",'
        '"text":"{\\"timestamp\\":\\"2026-03-01T11:50:00.000Z\\",\\"requestId\\":\\"shutdown-1772365800000@tw\\"}",'
        '"joinedAt": 1772355600000}\n'
        "Questions (2026-03-01 09:21:00 UTC): at 03:00 UTC?\n"
        "since: '2026-03-01T11:56:40'\n"
    )
    assert shift_text(text, day) == (
        '{"timestamp":"2026-03-02T12:15:01.000Z","at":"2026-11-24T10:12:41+08:00",'
        '"text":"{\\"timestamp\\":\\"2026-03-02T12:50:01.000Z\\",\\"requestId\\":\\"shutdown-1772455801000@tw\\"}",'
        '"joinedAt": 1772445601000}\n'
        "Questions (2026-03-02 10:21:01 UTC): at 03:00 UTC?\n"
        "since: '2026-03-02T12:56:41'\n"
    )


def test_what_only_looks_like_a_moment_is_left_as_it_is():
    """A ULID's digits, a 13-digit number far from the demo's time, a date that is no
    date, a version number: none of them is a moment of the demo's history."""
    untouched = (
        "01KJMKZPF0DYCBBNMQ5K9GT9XF 1234567890123 49124460-1046-4d69-93ab-e8a33d25d5bb "
        "2026-13-45T99:00:00.000Z 2.4.0 sha256:3712afa0bc2c6355"
    )
    assert shift_text(untouched, DELTA) == untouched


def test_a_rebased_copy_is_the_same_world_later_and_the_shipped_one_stays(demo: Path):
    """What ``teamdeck status`` counts (members active, idle, stale; decisions and the
    oldest one's age) is the same at the new "now" as the shipped copy's at DEMO_NOW."""
    shipped = data_dir("demo-workspace")
    before = {path: path.read_bytes() for path in shipped.rglob("*") if path.is_file()}
    expected = overview(build_snapshot(Workspace.at(shipped, clock=fixed_clock(DEMO_NOW), read_only=True)), DEMO_NOW)

    assert rebase(demo, to=LATER) == DELTA

    got = overview(build_snapshot(Workspace.at(demo, clock=fixed_clock(LATER))), LATER)
    assert got == expected and got.oldest_decision_age == "45m"
    assert {path: path.read_bytes() for path in shipped.rglob("*") if path.is_file()} == before

    inbox = "teams/checkout-revamp/inboxes/team-lead.json"
    moved = [parse_iso(m["timestamp"]) for m in json.loads((demo / inbox).read_text())]
    kept = [parse_iso(m["timestamp"]) for m in json.loads((shipped / inbox).read_text())]
    assert moved == [moment + DELTA for moment in kept] and max(moved) <= LATER
    team = json.loads((demo / "teams/checkout-revamp/config.json").read_text())
    assert team["createdAt"] == json.loads((shipped / "teams/checkout-revamp/config.json").read_text())[
        "createdAt"
    ] + int(DELTA.total_seconds() * 1000)
    gate = yaml.safe_load((demo / "tasks/checkout-api/task.yaml").read_text())["gates"][0]
    assert parse_iso(gate["createdAt"]) == LATER - timedelta(minutes=45)
    assert "2026-12-04 18:15:30 UTC" in (demo / "tasks/checkout-api/shared/human-notes.md").read_text()


def test_a_join_after_the_rebase_finds_nothing_changed(demo: Path):
    """final.json moved (its finishedAt), so its digest changed: the gate that remembers
    it is given the new one, and the TUI's first join opens no gate anew."""
    rebase(demo, to=LATER)
    ws = Workspace.at(demo, clock=fixed_clock(LATER), actor="human:tester")
    events = {task: (demo / "tasks" / task / "events.jsonl").read_bytes() for task in task_ids(ws)}
    for task in events:
        assert not join_task(ws, task).changed, task
    assert {task: (demo / "tasks" / task / "events.jsonl").read_bytes() for task in events} == events
