"""Generated workspaces of a given size, for the benchmarks (the TUI's performance targets).

A workspace here looks like one real agents and teamdeck wrote (docs/protocol.md,
fixtures/claude-code/FORMAT.md): Claude Code teams (``config.json``, one inbox per
member, teamdeck's ``messages.jsonl``) and teamdeck tasks (``task.yaml`` folded from
its ``events.jsonl`` by the protocol's own reducers, workers' ``final.json``). Blocked
workers have an open gate each, so there is something to approve.

Files are written directly (no locks, no fsync): generating is not what is measured.
A big ``events.jsonl`` (a million lines) is written line by line in the documented
format with ids and timestamps computed arithmetically (about 4 s per million).

Usage::

    python bench/generate.py DIR [--teams 25] [--members 500] [--tasks 200]
        [--files 1000] [--gates 250] [--big-log 1000000] [--team-log 10000]
"""

from __future__ import annotations

import argparse
import base64
import hashlib
import json
import sys
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from teamdeck.clock import iso
from teamdeck.formats.claude_code.json_files import encode_pretty
from teamdeck.model.event import Event
from teamdeck.model.team import COLORS, TeamConfig
from teamdeck.model.worker_output import WorkerOutput
from teamdeck.protocol.task.replay import replay
from teamdeck.protocol.task.taskfile import dump_task

BASE_TIME = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)
"""Every generated timestamp counts from here (so runs are reproducible)."""
ACTOR = "human:bench"
LEAD = "team-lead"
ROLES = ("api-dev", "ui-dev", "db-migrator", "test-writer", "docs-writer", "profiler", "reviewer", "log-miner")
MODELS = ("claude-opus-4-6", "claude-sonnet-4-5-20250929", "haiku")


@dataclass
class Layout:
    """What :func:`generate` made, for the benchmarks to act on.

    Attributes:
        root: the workspace directory.
        teams: team name -> member names (the lead first).
        tasks: task ids, in order.
        gates: (task id, gate id) of every open gate, oldest first.
        files: how many regular files the workspace holds (all of them are watched).
        big_log: the events.jsonl holding the big log, if one was asked for.
        big_task: the task it belongs to.
    """

    root: Path
    teams: dict[str, list[str]] = field(default_factory=dict)
    tasks: list[str] = field(default_factory=list)
    gates: list[tuple[str, str]] = field(default_factory=list)
    files: int = 0
    big_log: Path | None = None
    big_task: str | None = None

    @property
    def members(self) -> int:
        return sum(len(names) for names in self.teams.values())

    def inboxes(self) -> list[Path]:
        """Every member's inbox file."""
        return [
            self.root / "teams" / team / "inboxes" / f"{name}.json"
            for team, names in self.teams.items()
            for name in names
        ]


# --- ids and times -----------------------------------------------------------------------

_CROCKFORD = bytes.maketrans(b"ABCDEFGHIJKLMNOPQRSTUVWXYZ234567", b"0123456789ABCDEFGHJKMNPQRSTVWXYZ")


def ulid(ms: int, sequence: int) -> str:
    """A ULID (Crockford base32, 26 characters) for time ``ms`` with ``sequence`` as its
    random part: unique and sorted for increasing (ms, sequence)."""
    value = (ms << 80) | (sequence & ((1 << 80) - 1))
    # 17 bytes hold the 130 bits of 26 base32 digits (top two bits zero) shifted left by 6.
    return base64.b32encode((value << 6).to_bytes(17, "big")).translate(_CROCKFORD)[:26].decode("ascii")


def _epoch_ms(moment: datetime) -> int:
    return int(moment.timestamp() * 1000)


class _Clock:
    """A generator clock: every call is one second later than the previous one."""

    def __init__(self, start: datetime = BASE_TIME) -> None:
        self.now = start
        self.sequence = 0

    def tick(self, seconds: float = 1.0) -> datetime:
        self.now += timedelta(seconds=seconds)
        return self.now

    def event(self, type_: str, payload: dict[str, Any], actor: str = ACTOR) -> Event:
        moment = self.tick()
        self.sequence += 1
        return Event(
            id=ulid(_epoch_ms(moment), self.sequence), ts=iso(moment), type=type_, actor=actor, payload=payload
        )


