"""End to end in tmux: ``teamdeck tui`` on a copy of the demo; an agent (this test)
writes a blocked final.json from outside; the new gate appears on screen by itself
(watcher → auto-join → gate queue); a person approves it with keys only; the decision
is on disk (events.jsonl, task.yaml) and on screen.

tmux runs on a private server socket (``tmux -L``), so the test never touches a
person's own tmux sessions; the server is killed whatever happens.
"""

from __future__ import annotations

import json
import re
import shutil
import time
from pathlib import Path

import pytest
from support.tmux import DEADLINE_S, Tmux, tui_command

from teamdeck.protocol.task.taskfile import load_task
from teamdeck.sim.outputs import write_final_output
from teamdeck.store.workspace import Workspace

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")

TASK, WORKER = "search-index", "indexer"
MARKER = "shard count for tmux"


def _events(root: Path) -> list[dict]:
    lines = (root / "tasks" / TASK / "events.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line]


def test_a_gate_written_from_outside_appears_and_is_approved_with_keys(demo: Path) -> None:
    env_command = tui_command(demo)
    # The worker's directory exists before the app starts: inotify cannot see a file
    # written into a directory created a moment earlier (the watch on the new directory
    # comes too late; watch.py misses about one in three such final.json writes).
    (demo / "tasks" / TASK / "agents" / WORKER / "artifacts").mkdir(parents=True)
    session = Tmux(env_command)
    try:
        first = session.wait_for("1 Decisions", "a Approve", " unread")  # the first snapshot is drawn
        unread = re.search(r"(\d+) unread", first)
        assert unread is not None, first
        ws = Workspace.at(demo)

        # The watcher is live once a message written from outside shows up by itself.
        inbox = ws.inbox("perf-audit", "team-lead")
        entries = json.loads(inbox.read_text(encoding="utf-8"))
        entries.append(
            {
                "from": "indexer",
                "text": "starting",
                "summary": "starting",
                "read": False,
                "timestamp": "2026-03-01T12:00:00.000Z",
                "color": "green",
            }
        )
        inbox.write_text(json.dumps(entries, indent=2), encoding="utf-8")
        count = int(unread.group(1))
        session.wait_for(f"{count + 1} unread")

        # An agent finishes blocked: the gate appears without a key being pressed.
        write_final_output(
            ws,
            TASK,
            WORKER,
            {
                "status": "blocked",
                "summary": f"need the {MARKER}",
                "questions": ["Rebuild with 8 shards or 16?"],
                "finishedAt": "2026-03-01T12:01:00.000Z",
            },
        )
        screen = session.wait_for(MARKER)
        gate = next(gate for gate in load_task(ws, TASK).gates if gate.agentInstance == WORKER)
        assert gate.state == "blocked"
        assert any(WORKER in line and TASK in line for line in screen.splitlines()), screen

        # Keys only: focus the queue, go to the newest gate (the last row), check it is ours.
        session.keys("1")
        session.wait_for("a Approve")  # keys go to the panel that has the focus: wait for it
        session.keys("End")
        session.wait_for(f"gate {gate.id}  from task {TASK}", "Rebuild with 8 shards or 16?")
        session.keys("a")
        session.wait_for("Approve", "Note (optional)")
        session.keys("8 shards", "Enter")
        session.wait_gone(MARKER)

        approved = [
            event
            for event in _events(demo)
            if event["type"] == "gate.approved" and event["payload"]["gateId"] == gate.id
        ]
        assert len(approved) == 1 and approved[0]["payload"].get("note") == "8 shards"
        decided = next(g for g in load_task(ws, TASK).gates if g.id == gate.id)
        assert decided.state == "approved" and decided.note == "8 shards"

        # The screen shows the decision: the task's detail lists the gate as approved.
        session.keys("4")
        session.wait_for("J Join again")
        session.keys("Home")
        # The team task lists follow teamdeck's tasks: walk down to ours.
        # One row at a time (each Down drawn before the next: a loaded machine lags); from
        # the top again at the end of the list, since the task's row may show the gate
        # approved only once the refresh of the approval is drawn.
        deadline = time.monotonic() + DEADLINE_S
        while f"gate {gate.id} approved" not in (before := session.screen()) and time.monotonic() < deadline:
            session.keys("Down")
            if session.wait_changed(before, timeout_s=2.0) == before:
                session.keys("Home")
                session.wait_changed(before, timeout_s=2.0)
        session.wait_for(f"gate {gate.id} approved")
    finally:
        session.kill()
