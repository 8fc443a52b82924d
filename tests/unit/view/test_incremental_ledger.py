"""The team ledger kept between refreshes folds only what changed (an inbox read
again, records appended to messages.jsonl) and must give exactly what a build from
scratch gives: checked after every step of generated sequences of inbox writes,
mark-reads, broken entries, log appends, a replaced log and roster changes.

The kept build records what it reads, as the live view does (protocol/team/observed.py):
a build that records nothing keeps in memory the messages it saw before they went
from the file, which a build from scratch cannot know, so only a recording view can
equal a fresh build."""

from __future__ import annotations

import json
import os
from datetime import UTC, datetime
from pathlib import Path

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from teamdeck.clock import fixed_clock
from teamdeck.ids import new_ulid
from teamdeck.protocol.team import teams
from teamdeck.store.workspace import Workspace
from teamdeck.view.readers.team_files import TeamFiles, read_team_files, reread_config, reread_inbox, with_ledger
from teamdeck.view.readers.team_roster import team_view

TEAM = "alpha"
NAMES = ("team-lead", "ann", "bob", "ghost")  # ghost is never a member
TIMES = ("2026-03-01T12:00:00.000Z", "2026-03-01T12:00:05.000Z", "2026-03-01T12:01:00.000Z", "not a time")
REQUESTS = ("r1", "r2")

payloads = st.one_of(
    st.builds(lambda text: text, st.sampled_from(("hello", "done", "{not json"))),
    st.builds(
        lambda reason, at: json.dumps({"type": "idle_notification", "idleReason": reason, "timestamp": at}),
        st.sampled_from(("available", "failed")),
        st.sampled_from(TIMES),
    ),
    st.builds(lambda rid: json.dumps({"type": "shutdown_request", "requestId": rid}), st.sampled_from(REQUESTS)),
    st.builds(
        lambda rid, ok: json.dumps({"type": "shutdown_approved" if ok else "shutdown_rejected", "requestId": rid}),
        st.sampled_from(REQUESTS),
        st.booleans(),
    ),
    st.builds(lambda: json.dumps({"type": "plan_approval_request", "requestId": "p1", "planContent": "plan"})),
    st.builds(
        lambda ok: json.dumps({"type": "plan_approval_response", "requestId": "p1", "approved": ok}), st.booleans()
    ),
    st.builds(
        lambda rid, use: json.dumps(
            {"type": "permission_request", "request_id": rid, "tool_name": "Bash", "tool_use_id": use}
        ),
        st.sampled_from(("q1", "q2")),
        st.sampled_from(("u1", "u2")),
    ),
    st.builds(
        lambda rid: json.dumps({"type": "permission_response", "request_id": rid, "subtype": "success"}),
        st.sampled_from(("q1", "q2")),
    ),
)

steps = st.one_of(
    st.tuples(st.just("append"), st.sampled_from(NAMES), st.sampled_from(NAMES), st.sampled_from(TIMES), payloads),
    st.tuples(st.just("mark_read"), st.sampled_from(NAMES)),
    st.tuples(st.just("bad_entry"), st.sampled_from(NAMES)),
    st.tuples(st.just("unreadable"), st.sampled_from(NAMES)),
    st.tuples(st.just("remove"), st.sampled_from(NAMES)),
    st.tuples(
        st.just("log"),
        st.sampled_from(
            ("message", "shutdown_request", "delivery_failed", "shutdown_superseded", "team_delete_refused")
        ),
        st.sampled_from(NAMES),
        st.sampled_from(TIMES),
        st.booleans(),
    ),
    st.tuples(st.just("log_replaced")),
    st.tuples(st.just("deactivate"), st.sampled_from(("ann", "bob"))),
)


def _inbox(ws: Workspace, name: str) -> Path:
    return ws.inbox(TEAM, name)


def _read_array(path: Path) -> list[object]:
    try:
        value = json.loads(path.read_text())
    except (FileNotFoundError, ValueError):
        return []
    return value if isinstance(value, list) else []