# --- teams ---------------------------------------------------------------------------------


def _team_config(team: str, names: list[str], created: datetime) -> dict[str, Any]:
    ms = _epoch_ms(created)
    members: list[dict[str, Any]] = [
        {
            "agentId": f"{LEAD}@{team}",
            "name": LEAD,
            "agentType": "team-lead",
            "model": MODELS[0],
            "joinedAt": ms,
            "tmuxPaneId": "",
            "cwd": "/home/dev/shop",
            "subscriptions": [],
        }
    ]
    for index, name in enumerate(names[1:], 1):
        members.append(
            {
                "agentId": f"{name}@{team}",
                "name": name,
                "agentType": "general-purpose",
                "model": MODELS[index % len(MODELS)],
                "prompt": f"You are {name} on {team}.",
                "color": COLORS[index % len(COLORS)],
                "planModeRequired": False,
                "joinedAt": ms + index * 1000,
                "tmuxPaneId": f"%{index}",
                "cwd": "/home/dev/shop",
                "subscriptions": [],
                "backendType": "tmux",
                "isActive": True,
            }
        )
    config = {
        "name": team,
        "description": f"generated team {team}",
        "createdAt": ms,
        "leadAgentId": f"{LEAD}@{team}",
        "leadSessionId": "00000000-0000-4000-8000-000000000000",
        "members": members,
    }
    TeamConfig.model_validate(config)
    return config


def _inbox(team: str, name: str, names: list[str], clock: _Clock, messages: int) -> list[dict[str, Any]]:
    """A plausible inbox: the lead gets idle notifications and reports from its members;
    a member gets task assignments and notes from the lead. The newest two are unread."""
    entries = []
    for index in range(messages):
        moment = iso(clock.tick())
        unread = index >= messages - 2
        if name == LEAD:
            sender = names[1 + index % max(1, len(names) - 1)] if len(names) > 1 else LEAD
            if index % 2:
                text = json.dumps(
                    {"type": "idle_notification", "from": sender, "timestamp": moment, "idleReason": "available"}
                )
                entries.append({"from": sender, "text": text, "timestamp": moment, "read": not unread})
            else:
                entries.append(
                    {
                        "from": sender,
                        "text": f"Step {index} of my task is done.",
                        "summary": f"step {index} done",
                        "timestamp": moment,
                        "read": not unread,
                    }
                )
        elif index == 0:
            text = json.dumps(
                {
                    "type": "task_assignment",
                    "taskId": str(index + 1),
                    "subject": f"Work item for {name}",
                    "description": "Generated assignment.",
                    "assignedBy": LEAD,
                    "timestamp": moment,
                }
            )
            entries.append({"from": LEAD, "text": text, "timestamp": moment, "read": not unread})
        else:
            entries.append(
                {
                    "from": LEAD,
                    "text": f"Note {index} for {name} on {team}.",
                    "summary": f"note {index}",
                    "timestamp": moment,
                    "read": not unread,
                }
            )
    return entries


def _team_log(team: str, names: list[str], clock: _Clock) -> bytes:
    lines = []
    for index, name in enumerate(names):
        moment = clock.tick()
        clock.sequence += 1
        record = {
            "id": ulid(_epoch_ms(moment), clock.sequence),
            "ts": iso(moment),
            "type": "team_created" if index == 0 else "member_added",
            "actor": ACTOR,
            "member": name,
        }
        lines.append(json.dumps(record, separators=(",", ":")))
    return ("\n".join(lines) + "\n").encode()


