"""The runner's rows (``teamdeck run``, docs/protocol.md "Running the agents"), added to
the table by run.py (target ``extra``) or printed alone (``python bench/rows_runner.py``):

- inbox write → agent process started: a message sent, from the inbox file's mtime (when
  the write landed) to the run's ``startedAt`` (the clock read right after the spawn); one
  member at a time, the agent is ``true``;
- a burst of 1,000 messages over 50 members, as fast as one writer sends them: every
  message must be covered by exactly one run (no wake lost, none doubled) and no member
  may ever have two runs at once;
- the runner's idle CPU: 50 configured members, nothing to do, 10 s;
- 50 members at ``max_concurrent: 8``, each woken once, the agent sleeps 0.5 s: the
  queue wait (start - wake arrival) and the most runs at once.

The runner is started as a user starts it (``python -m teamdeck run``), in a temporary
workspace; nothing here asserts a time.
"""

from __future__ import annotations

import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

import yaml
from common import Result, cpu_seconds, latency_result, percentile, print_table

from teamdeck.clock import parse_iso
from teamdeck.protocol.team.messaging.sending import send_message
from teamdeck.protocol.team.teams import add_member, create_team
from teamdeck.store.workspace import Workspace
from teamdeck.view.readers.runs import all_runs

TEAM = "bench"


def _workspace(root: Path, members: int, command: list[str], **defaults: object) -> Workspace:
    ws = Workspace.at(root, actor="human:bench")
    create_team(ws, TEAM)
    for number in range(members):
        add_member(ws, TEAM, f"m{number}")
    agents = {"defaults": {"retries": 0, **defaults}, f"{TEAM}/*": {"runtime": "command", "command": command}}
    (root / ".teamdeck.yaml").write_text(yaml.safe_dump({"agents": agents}))
    return ws


