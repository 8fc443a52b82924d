"""Team files written by the pinned Claude Code (2.1.332), read by teamdeck.

The histories in tests/fixtures/claude-code/2.1.332/ hold every version of every file
the real client wrote during a scripted run (tests/claude_team_recorder.py; the live
run is tests/conformance/test_claude_code_team.py). Here they are replayed, version by
version, into a directory that teamdeck's live view refreshes after each write, as
``teamdeck tui`` would: so a change in how teamdeck reads what the client writes, or a
frame or field the client writes that FORMAT.md does not list, fails here without
Claude Code installed.
"""

from __future__ import annotations

import re
import shutil
from datetime import timedelta
from pathlib import Path

import pytest
from claude_team_recorder import Version, load_history, replay, until_cleanup, until_first
from locations import FIXTURES

from teamdeck.clock import fixed_clock, parse_iso
from teamdeck.model.claude import KINDS, decode_text
from teamdeck.protocol.conversation import read_conversation
from teamdeck.protocol.ledger.build import build_ledger
from teamdeck.store.workspace import Workspace
from teamdeck.view.build import build_snapshot, refresh
from teamdeck.view.snapshot import WorkspaceSnapshot

CAPTURES = FIXTURES / "2.1.332"
HISTORIES = sorted(CAPTURES.glob("*/history.jsonl"))
FORMAT = FIXTURES / "FORMAT.md"
IN_PROCESS = CAPTURES / "in-process-team" / "history.jsonl"
TMUX = CAPTURES / "tmux-team" / "history.jsonl"


# --- what FORMAT.md lists -------------------------------------------------------------


def _table(section: str) -> list[list[str]]:
    """The rows (cells) of the first table under the ``## <section>`` heading of FORMAT.md."""
    text = FORMAT.read_text(encoding="utf-8")
    body = text.split(f"\n## {section}\n", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in body.splitlines() if line.startswith("|")][2:]  # after the header and its rule
    return [[cell.strip() for cell in row.strip("|").split("|")] for row in rows]


def _names(cell: str) -> set[str]:
    """The backticked names of a cell, leaving out what parentheses say (values, notes)."""
    while re.search(r"\([^()]*\)", cell):
        cell = re.sub(r"\([^()]*\)", "", cell)
    return set(re.findall(r"`([A-Za-z_][A-Za-z0-9_]*)`", cell))


def listed_frames() -> dict[str, tuple[set[str], str]]:
    """Frame type → (its fields, what teamdeck does with it), from FORMAT.md."""
    return {_names(row[0]).pop(): (_names(row[2]), row[4]) for row in _table("Mailbox frames")}


def listed_fields() -> dict[str, set[str]]:
    """File → the fields FORMAT.md lists for it ("inbox entry", "config.json member"...)."""
    return {row[0]: _names(row[1]) for row in _table("Fields seen")}


# --- what a capture holds -------------------------------------------------------------


def seen_in(versions: list[Version]) -> tuple[dict[str, set[str]], dict[str, set[str]]]:
    """Every frame type with its fields, and every field by file, in ``versions``."""
    import json

    frames: dict[str, set[str]] = {}
    fields: dict[str, set[str]] = {}

    def add(label: str, keys: object) -> None:
        fields.setdefault(label, set()).update(keys)  # type: ignore[arg-type]

    for version in versions:
        if version.text is None or ".tmp." in version.path or not version.path.endswith(".json"):
            continue
        try:
            value = json.loads(version.text)
        except ValueError:  # caught mid-rewrite (the client rewrites config.json in place)
            continue
        if version.path.endswith("/config.json"):
            add("config.json", value)
            add("config.json leadProcess", value.get("leadProcess", {}))
            for member in value["members"]:
                add("config.json member", member)
        elif "/inboxes/" in version.path:
            for entry in value:
                add("inbox entry", entry)
                kind = decode_text(entry["text"])
                if kind.KIND != "plain":
                    raw = kind.to_payload()
                    frames.setdefault(raw["type"], set()).update(raw)
        elif version.path.startswith("tasks/"):
            add("task file", value)
    return frames, fields


@pytest.mark.parametrize("history", HISTORIES, ids=lambda path: path.parent.name)
def test_every_frame_and_field_the_client_wrote_is_in_format_md(history: Path) -> None:
    """Upgrading the pinned client (``make claude-code-lock VERSION=...``) and capturing
    again names here every frame type and field teamdeck has not seen yet."""
    frames, fields = seen_in(load_history(history))
    known_frames, known_fields = listed_frames(), listed_fields()
    new_frames = sorted(set(frames) - set(known_frames))
    new_frame_fields = sorted(
        f"{kind}.{name}"
        for kind, names in frames.items()
        if kind in known_frames
        for name in names - known_frames[kind][0]
    )
    new_fields = sorted(
        f"{label}: {name}" for label, names in fields.items() for name in names - known_fields.get(label, set())
    )
    assert not (new_frames or new_frame_fields or new_fields), (
        f"{history.parent.name}: not in FORMAT.md: frame types {new_frames}, frame fields {new_frame_fields}, "
        f"file fields {new_fields}"
    )