def _sends(team: str, names: list[str], count: int, clock: _Clock) -> tuple[bytes, dict[str, list[dict[str, Any]]]]:
    """``count`` plain messages from the lead to its members, round-robin, as
    ``teamdeck send`` leaves them: a ``message`` record in messages.jsonl and the entry
    in the recipient's inbox (already read). Returns the log lines and the entries by
    recipient."""
    members = [name for name in names if name != LEAD] or [LEAD]
    lines, delivered = [], {}
    for index in range(count):
        moment = clock.tick()
        clock.sequence += 1
        recipient, stamp, text = members[index % len(members)], iso(moment), f"Message {index} for the team {team}."
        record = {
            "id": ulid(_epoch_ms(moment), clock.sequence),
            "ts": stamp,
            "type": "message",
            "actor": ACTOR,
            "from": LEAD,
            "to": [recipient],
            "summary": f"message {index}",
            "timestamp": stamp,
            "text": text,
        }
        lines.append(json.dumps(record, separators=(",", ":")))
        delivered.setdefault(recipient, []).append(
            {"from": LEAD, "text": text, "summary": f"message {index}", "timestamp": stamp, "read": True}
        )
    return ("\n".join(lines) + "\n").encode() if lines else b"", delivered


# --- tasks ---------------------------------------------------------------------------------


def _final_output(status: str, agent: str, task_id: str, finished: datetime) -> dict[str, Any]:
    output: dict[str, Any] = {"status": status, "finishedAt": iso(finished)}
    if status == "blocked":
        output["summary"] = f"{agent} stopped on {task_id}: a decision is needed."
        output["questions"] = [f"Should {agent} keep the old API of {task_id}?"]
    else:
        output["summary"] = f"{agent} finished its part of {task_id}."
        output["changedFiles"] = [f"src/{task_id}/{agent}.py"]
    WorkerOutput.model_validate(output)
    return output


def _output_bytes(output: dict[str, Any]) -> bytes:
    return (json.dumps(output, indent=2) + "\n").encode()


def _task_events(
    task_id: str,
    title: str,
    team: str,
    workers: list[dict[str, Any]],
    blocked: dict[str, dict[str, Any]],
    clock: _Clock,
) -> list[Event]:
    """The events of a task created with ``workers`` whose ``blocked`` ones (agent ->
    final.json) each opened a gate through a join: the events ``teamdeck join`` appends,
    with the same reason and digest, so a later join finds nothing to change."""
    task = {
        "id": task_id,
        "title": title,
        "state": "working",
        "gates": [],
        "team": team,
        "creator": ACTOR,
        "workers": workers,
    }
    events = [clock.event("task.created", {"task": task})]
    for agent, output in blocked.items():
        digest = "sha256:" + hashlib.sha256(_output_bytes(output)).hexdigest()[:16]
        events.append(
            clock.event(
                "gate.blocked",
                {
                    "gateId": f"g-{agent}-1",
                    "kind": "worker-blocked",
                    "reason": f"worker {agent} is blocked: {output['summary']}",
                    "agentInstance": agent,
                    "questions": output["questions"],
                    "instructionsRef": "./shared/human-notes.md",
                    "outputDigest": digest,
                },
            )
        )
    if blocked:
        events.append(
            clock.event(
                "task.state_changed",
                {
                    "from": "working",
                    "to": "input-required",
                    "reason": f"a worker is blocked: g-{next(iter(blocked))}-1",
                },
            )
        )
    counts = {
        "completed": len(workers) - len(blocked),
        "blocked": len(blocked),
        "failed": 0,
        "invalid": 0,
        "pending": 0,
        "total": len(workers),
    }
    events.append(
        clock.event(
            "join.completed", {"counts": counts, "gatesOpened": [f"g-{a}-1" for a in blocked], "gatesUpdated": []}
        )
    )
    return events


FILLER_TEMPLATE = (
    '{"id":"%s%s%s%s%s%s","ts":"%s.%03dZ","type":"join.completed","actor":"' + ACTOR + '","payload":{"counts":'
    '{"completed":%d,"blocked":0,"failed":0,"invalid":0,"pending":0,"total":%d},"gatesOpened":[],'
    '"gatesUpdated":[]}}\n'
)
_DIGITS = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
_PAIRS = [_DIGITS[value >> 5] + _DIGITS[value & 31] for value in range(1024)]
"""Two Crockford digits for every 10-bit value: a ULID is assembled from these."""


