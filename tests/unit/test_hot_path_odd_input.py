"""``send`` and ``inbox --inject`` read Claude Code's files without pydantic when they
are well-formed (model/shape.py); what is not well-formed goes to
the pydantic model as before. These tests drive the CLI with such files: a broken
roster still stops the command with one line naming the file, the place and the
problem (B4), nothing written; pydantic's lax coercions still apply (Claude Code's
files are JavaScript-written); unknown fields are kept (B13); a protocol message whose
fields do not fit is still injected, as ``unknown``.
"""

from __future__ import annotations

import json

from support import small_worlds as worlds

from teamdeck.cli.main import main


def _config(ws):
    return ws.team_config("alpha")


def _edit_roster(ws, change) -> None:
    path = _config(ws)
    config = json.loads(path.read_text())
    change(config)
    path.write_text(json.dumps(config, indent=2))


def _files(ws) -> dict[str, bytes]:
    return {str(path): path.read_bytes() for path in sorted(ws.team_dir("alpha").rglob("*")) if path.is_file()}


def test_a_broken_roster_stops_send_and_inject_with_one_line_naming_file_and_place(ws, capsys) -> None:
    """B4: a member's name that is a number, not a string."""
    worlds.team(ws)
    main(["--workspace", str(ws.root), "send", "alpha", "alice", "--summary", "s", "unread"])
    _edit_roster(ws, lambda config: config["members"][2].update(name=5))
    before = _files(ws)
    capsys.readouterr()
    for argv in (["send", "alpha", "alice", "--summary", "s", "hello"], ["inbox", "alpha", "alice", "--inject"]):
        assert main(["--workspace", str(ws.root), *argv]) == 1
        out, err = capsys.readouterr()
        assert out == "" and len(err.splitlines()) == 1
        assert "teams/alpha/config.json" in err and "members.2.name" in err
        assert _files(ws) == before  # nothing logged, delivered or marked read


def test_the_coercions_of_the_pydantic_model_still_apply(ws, capsys) -> None:
    """``"isActive": "false"`` (a string) is read as False, as pydantic's lax bool does:
    the send warns that alice is inactive; the unknown field is kept on disk (B13)."""
    worlds.team(ws)
    _edit_roster(ws, lambda config: config["members"][1].update(isActive="false", futureField={"k": [1]}))
    capsys.readouterr()
    assert main(["--workspace", str(ws.root), "send", "alpha", "alice", "--summary", "s", "hello"]) == 0
    _out, err = capsys.readouterr()
    assert "'alice' is inactive" in err
    assert json.loads(_config(ws).read_text())["members"][1]["futureField"] == {"k": [1]}


def test_a_protocol_message_whose_fields_do_not_fit_is_injected_as_unknown(ws, capsys) -> None:
    """A shutdown request without its ``requestId`` is not a shutdown request: it is
    injected (marked read, shown whole) as ``unknown``, as before; a well-formed one
    next to it keeps its kind and request id."""
    worlds.team(ws)
    inbox = ws.inbox("alpha", "alice")
    broken = json.dumps({"type": "shutdown_request", "reason": "done"})
    good = json.dumps({"type": "shutdown_request", "requestId": "shutdown-1@alice", "from": "team-lead"})
    entries = [
        {"from": "team-lead", "text": broken, "timestamp": "2026-11-26T23:00:00.000Z", "read": False},
        {"from": "team-lead", "text": good, "timestamp": "2026-11-26T23:00:01.000Z", "read": False, "msg_id": "m2"},
    ]
    inbox.write_text(json.dumps(entries))
    capsys.readouterr()
    assert main(["--workspace", str(ws.root), "inbox", "alpha", "alice", "--inject", "--json"]) == 0
    messages = json.loads(capsys.readouterr().out)["messages"]
    assert [(item["type"], item["requestId"]) for item in messages] == [
        ("shutdown_request", "shutdown-1@alice"),  # shutdown requests first
        ("unknown", None),
    ]
    assert all(entry["read"] for entry in json.loads(inbox.read_text()))