def _runner(root: Path) -> subprocess.Popen[bytes]:
    process = subprocess.Popen(
        [sys.executable, "-m", "teamdeck", "-w", str(root), "run"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    deadline = time.monotonic() + 30
    lock = root / "runs" / "runner.lock"
    while not (lock.exists() and lock.stat().st_size > 0):
        if time.monotonic() > deadline or process.poll() is not None:
            raise RuntimeError("the runner did not start")
        time.sleep(0.02)
    time.sleep(0.5)  # its first look and the watcher in place
    return process


def _stop(process: subprocess.Popen[bytes]) -> None:
    process.send_signal(signal.SIGTERM)
    process.wait(60)


def _wait(check, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if check():
            return True
        time.sleep(0.01)
    return False


def _runs(ws: Workspace):
    return [run for member in all_runs(ws, TEAM) for run in member.runs]


def wake_latency(samples: int) -> Result:
    with tempfile.TemporaryDirectory(prefix="teamdeck-bench-runner-") as scratch:
        root = Path(scratch)
        ws = _workspace(root, samples, ["true"])
        runner = _runner(root)
        latencies, sends = [], []
        try:
            for number in range(samples):
                member = f"m{number}"
                before = time.time()
                send_message(ws, TEAM, member, "go", summary="go")
                sends.append((time.time() - before) * 1000)
                written = ws.inbox(TEAM, member).stat().st_mtime  # when the message landed in the inbox

                def started(member: str = member) -> str | None:
                    runs = [run for runs in all_runs(ws, TEAM) if runs.member == member for run in runs.runs]
                    return runs[0].startedAt if runs and runs[0].startedAt else None

                if _wait(started, 10):
                    latencies.append((parse_iso(started() or "").timestamp() - written) * 1000)
                time.sleep(0.05)
        finally:
            _stop(runner)
    note = (
        f"the inbox's mtime after send_message (which took {statistics.median(sends):.1f} ms) to the run's startedAt "
        "(read right after the spawn); agent `true`"
    )
    return latency_result("runner: inbox write → agent process started", latencies, 50, 150, note)


def burst(members: int, messages: int) -> Result:
    with tempfile.TemporaryDirectory(prefix="teamdeck-bench-runner-") as scratch:
        root = Path(scratch)
        ws = _workspace(root, members, ["true"], max_concurrent=8)
        runner = _runner(root)
        began = time.monotonic()
        try:
            for number in range(messages):
                send_message(ws, TEAM, f"m{number % members}", f"message {number}", summary="burst")
            sent = time.monotonic() - began
            done = _wait(
                lambda: sum(len(r.messages) for r in _runs(ws)) >= messages and not any(r.live for r in _runs(ws)), 300
            )
            took = time.monotonic() - began
        finally:
            _stop(runner)
        runs = _runs(ws)
    covered = Counter(message.key for run in runs for message in run.messages)
    lost = messages - len(covered)
    doubled = sum(1 for count in covered.values() if count > 1)
    overlapping = _overlaps_per_member(runs)
    ok = done and lost == 0 and doubled == 0 and overlapping == 0
    return Result(
        f"runner: burst of {messages:,} messages over {members} members",
        f"{lost} wakes lost, {doubled} messages in two runs, {overlapping} members with two runs at once; "
        f"{len(runs)} runs; sent in {sent:.1f} s, all run in {took:.1f} s",
        "0 lost, 0 doubled",
        ok,
        "agent `true`, max_concurrent 8",
    )


def _overlaps_per_member(runs) -> int:
    by_member: dict[str, list] = {}
    for run in runs:
        by_member.setdefault(run.member, []).append(run)
    bad = 0
    for member_runs in by_member.values():
        spans = sorted((run.startedAt or run.createdAt, run.endedAt or "~") for run in member_runs)
        bad += any(later[0] < earlier[1] for earlier, later in zip(spans, spans[1:], strict=False))
    return bad


def idle_cpu(members: int, seconds: float) -> Result:
    with tempfile.TemporaryDirectory(prefix="teamdeck-bench-runner-") as scratch:
        root = Path(scratch)
        _workspace(root, members, ["true"])
        runner = _runner(root)
        time.sleep(1.0)
        try:
            before, at = cpu_seconds(runner.pid), time.monotonic()
            time.sleep(seconds)
            used = (cpu_seconds(runner.pid) - before) / (time.monotonic() - at) * 100
        finally:
            _stop(runner)
    return Result(
        "runner: idle CPU",
        f"{used:.2f} % of a core over {seconds:g} s ({members} members configured, nothing to do)",
        "≤ 1 %",
        used <= 1.0,
    )


def queue_wait(members: int, limit: int) -> Result:
    with tempfile.TemporaryDirectory(prefix="teamdeck-bench-runner-") as scratch:
        root = Path(scratch)
        ws = _workspace(root, members, ["sleep", "0.5"], max_concurrent=limit)
        for number in range(members):
            send_message(ws, TEAM, f"m{number}", "go", summary="go")
        began = time.monotonic()
        runner = _runner(root)
        try:
            _wait(lambda: len(_runs(ws)) == members and not any(r.live for r in _runs(ws)), 300)
            took = time.monotonic() - began
        finally:
            _stop(runner)
        runs = _runs(ws)
    waits = [
        (parse_iso(run.startedAt).timestamp() - parse_iso(run.queuedAt).timestamp())
        for run in runs
        if run.startedAt and run.queuedAt
    ]
    moments = sorted([(run.startedAt, 1) for run in runs] + [(run.endedAt, -1) for run in runs if run.endedAt])
    going = most = 0
    for _at, step in moments:
        going += step
        most = max(most, going)
    return Result(
        f"runner: {members} members at max_concurrent {limit}",
        f"queue wait median {statistics.median(waits):.2f} / p99 {percentile(waits, 0.99):.2f} / max {max(waits):.2f} s; "
        f"at most {most} at once; all {len(runs)} done in {took:.1f} s (ideal {members / limit * 0.5:.1f} s)",
        f"≤ {limit} at once",
        most <= limit and len(runs) == members,
        "agent `sleep 0.5`",
    )


def results(quick: bool = False) -> list[Result]:
    if quick:
        return [wake_latency(3), burst(3, 12), idle_cpu(3, 1), queue_wait(4, 2)]
    return [wake_latency(40), burst(50, 1000), idle_cpu(50, 10), queue_wait(50, 8)]


if __name__ == "__main__":
    os.environ.pop("TEAMDECK_WORKSPACE", None)
    print_table("teamdeck run", results("--quick" in sys.argv))