def write_filler_events(handle: Any, count: int, start: datetime, sequence: int) -> tuple[str, datetime]:
    """Write ``count`` ``join.completed`` events (one per millisecond after ``start``) to
    an open binary file, fast; return the last id and time.

    Each id is the :func:`ulid` of (time, ``sequence`` + n), assembled from cached
    parts (the top of the time changes every 1024 ms, the top of the sequence once
    per 2**30 events) and two-digit tables: about 3 µs a line.
    """
    start_ms = _epoch_ms(start)
    time_key = second_key = sequence_key = -1
    time_top = second_text = sequence_top = ""
    last_id, ms = "", start_ms
    chunk: list[str] = []
    for index in range(1, count + 1):
        ms, number = start_ms + index, sequence + index
        if ms >> 10 != time_key:
            time_key = ms >> 10
            time_top = ulid(time_key << 10, 0)[:8]
        if number >> 30 != sequence_key:
            sequence_key = number >> 30
            sequence_top = ulid(0, sequence_key << 30)[10:20]
        if ms // 1000 != second_key:
            second_key = ms // 1000
            second_text = datetime.fromtimestamp(second_key, UTC).strftime("%Y-%m-%dT%H:%M:%S")
        parts = (
            time_top,
            _PAIRS[ms & 1023],
            sequence_top,
            _PAIRS[(number >> 20) & 1023],
            _PAIRS[(number >> 10) & 1023],
            _PAIRS[number & 1023],
        )
        workers = index % 7 + 1
        chunk.append(FILLER_TEMPLATE % (*parts, second_text, ms % 1000, workers, workers))
        if len(chunk) >= 65536:
            handle.write("".join(chunk).encode())
            chunk.clear()
        last_id = "".join(parts)
    handle.write("".join(chunk).encode())
    return last_id, datetime.fromtimestamp(ms / 1000, UTC)


def _write_task(
    root: Path, task_id: str, events: list[Event], outputs: dict[str, dict[str, Any]], filler: int, clock: _Clock
) -> int:
    """Write events.jsonl (plus ``filler`` events), task.yaml folded from the events,
    and the workers' final.json files; returns the number of files written."""
    task_dir = root / "tasks" / task_id
    task_dir.mkdir(parents=True)
    folded = replay(events)
    assert folded is not None
    with open(task_dir / "events.jsonl", "wb") as handle:
        for event in events:
            handle.write(
                (json.dumps(event.model_dump(mode="json"), separators=(",", ":"), ensure_ascii=False) + "\n").encode()
            )
        if filler:
            last_id, last_time = write_filler_events(handle, filler, clock.now, clock.sequence)
            clock.sequence += filler
            clock.now = last_time
            folded["lastEventId"] = last_id
    (task_dir / "task.yaml").write_bytes(dump_task(folded))
    for agent, output in outputs.items():
        artifacts = task_dir / "agents" / agent / "artifacts"
        artifacts.mkdir(parents=True)
        (artifacts / "final.json").write_bytes(_output_bytes(output))
    return 2 + len(outputs)


# --- the workspace ---------------------------------------------------------------------------


