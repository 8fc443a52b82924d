"""The lead's side of the demo (teamdeck.sim.scenario), driven through its clockwork:
it only writes what a lead writes — members created, tasks assigned, status checks —
and never answers as a teammate."""

from __future__ import annotations

import json
from pathlib import Path

from teamdeck.clock import fixed_clock
from teamdeck.model.team import decode_text
from teamdeck.protocol.team.teams import read_team
from teamdeck.sim.clock import DEMO_NOW
from teamdeck.sim.personas import STATUS_CHECK
from teamdeck.sim.scenario import ASSIGNMENTS, CRASH_CHECK_AT, WORKER_EVERY, WORKERS_AT, Scenario, pending_workers
from teamdeck.sim.setup import install_agents
from teamdeck.store.workspace import Workspace


def inbox(root: Path, team: str, member: str) -> list[dict]:
    return json.loads((root / "teams" / team / "inboxes" / f"{member}.json").read_text())


def test_the_lead_creates_the_missing_workers_with_a_prompt_then_assigns_tasks(demo: Path):
    ws = Workspace.at(demo, clock=fixed_clock(DEMO_NOW))
    assert [(w.team, w.task_id, w.agent_id) for w in pending_workers(ws)] == [
        ("perf-audit", "search-index", "indexer"),
        ("perf-audit", "search-index", "ranker"),
    ]
    leads_before = {team: len(inbox(demo, team, "team-lead")) for team in ("perf-audit", "checkout-revamp")}
    scenario = Scenario(ws, seed=1)
    scenario.scheduler.advance(WORKERS_AT)
    indexer = read_team(ws, "perf-audit").member("indexer")
    assert indexer is not None and indexer.isActive and "worker indexer of task search-index" in indexer.prompt
    assert read_team(ws, "perf-audit").member("ranker") is None
    scenario.scheduler.advance(WORKERS_AT + WORKER_EVERY)
    assert read_team(ws, "perf-audit").member("ranker") is not None
    assert pending_workers(ws) == []  # members now: not created twice
    scenario.scheduler.advance(max(a.at for a in ASSIGNMENTS))
    for assignment in ASSIGNMENTS:
        (message,) = [m for m in inbox(demo, "perf-audit", assignment.member) if not m["read"]]
        assert decode_text(message["text"]).KIND == "task_assignment" and message["from"] == "team-lead"
    # the lead's side writes nothing a teammate would: no reply, no idle notification
    assert {team: len(inbox(demo, team, "team-lead")) for team in leads_before} == leads_before
    assert scenario.scheduler.errors == []


def test_status_checks_go_to_the_crashed_member_once_and_otherwise_only_to_idle_run_teammates(demo: Path):
    install_agents(demo)
    ws = Workspace.at(demo, clock=fixed_clock(DEMO_NOW))
    scenario = Scenario(ws, seed=5)
    scenario.scheduler.advance(CRASH_CHECK_AT)
    (check,) = [m for m in inbox(demo, "perf-audit", "log-miner") if not m["read"]]
    assert check["summary"] == STATUS_CHECK
    scenario.scheduler.advance(600.0)
    checked = [
        (team, member.name)
        for team in ("checkout-revamp", "perf-audit", "quant")
        for member in read_team(ws, team).members
        for message in inbox(demo, team, member.name)
        if message.get("summary") == STATUS_CHECK and not (member.name == "log-miner")
    ]
    chatter = [happened for happened in scenario.scheduler.history if happened.label == "chatter"]
    assert len(chatter) >= 600 // 30
    # nobody answers here (no runner): a member with an unread check is not checked again
    assert len(checked) == len(set(checked)) and checked
    assert all(member not in ("team-lead", "docs-writer") for _team, member in checked)
