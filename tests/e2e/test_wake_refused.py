"""`teamdeck run wake` of a member no `agents:` entry names is refused (exit 1, with the
reason): the runner would never act on it, so saying yes would be a lie."""

from __future__ import annotations

import json

from support import small_worlds as worlds
from support.run_records import name_in_agents


def test_wake_of_a_member_no_agents_entry_names_is_refused(ws, run_cli) -> None:
    worlds.team(ws)
    name_in_agents(ws, "alpha/*")
    refused = run_cli(ws.root, "run", "wake", "alpha", "team-lead")
    assert refused.code == 1
    assert "no agents: entry in .teamdeck.yaml names alpha/team-lead" in refused.err
    assert not (ws.root / "runs" / "requests.jsonl").exists()

    woken = run_cli(ws.root, "run", "wake", "alpha", "alice")
    assert woken.code == 0, woken.err
    [record] = [json.loads(line) for line in (ws.root / "runs" / "requests.jsonl").read_text().splitlines()]
    assert (record["type"], record["member"]) == ("wake", "alice")


def test_wake_without_any_agents_entry_is_refused(ws, run_cli) -> None:
    worlds.team(ws)
    refused = run_cli(ws.root, "run", "wake", "alpha", "alice", "--json")
    assert refused.code == 1
    assert refused.json["error"] == "no agents: entry in .teamdeck.yaml names alpha/alice"
