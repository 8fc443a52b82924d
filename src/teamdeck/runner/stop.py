"""``teamdeck run stop TEAM MEMBER``: end a member's run. The stop is asked of the runner
(runs/requests.jsonl), which stops the process group (SIGTERM, grace, SIGKILL), then
what the run left running, and records the run as stopped; with no runner alive, the
command does that itself."""

from __future__ import annotations

import asyncio
import time

from teamdeck.clock import iso
from teamdeck.protocol.runs.requests import request
from teamdeck.runner.lock import describe
from teamdeck.runner.process import Identity, end_leftovers, stop_group
from teamdeck.runtime.config import load_agents
from teamdeck.store.runs import write_run
from teamdeck.store.workspace import Workspace
from teamdeck.view.readers.runs import member_runs, runner_holder

WAIT_S = 30.0


def _wait_ended(ws: Workspace, team: str, member: str, run_id: str, holder: dict[str, object]) -> str:
    """Wait (at most the member's grace period and a bit) for the runner to end the run."""
    config = load_agents(ws.root).resolve(team, member)
    deadline = time.monotonic() + (config.grace_s if config is not None else 10.0) + WAIT_S
    while time.monotonic() < deadline:
        run = next((r for r in member_runs(ws, team, member).runs if r.id == run_id), None)
        if run is None or not run.live:
            return f"{team}/{member} run {run_id} stopped by the runner ({describe(holder)})"
        time.sleep(0.05)
    return f"stop of {team}/{member} run {run_id} asked of the runner ({describe(holder)}); it has not ended yet"


async def _stop(ws: Workspace, identity: Identity, run_id: str, grace: float) -> str:
    """Stop the run's process group, then what it left running (F21), as the runner does."""
    how = await stop_group(identity, None, grace)
    await end_leftovers(identity.pid, ws.root, run_id, grace)
    return how


def stop_member(ws: Workspace, team: str, member: str) -> str:
    """Stop ``team/member``'s run; what happened, in one line."""
    live = member_runs(ws, team, member).live
    request(ws, "stop", team, member)
    holder = runner_holder(ws)
    if holder:
        if live is None:
            return f"{team}/{member} has no run going (stop asked of the runner, {describe(holder)})"
        return _wait_ended(ws, team, member, live.id, holder)
    if live is None or live.pid is None:
        return f"{team}/{member} has no run going"
    identity = Identity(live.pid, live.processStarted)
    config = load_agents(ws.root).resolve(team, member)
    grace = config.grace_s if config is not None else 10.0
    how = asyncio.run(_stop(ws, identity, live.id, grace))
    ended = live.model_copy(
        update={"state": "ended", "outcome": "stopped", "endedAt": iso(ws.clock()), "error": f"stopped by {ws.actor}"}
    )
    write_run(ws, ended)
    return f"{team}/{member} run {live.id} stopped ({how}; no runner was running)"