def _write(path: Path, content: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(content)


def _log_line(ws: Workspace, record: dict[str, object]) -> None:
    with open(ws.messages_log(TEAM), "a") as handle:
        handle.write(json.dumps(record) + "\n")


def _apply(ws: Workspace, step: tuple[object, ...], sent: list[tuple[str, str, str, str]]) -> str:
    """Do one step on disk; returns the part of the team it changed."""
    kind = step[0]
    if kind == "append":
        _, sender, recipient, at, text = step
        path = _inbox(ws, str(recipient))
        entry = {"from": sender, "text": text, "timestamp": at, "read": False}
        _write(path, json.dumps([*_read_array(path), entry]))
        sent.append((str(sender), str(recipient), str(at), str(text)))
        return f"inbox:{recipient}"
    if kind == "mark_read":
        path = _inbox(ws, str(step[1]))
        array = _read_array(path)
        for entry in array:
            if isinstance(entry, dict):
                entry["read"] = True
        _write(path, json.dumps(array))
        return f"inbox:{step[1]}"
    if kind == "bad_entry":
        path = _inbox(ws, str(step[1]))
        _write(path, json.dumps([*_read_array(path), {"no": "text"}]))
        return f"inbox:{step[1]}"
    if kind == "unreadable":
        _write(_inbox(ws, str(step[1])), "{}")
        return f"inbox:{step[1]}"
    if kind == "remove":
        _inbox(ws, str(step[1])).unlink(missing_ok=True)
        return f"inbox:{step[1]}"
    if kind == "log":
        _, type_, recipient, at, matching = step
        record: dict[str, object] = {
            "id": new_ulid(datetime.now(UTC)),
            "ts": TIMES[0],
            "type": type_,
            "actor": "human:t",
        }
        if type_ in ("message", "shutdown_request"):
            sender, to, when, text = sent[-1] if matching and sent else ("team-lead", str(recipient), str(at), "logged")
            record.update({"from": sender, "to": [to], "timestamp": when, "text": text, "requestId": "r1"})
        elif type_ == "delivery_failed":
            record.update({"ref": _last_send_id(ws), "to": [recipient], "error": "disk full"})
        elif type_ == "shutdown_superseded":
            record.update({"requestId": "r1", "reason": "resent"})
        _log_line(ws, record)
        return "messages"
    if kind == "log_replaced":
        path = ws.messages_log(TEAM)
        kept = path.read_text().splitlines(keepends=True)[:1] if path.exists() else []
        tmp = path.with_name("messages.jsonl.new")
        tmp.write_text("".join(kept))
        os.replace(tmp, path)  # another file: the reader starts over
        return "messages"
    assert kind == "deactivate"
    config = json.loads(ws.team_config(TEAM).read_text())
    for member in config["members"]:
        if member["name"] == step[1]:
            member["isActive"] = not member.get("isActive", True)
    _write(ws.team_config(TEAM), json.dumps(config))
    return "config"


def _last_send_id(ws: Workspace) -> str | None:
    path = ws.messages_log(TEAM)
    lines = path.read_text().splitlines() if path.exists() else []
    ids = [json.loads(line)["id"] for line in lines if json.loads(line).get("type") in ("message", "shutdown_request")]
    return ids[-1] if ids else None


def _refresh(ws: Workspace, files: TeamFiles, part: str) -> TeamFiles:
    """What view/refresh/build.py does with one changed part of a team."""
    if part == "config":
        again = reread_config(ws, files)
        assert again is not None
        files = again
    elif part.startswith("inbox:"):
        files = reread_inbox(ws, files, _inbox(ws, part[len("inbox:") :]))
    return with_ledger(ws, files)


_PLAN = json.dumps({"type": "plan_approval_request", "requestId": "p1", "planContent": "plan"})


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(steps, min_size=1, max_size=20))
@example(  # found by Hypothesis: messages gone from an inbox made unreadable, then a new array written
    [
        ("append", "bob", "team-lead", TIMES[0], _PLAN),
        ("unreadable", "team-lead"),
        ("append", "ghost", "team-lead", TIMES[0], _PLAN),
    ]
)
def test_the_kept_ledger_equals_a_fresh_build_after_every_step(tmp_path_factory, sequence) -> None:
    root = tmp_path_factory.mktemp("ws")
    ws = Workspace.at(root, clock=fixed_clock(datetime(2026, 3, 1, 12, 3, tzinfo=UTC)), actor="human:t")
    teams.create_team(ws, TEAM)
    teams.add_member(ws, TEAM, "ann")
    teams.add_member(ws, TEAM, "bob")
    files = read_team_files(ws, TEAM, record=True)
    assert files is not None and files.ledger is not None
    sent: list[tuple[str, str, str, str]] = []
    for step in sequence:
        files = _refresh(ws, files, _apply(ws, step, sent))
        fresh = read_team_files(ws, TEAM)
        assert fresh is not None and fresh.ledger is not None and files.ledger is not None
        assert files.ledger.to_json() == fresh.ledger.to_json(), step
        assert team_view(files) == team_view(fresh), step


def test_one_inbox_change_folds_only_that_inbox(tmp_path: Path) -> None:
    """The other inboxes' ledger folds and roster rows are reused as they are (the
    same objects); the changed inbox is folded again."""
    ws = Workspace.at(tmp_path, actor="human:t")
    teams.create_team(ws, TEAM)
    teams.add_member(ws, TEAM, "ann")
    teams.add_member(ws, TEAM, "bob")
    for name in ("ann", "bob"):
        _write(_inbox(ws, name), json.dumps([{"from": "team-lead", "text": "hi", "timestamp": TIMES[0]}]))
    files = read_team_files(ws, TEAM, record=True)
    assert files is not None and files.fold is not None
    before = {name: files.fold.inbox(files.inboxes.inboxes[name]) for name in ("ann", "bob")}
    team_view(files)
    rows_before = dict(files.rows)
    _apply(ws, ("append", "team-lead", "ann", TIMES[1], "again"), [])
    files = _refresh(ws, files, "inbox:ann")
    assert files.fold is not None
    assert files.fold.inbox(files.inboxes.inboxes["bob"]) is before["bob"]
    assert files.fold.inbox(files.inboxes.inboxes["ann"]) is not before["ann"]
    team_view(files)
    assert files.rows["bob"] is rows_before["bob"]
    assert files.ledger is not None and files.ledger.members[1].messages == 2