def test_the_frames_format_md_says_teamdeck_reads_are_the_ones_it_decodes() -> None:
    reads = {kind for kind, (_fields, teamdeck) in listed_frames().items() if teamdeck.startswith("reads")}
    assert reads == set(KINDS)


# --- replaying a capture through the live view -----------------------------------------


def live_replay(versions: list[Version], root: Path, *, record: bool = True) -> tuple[Workspace, WorkspaceSnapshot]:
    """Write ``versions`` into ``root`` one by one, refreshing a live snapshot (recording
    what it reads, as ``teamdeck tui`` does) after each; the workspace (its clock 10 s
    after the last message of the run) and the last snapshot."""
    root.mkdir(parents=True, exist_ok=True)
    stamps = re.findall(r'"timestamp": "([^"]+)"', "".join(version.text or "" for version in versions))
    now = max(parse_iso(stamp) for stamp in stamps) + timedelta(seconds=10)
    ws = Workspace.at(root, clock=fixed_clock(now), actor="human:tester")
    snapshot = build_snapshot(ws, record=record)
    for _version, path in replay(versions, ws.root):
        snapshot = refresh(snapshot, [path])
    return ws, snapshot


def team_of(ws: Workspace) -> str:
    (team,) = [path.name for path in (ws.root / "teams").iterdir() if path.is_dir()]
    return team


def before_teamdeck_wrote(history: Path) -> list[Version]:
    """The run up to teamdeck's first write (its messages.jsonl): the client's own work."""
    return until_first(load_history(history), "messages.jsonl")


def test_a_drained_idle_notification_still_makes_the_teammate_idle(tmp_path: Path) -> None:
    ws, snapshot = live_replay(before_teamdeck_wrote(IN_PROCESS), tmp_path / "claude")
    team = team_of(ws)
    assert ws.inbox(team, "team-lead").read_text() == "[]"  # the client drained everything
    (view,) = snapshot.teams
    assert [member.name for member in view.members] == ["team-lead", "bob"]  # alice shut down: removed
    bob = next(member for member in view.members if member.name == "bob")
    assert bob.status == "idle" and bob.since == "2026-11-26T15:23:48.962Z"
    lead = view.members[0]
    said = {(row.sender, row.summary) for row in lead.inbox}
    assert ("alice", "alice reports notes done") in said and ("bob", "bob reports files checked") in said
    assert all(row.read for row in lead.inbox)  # drained: delivered

    fresh = build_snapshot(ws)  # `teamdeck status` later: reads the record, writes nothing
    assert next(member for member in fresh.teams[0].members if member.name == "bob").status == "idle"

    talk = read_conversation(ws, team, "team-lead")
    assert ("received", "alice", "Alice to lead: the notes are written.") in {
        (row.direction, row.sender, row.text) for row in talk.rows
    }
    ledger = build_ledger(ws, team)
    (shutdown,) = [handshake for handshake in ledger.handshakes if handshake.kind == "shutdown"]
    assert shutdown.member == "alice" and shutdown.state == "offline"  # approved, then left the roster


def test_without_the_record_the_drain_loses_the_idle_state(tmp_path: Path) -> None:
    """What a reader that keeps nothing sees after the same run (teamdeck before issue
    17): the files alone, with the record removed."""
    ws, _snapshot = live_replay(before_teamdeck_wrote(IN_PROCESS), tmp_path / "claude")
    shutil.rmtree(ws.root / ".teamdeck")
    (view,) = build_snapshot(ws).teams
    bob = next(member for member in view.members if member.name == "bob")
    assert bob.status == "working" and not view.members[0].inbox


def test_teamdecks_shutdown_request_is_delivered_but_refused_and_doctor_says_so(tmp_path: Path) -> None:
    """teamdeck wrote a shutdown_request to bob; the client delivered it (drained) but bob's
    client refused to act on it (forged: not written by the lead's process), so bob went
    idle without answering: not consumed. The drain itself is no failure (no not_enqueued)."""
    ws, _snapshot = live_replay(until_cleanup(load_history(IN_PROCESS)), tmp_path / "claude")
    ledger = build_ledger(ws, team_of(ws))
    codes = {(finding.code, finding.member) for finding in ledger.findings}
    assert ("not_consumed", "bob") in codes
    assert not [finding for finding in ledger.findings if finding.code == "not_enqueued"]
    (request,) = [h for h in ledger.handshakes if h.kind == "shutdown" and h.member == "bob"]
    assert request.state == "awaiting_response"


def test_a_tmux_teammates_permission_request_waits_in_the_queue_after_the_drain(tmp_path: Path) -> None:
    ws, snapshot = live_replay(until_cleanup(load_history(TMUX)), tmp_path / "claude")
    team = team_of(ws)
    assert ws.inbox(team, "team-lead").read_text() == "[]"
    (gate,) = [gate for gate in snapshot.gates if gate.kind == "permission"]
    assert gate.member == "bob" and gate.tool == "Bash" and gate.request_id.startswith("perm-")
    assert "touch bob-was-here.txt" in gate.body
