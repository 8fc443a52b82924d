"""Runs are seen everywhere (docs/protocol.md, "Running the agents"): `teamdeck runs [--team] [--json]`,
`runs show`, `status` and `status --json`, MCP `list_agents` (running only while the
recorded process really runs), the runner's decisions in `decisions list`."""

from __future__ import annotations

import json
import os
import signal

from support.runner_world import TEAM, wait_for

from teamdeck.view.agents import list_agents


def test_status_runs_and_list_agents_show_a_running_member_truthfully(world) -> None:
    w = world(["dev", "qa"])
    w.start()
    w.send("dev", "sleep:60")
    live = wait_for(lambda: [r for r in w.runs("dev") if r.live and r.pid], 20)[0]
    wait_for(lambda: w.agent_log(), 20)

    status = json.loads(w.cli("status", "--json").stdout)
    dev = next(m for t in status["teams"] for m in t["members"] if m["name"] == "dev")
    assert dev["run"]["running"] is True and dev["run"]["run"] == live.id and dev["run"]["runsToday"] == 1
    text = w.cli("status").stdout
    assert any(
        line.strip().startswith("dev") and "▶ running" in line and "1 run today" in line for line in text.splitlines()
    )

    agents = {agent["name"]: agent for agent in list_agents(w.ws, TEAM)}
    assert agents["dev"]["running"] is True and agents["qa"]["running"] is False

    listed = json.loads(w.cli("runs", "--team", TEAM, "--json").stdout)["runs"]
    assert [run["id"] for run in listed] == [live.id] and listed[0]["state"] == "running"
    assert listed[0]["processAlive"] is True
    assert json.loads(w.cli("runs", "--team", "other", "--json").stdout)["runs"] == []
    shown = w.cli("runs", "show", live.id[:12])
    assert shown.returncode == 0 and "started" in shown.stdout and f"pid: {live.pid}" in shown.stdout

    # the runner and its run die without a word: the record still says running, nobody believes it
    w.kill()
    os.killpg(live.pid, signal.SIGKILL)
    wait_for(lambda: not list_agents(w.ws, TEAM)[1]["running"], 10)
    assert w.runs("dev")[0].state == "running"
    assert json.loads(w.cli("runs", "--json").stdout)["runs"][0]["processAlive"] is False


def test_runs_show_names_an_unknown_run(world) -> None:
    w = world(["dev"])
    done = w.cli("runs", "show", "r-nothing")
    assert done.returncode != 0 and "no run r-nothing (see `teamdeck runs`)" in done.stderr


def test_s21_runs_show_draws_no_escape_an_agent_wrote_to_its_stderr(world) -> None:
    """An agent's stderr is its own text: ``ESC ]52`` (a clipboard write) or ``ESC c``
    (a terminal reset) must reach the terminal as visible marks, never as sequences."""
    w = world(["dev"])
    w.start()
    w.send("dev", "hello")
    run = wait_for(lambda: [r for r in w.runs("dev") if r.outcome == "succeeded"], 30)[0]
    stderr = w.ws.run_dir(TEAM, "dev", run.id) / "stderr.log"
    with stderr.open("a") as log:
        log.write("before\x1b]52;c;ZXZpbA==\x07 after\x1bc reset\x1b[2J\n")
    shown = w.cli("runs", "show", run.id)
    assert shown.returncode == 0 and "before" in shown.stdout and "reset" in shown.stdout
    assert "\x1b" not in shown.stdout and "\x07" not in shown.stdout
    raw = json.loads(w.cli("runs", "show", run.id, "--json").stdout)
    assert "\x1b]52" in json.dumps(raw, ensure_ascii=False) or "\\u001b]52" in json.dumps(raw)  # JSON keeps the value
