"""Members `teamdeck run` runs (an `agents:` entry names them) take their state from their
runs, not from a roster that says nothing of their turns: never run, running since,
idle since its run ended, failed ×N (the latest runs in a row, marked `!`); `status`
and `status --json` say the same."""

from __future__ import annotations

from support import small_worlds as worlds
from support.run_records import ended, name_in_agents, running

from teamdeck.protocol.team.teams import add_member


def _crew(ws) -> None:
    """Team alpha: the lead (not named: a wildcard never names it), alice never run, bob
    running, carol whose claude-code run ended, dave whose last three runs failed after
    one that succeeded."""
    worlds.team(ws)
    add_member(ws, "alpha", "carol")
    add_member(ws, "alpha", "dave")
    name_in_agents(ws, "alpha/*")
    ended(ws, "alpha", "carol", "succeeded", minutes_ago=5)
    ended(ws, "alpha", "dave", "succeeded", minutes_ago=40)
    for minutes in (30, 20, 10):
        ended(ws, "alpha", "dave", "failed", minutes_ago=minutes, error="claude exited 1: model overloaded")


def _line(out: str, name: str) -> str:
    return next(line for line in out.splitlines() if line.strip().startswith(name + " "))


def test_status_and_json_take_a_run_members_state_from_its_runs(ws, run_cli) -> None:
    _crew(ws)
    process = running(ws, "alpha", "bob")
    try:
        data = run_cli(ws.root, "status", "--json").json
        text = run_cli(ws.root, "status").out
    finally:
        process.kill()
        process.wait()
    members = {member["name"]: member for member in data["teams"][0]["members"]}
    states = {name: (member["status"], member["since"]) for name, member in members.items()}
    carol_end = members["carol"]["run"]["endedAt"]
    assert states == {
        "team-lead": ("working", None),
        "alice": ("never-run", None),
        "bob": ("running", members["bob"]["run"]["since"]),
        "carol": ("idle", carol_end),
        "dave": ("failed", members["dave"]["run"]["endedAt"]),
    }
    assert members["bob"]["run"]["since"] and carol_end
    assert members["dave"]["run"]["failures"] == 3 and members["carol"]["run"]["failures"] == 0
    assert any("run failed ×3" in marker for marker in members["dave"]["markers"])

    assert "never-run" in _line(text, "alice") and "running" in _line(text, "bob")
    assert " idle " in _line(text, "carol") and "last run succeeded" in _line(text, "carol")
    assert "failed ×3" in _line(text, "dave") and "  ! run failed ×3: claude exited 1" in _line(text, "dave")
    assert "working" in _line(text, "team-lead")
    assert "alpha — the parser team (5 members: 2 active, 3 idle, 0 offline;" in text  # never run, failed: not active


def test_a_run_that_succeeds_ends_the_failures(ws, run_cli) -> None:
    _crew(ws)
    ended(ws, "alpha", "dave", "succeeded", minutes_ago=2)
    dave = next(m for m in run_cli(ws.root, "status", "--json").json["teams"][0]["members"] if m["name"] == "dave")
    assert (dave["status"], dave["run"]["failures"], dave["markers"]) == ("idle", 0, [])