def generate(
    root: Path,
    *,
    teams: int = 25,
    members: int = 500,
    tasks: int = 200,
    files: int = 1000,
    gates: int = 250,
    messages: int = 5,
    task_events: int = 0,
    big_log: int = 0,
    team_log: int = 0,
) -> Layout:
    """Write a workspace of the given size into the empty or missing directory ``root``.

    Args:
        root: where (created; must not hold a workspace already).
        teams: Claude Code teams.
        members: members over all teams (each team's lead included), at least one per team.
        tasks: teamdeck tasks (each belongs to a team; at least one).
        files: the total of regular files to reach, by giving tasks workers (each
            with a final.json); the minimum is what teams and tasks need (tasks get no
            workers then).
        gates: open gates (blocked workers), spread over the first tasks (at most 5
            per task; at most one per worker).
        messages: entries per inbox.
        task_events: filler events appended to every task's log (besides its real ones).
        big_log: lines of filler events in the first task's log (``1_000_000`` for the
            start benchmark); the rest of the tasks keep small logs.
        team_log: messages the first team's lead sent through teamdeck (each logged in
            its messages.jsonl and delivered to an inbox), for a long-lived team.

    Returns:
        The :class:`Layout`.
    """
    if teams < 1 or members < teams or tasks < 1:
        raise ValueError("need at least one team, one member per team and one task")
    root.mkdir(parents=True, exist_ok=True)
    if any(root.iterdir()):
        raise ValueError(f"{root} is not empty")
    layout = Layout(root=root.resolve())
    clock = _Clock()
    count = 0
    for index in range(teams):
        team = f"team-{index + 1:02d}"
        size = members // teams + (1 if index < members % teams else 0)
        names = [LEAD] + [f"{ROLES[n % len(ROLES)]}-{index + 1:02d}-{n:02d}" for n in range(1, size)]
        layout.teams[team] = names
        team_dir = root / "teams" / team
        (team_dir / "inboxes").mkdir(parents=True)
        (team_dir / "config.json").write_bytes(encode_pretty(_team_config(team, names, clock.tick())))
        log = _team_log(team, names, clock)
        sent, delivered = _sends(team, names, team_log if index == 0 else 0, clock)
        (team_dir / "messages.jsonl").write_bytes(log + sent)
        for name in names:
            entries = _inbox(team, name, names, clock, messages)
            entries[:0] = delivered.get(name, [])
            (team_dir / "inboxes" / f"{name}.json").write_bytes(encode_pretty(entries))
        count += 2 + len(names)
    team_names = list(layout.teams)
    base_files = count + 2 * tasks
    workers_total = max(0, files - base_files)
    gates_left = gates
    for index in range(tasks):
        task_id = f"task-{index + 1:04d}"
        team = team_names[index % len(team_names)]
        names = [name for name in layout.teams[team] if name != LEAD] or [LEAD]
        n_workers = workers_total // tasks + (1 if index < workers_total % tasks else 0)
        workers = []
        for n in range(n_workers):
            member = names[(index + n) % len(names)]
            agent = f"{member}-w{n + 1}"
            workers.append({"id": agent, "member": member, "role": "implementor", "assignedAt": iso(clock.tick())})
        n_blocked = min(gates_left, 5, len(workers))
        gates_left -= n_blocked
        finished = clock.tick()
        outputs = {
            worker["id"]: _final_output(
                "blocked" if number < n_blocked else "completed", worker["id"], task_id, finished
            )
            for number, worker in enumerate(workers)
        }
        blocked = {agent: output for agent, output in outputs.items() if output["status"] == "blocked"}
        events = _task_events(task_id, f"Generated task {index + 1}", team, workers, blocked, clock)
        filler = big_log if index == 0 and big_log else task_events
        count += _write_task(root, task_id, events, outputs, filler, clock)
        layout.tasks.append(task_id)
        layout.gates += [(task_id, f"g-{agent}-1") for agent in blocked]
        if index == 0 and big_log:
            layout.big_log, layout.big_task = root / "tasks" / task_id / "events.jsonl", task_id
    layout.files = count
    return layout


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("root", type=Path)
    parser.add_argument("--teams", type=int, default=25)
    parser.add_argument("--members", type=int, default=500)
    parser.add_argument("--tasks", type=int, default=200)
    parser.add_argument("--files", type=int, default=1000)
    parser.add_argument("--gates", type=int, default=250)
    parser.add_argument("--messages", type=int, default=5)
    parser.add_argument("--big-log", type=int, default=0, help="lines in the first task's events.jsonl")
    parser.add_argument(
        "--team-log", type=int, default=0, help="messages sent (logged and delivered) in the first team"
    )
    args = parser.parse_args(argv)
    started = time.perf_counter()
    layout = generate(
        args.root,
        teams=args.teams,
        members=args.members,
        tasks=args.tasks,
        files=args.files,
        gates=args.gates,
        messages=args.messages,
        big_log=args.big_log,
        team_log=args.team_log,
    )
    took = time.perf_counter() - started
    big = f", {args.big_log:,} events in {layout.big_log.relative_to(layout.root)}" if layout.big_log else ""
    print(
        f"{layout.root}: {len(layout.teams)} teams, {layout.members} members, {len(layout.tasks)} tasks, "
        f"{len(layout.gates)} open gates, {layout.files} files{big} ({took:.1f} s)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
