"""teamdeck's record of the inbox messages it saw (protocol/team/observed.py): what Claude
Code drains (removes once delivered) stays in status, conversation and the ledger."""

from __future__ import annotations

import json
from pathlib import Path

from teamdeck.model.team import IdleNotification
from teamdeck.protocol.coordination.conversation import read_conversation
from teamdeck.protocol.team.inboxes import read_inboxes
from teamdeck.protocol.team.messaging.sending import send_message
from teamdeck.protocol.team.observed import Observed, message_key
from teamdeck.protocol.team.teams import add_member, create_team
from teamdeck.store.workspace import Workspace
from teamdeck.view.refresh.build import build_snapshot, refresh

TEAM = "alpha"


def team_ws(ws: Workspace) -> Workspace:
    create_team(ws, TEAM)
    add_member(ws, TEAM, "bob")
    return ws


def client_writes(ws: Workspace, recipient: str, *entries: dict) -> Path:
    """The inbox as Claude Code 2.1.332 leaves it (its whole array)."""
    path = ws.inbox(TEAM, recipient)
    path.write_text(json.dumps(list(entries), indent=2))
    return path


def idle(n: int) -> dict:
    stamp = f"2026-03-01T12:00:0{n}.000Z"
    text = IdleNotification(from_="bob", timestamp=stamp, idleReason="available").to_text()
    return {
        "from": "bob",
        "text": text,
        "timestamp": stamp,
        "msgV": 1,
        "msg_id": f"id-{n}",
        "type": "message",
        "read": False,
    }


def hello() -> dict:
    return {
        "from": "bob",
        "text": "parser done",
        "summary": "done",
        "timestamp": "2026-03-01T12:00:00.000Z",
        "msgV": 1,
        "msg_id": "id-0",
        "type": "message",
        "read": False,
    }


def records(ws: Workspace) -> list[dict]:
    path = ws.observed_log(TEAM)
    return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def test_a_message_seen_then_drained_stays_in_status_and_conversation(ws: Workspace) -> None:
    team_ws(ws)
    live = build_snapshot(ws, record=True)
    live = refresh(live, [client_writes(ws, "team-lead", hello(), idle(1))])
    live = refresh(live, [client_writes(ws, "team-lead")])  # the lead's client delivered both: []
    bob = live.teams[0].members[1]
    assert bob.status == "idle" and bob.since == "2026-03-01T12:00:01.000Z"
    rows = live.teams[0].members[0].inbox
    assert [(row.kind, row.read) for row in rows] == [("plain", True), ("idle", True)]

    later = build_snapshot(ws)  # `teamdeck status` afterwards, in another process
    assert later.teams[0].members[1].status == "idle"
    talk = read_conversation(ws, TEAM, "bob")
    assert [(row.direction, row.text, row.read) for row in talk.rows][0] == ("sent", "parser done", True)
    drained = read_inboxes(ws, TEAM).inboxes["team-lead"].entries
    assert [entry.drained for entry in drained] == [True, True]


def test_each_message_is_recorded_once_and_a_reading_command_records_nothing(ws: Workspace) -> None:
    team_ws(ws)
    client_writes(ws, "team-lead", hello())
    build_snapshot(ws)  # status, doctor...: read, never write
    assert records(ws) == []
    live = build_snapshot(ws, record=True)
    live = refresh(live, [client_writes(ws, "team-lead", hello(), idle(1))])
    live = refresh(live, [client_writes(ws, "team-lead", idle(1))])
    build_snapshot(ws, record=True)  # a second live view
    assert [record["id"] for record in records(ws)] == ["team-lead:id-0", "team-lead:id-1"]


def test_a_record_two_recorders_both_wrote_counts_once(ws: Workspace) -> None:
    team_ws(ws)
    path = client_writes(ws, "team-lead", hello())
    Observed(ws, TEAM, record=True).read(path)
    log = ws.observed_log(TEAM)
    log.write_text(log.read_text() * 2)  # two live views raced: the same line twice
    client_writes(ws, "team-lead")
    (entry,) = Observed(ws, TEAM).read(path).entries
    assert entry.drained and entry.message is not None and entry.message.text == "parser done"


def test_identical_messages_without_an_id_are_two_messages(ws: Workspace) -> None:
    team_ws(ws)
    same = {"from": "bob", "text": "ping", "summary": "p", "timestamp": "2026-03-01T12:00:00.000Z", "read": False}
    path = client_writes(ws, "team-lead", same, same)
    Observed(ws, TEAM, record=True).read(path)
    client_writes(ws, "team-lead")
    assert [entry.drained for entry in Observed(ws, TEAM).read(path).entries] == [True, True]
    assert message_key("team-lead", same).startswith("team-lead:sha256-")


def test_a_read_only_live_view_remembers_but_writes_nothing(ws: Workspace) -> None:
    team_ws(ws)
    quiet = ws._replace(read_only=True)
    live = build_snapshot(quiet, record=True)
    live = refresh(live, [client_writes(ws, "team-lead", idle(1))])
    live = refresh(live, [client_writes(ws, "team-lead")])
    assert live.teams[0].members[1].status == "idle"
    assert not ws.observed_log(TEAM).exists()


def test_a_send_teamdeck_saw_land_is_not_lost_when_drained(ws: Workspace) -> None:
    """A confirmed send is recorded: the recipient's client draining it is no failure."""
    from teamdeck.protocol.team.ledger.build import build_ledger

    team_ws(ws)
    send_message(ws, TEAM, "bob", "rebase first", summary="rebase")
    client_writes(ws, "bob")  # bob's client delivered it
    ledger = build_ledger(ws, TEAM)
    assert not [finding for finding in ledger.findings if finding.code == "not_enqueued"]


def test_a_drained_message_is_listed_by_the_inbox_command_and_the_mcp_read_as_read(ws: Workspace) -> None:
    """The live view saw a message, Claude Code drained it: ``teamdeck inbox`` (and the
    MCP ``read_inbox``, which lists through the same call) said "no messages"."""
    import subprocess
    import sys

    from teamdeck.protocol.team.messaging.reading import list_inbox

    team_ws(ws)
    live = build_snapshot(ws, record=True)
    live = refresh(live, [client_writes(ws, "team-lead", hello())])
    refresh(live, [client_writes(ws, "team-lead")])  # delivered and drained: []
    listed = list_inbox(ws, TEAM, "team-lead")
    assert [(entry.message.text, entry.drained) for entry in listed if entry.message] == [("parser done", True)]
    assert list_inbox(ws, TEAM, "team-lead", unread_only=True) == []
    shown = subprocess.run(
        [sys.executable, "-m", "teamdeck", "-w", str(ws.root), "inbox", TEAM, "team-lead", "--json"],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    listed_json = json.loads(shown.stdout)["messages"]
    assert [(m["message"]["text"], m["drained"]) for m in listed_json] == [("parser done", True)]
    assert not records(ws) or len(records(ws)) == 1  # listing recorded nothing more
