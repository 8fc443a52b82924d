"""The parts under the screen, measured without Textual: the watcher (file write →
batch of paths), the read model (build at scale in a fresh process, refresh per
change) and the protocol call behind a key action (approve a gate, durable).

These separate the on-screen numbers of targets_screen.py into their parts.
"""

from __future__ import annotations

import json
import os
import queue
import random
import shutil
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

from common import Result, append_inbox_in_place, latency_result
from generate import Layout
from ulid_transform import ulid_now

from teamdeck.store.workspace import Workspace
from teamdeck.view.refresh.build import build_snapshot, refresh
from teamdeck.watch import watch_batches

STAMP = "2026-03-01T12:00:00.000Z"


def watcher_latency(layout: Layout, changes: int) -> Result:
    """File write → the batch holding its path, from :func:`watch_batches` on a thread
    (watch.py's debounce and step, inotify), one change at a time, with every file watched."""
    stop = threading.Event()
    batches: queue.Queue[tuple[float, frozenset[Path]]] = queue.Queue()
    ready = threading.Event()

    def run() -> None:
        ready.set()
        for batch in watch_batches(layout.root, stop, force_polling=False):
            batches.put((time.perf_counter(), batch))

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    ready.wait()
    time.sleep(0.5)  # the Rust watcher adds its inotify watches after the thread starts
    rng = random.Random(1)
    inboxes = layout.inboxes()
    samples = []
    try:
        for n in range(changes):
            path = rng.choice(inboxes)
            started = time.perf_counter()
            append_inbox_in_place(path, "bench", f"watch {n}", STAMP)
            while True:
                arrived, batch = batches.get(timeout=5)
                if path in batch:
                    samples.append((arrived - started) * 1000)
                    break
            time.sleep(rng.uniform(0.02, 0.04))
    finally:
        stop.set()
        thread.join(3)
    return latency_result(
        "watcher only: file write → batch of paths (watch.py)", samples, note=f"{layout.files} files watched"
    )


def refresh_costs(layout: Layout, changes: int) -> list[Result]:
    """view.refresh of one changed inbox, and of one changed task.yaml, at this scale."""
    ws = Workspace.at(layout.root)
    snapshot = build_snapshot(ws)
    rng = random.Random(2)
    inboxes = layout.inboxes()
    inbox_ms = []
    for n in range(changes):
        path = rng.choice(inboxes)
        append_inbox_in_place(path, "bench", f"refresh {n}", STAMP)
        started = time.perf_counter()
        snapshot = refresh(snapshot, [path])
        inbox_ms.append((time.perf_counter() - started) * 1000)
    task_ms = []
    for _ in range(changes):
        path = ws.task_file(rng.choice(layout.tasks))
        path.write_bytes(path.read_bytes())  # same content: refresh still re-reads it all
        started = time.perf_counter()
        snapshot = refresh(snapshot, [path])
        task_ms.append((time.perf_counter() - started) * 1000)
    where = f"{len(layout.teams)} teams, {layout.members} members, {len(layout.tasks)} tasks"
    return [
        latency_result("view.refresh: one inbox changed", inbox_ms, note=where),
        latency_result("view.refresh: one task.yaml changed", task_ms, note=where),
    ]


def refresh_in_long_team(layout: Layout, changes: int) -> Result:
    """view.refresh after one more send in the first team, whose messages.jsonl already
    holds the sends of a long session (generate(team_log=N)): each change appends the
    send's record to messages.jsonl and the message to a member's inbox, as ``teamdeck
    send`` does, and the refresh is given both paths. Only what was appended should
    cost: the team's ledger state is kept between refreshes."""
    ws = Workspace.at(layout.root)
    snapshot = build_snapshot(ws)
    team = next(iter(layout.teams))
    log = ws.messages_log(team)
    records = sum(1 for _ in open(log, "rb"))
    inbox = ws.inbox(team, layout.teams[team][0])
    samples = []
    for n in range(changes):
        text = f"long team {n}"
        record = {
            "id": ulid_now(),
            "ts": STAMP,
            "type": "message",
            "actor": "human:bench",
            "from": "bench",
            "to": [inbox.stem],
            "timestamp": STAMP,
            "text": text,
        }
        with open(log, "a", encoding="utf-8") as handle:
            handle.write(json.dumps(record) + "\n")
        append_inbox_in_place(inbox, "bench", text, STAMP)
        started = time.perf_counter()
        snapshot = refresh(snapshot, [log, inbox])
        samples.append((time.perf_counter() - started) * 1000)
    return latency_result(
        f"view.refresh: one send (log line + inbox) in a team with {records:,} records in messages.jsonl",
        samples,
        median_target=10,
        note="the ledger folds the appended record and the changed inbox",
    )


def approve_durable(layout: Layout, changes: int) -> Result:
    """decide_gate(approve) from call to return: event appended (fsync), task.yaml
    replaced (fsync), human-notes.md updated - what the TUI's action worker waits for."""
    from teamdeck.protocol.effects.gate_decisions import decide_gate

    ws = Workspace.at(layout.root, actor="human:bench")
    samples = []
    for task_id, gate_id in layout.gates[:changes]:
        started = time.perf_counter()
        decide_gate(ws, task_id, gate_id, "approve", "bench")
        samples.append((time.perf_counter() - started) * 1000)
    return latency_result("protocol only: decide_gate(approve), durable", samples)


def approve_in_big_task(layout: Layout, repeat: int) -> Result:
    """decide_gate on the task whose events.jsonl holds the big log (transact must find
    the events task.yaml has not applied: reading the whole log took 1-2 minutes before
    bb645eb read it backwards to ``lastEventId``).

    The workspace is a fresh copy: it is written back to disk (``os.sync``) before the
    clock starts, or the first fsync of events.jsonl would flush the copy's 243 MB of
    dirty pages and measure the copy, not the approval (60-100 ms of the 108 ms
    reported before this was done)."""
    from teamdeck.protocol.effects.gate_decisions import decide_gate

    assert layout.big_log is not None
    os.sync()
    ws = Workspace.at(layout.root, actor="human:bench")
    gates = [gate for task, gate in layout.gates if task == layout.big_task][:repeat]
    samples = []
    for gate_id in gates:
        started = time.perf_counter()
        decide_gate(ws, layout.big_task or "", gate_id, "approve", "bench")
        samples.append((time.perf_counter() - started) * 1000)
    lines = sum(1 for _ in open(layout.big_log, "rb"))
    return Result(
        f"protocol only: decide_gate(approve) in the task with {lines:,} events",
        f"median {statistics.median(samples):,.0f} / max {max(samples):,.0f} ms (n={len(samples)})",
        "≤ 30 ms",
        max(samples) <= 30,
        "the generated task has one gate",
    )


BUILD_CHILD = r"""
import gc, json, sys, time
pauses, starts = [], []
def on_gc(phase, info):
    if phase == "start": starts.append(time.perf_counter())
    elif starts: pauses.append((time.perf_counter() - starts.pop()) * 1000)
gc.callbacks.append(on_gc)
t0 = time.perf_counter()
from teamdeck.store.workspace import Workspace
from teamdeck.view.refresh.build import build_snapshot
t1 = time.perf_counter()
snapshot = build_snapshot(Workspace.at(sys.argv[1]))
t2 = time.perf_counter()
gc.collect()
# VmHWM, not ru_maxrss: ru_maxrss survives exec and would report the benchmark's own size.
hwm = next(int(line.split()[1]) for line in open("/proc/self/status") if line.startswith("VmHWM:"))
print(json.dumps({"import_s": t1 - t0, "build_s": t2 - t1, "gc_max_ms": max(pauses, default=0), "rss_mb": hwm / 1024,
                  "events": len(snapshot.events), "members": len(snapshot.members)}))
"""


def build_in_child(root: Path) -> dict[str, float]:
    """build_snapshot in a fresh interpreter: import and build time, peak memory
    (VmHWM), the longest GC pause (including a full collection after the build)."""
    out = subprocess.run([sys.executable, "-c", BUILD_CHILD, str(root)], check=True, capture_output=True, text=True)
    return json.loads(out.stdout)


def build_at_scale(small: Layout, big: Layout, runs: int) -> list[Result]:
    """build_snapshot of the same workspace with a small and with the big log."""
    results = []
    for layout, label in ((small, "small logs"), (big, "1 big log")):
        stats = [build_in_child(layout.root) for _ in range(runs)]
        lines = sum(1 for _ in open(layout.big_log, "rb")) if layout.big_log else 0
        build = statistics.median(item["build_s"] for item in stats) * 1000
        imports = statistics.median(item["import_s"] for item in stats) * 1000
        rss = max(item["rss_mb"] for item in stats)
        pause = max(item["gc_max_ms"] for item in stats)
        what = f"{layout.members} members, {len(layout.tasks)} tasks" + (
            f", {lines:,} events in one log" if lines else f", {label}"
        )
        results.append(
            Result(
                f"view.build_snapshot ({what}), fresh process",
                f"import {imports:.0f} ms + build {build:.0f} ms; peak RSS {rss:.0f} MB; "
                f"longest GC {pause:.0f} ms, imports included (n={runs})",
                "part of start ≤ 500 ms; RSS ≤ 150 MB; GC ≤ 50 ms",
                imports + build <= 500 and rss <= 150 and pause <= 50,
            )
        )
    return results


def fresh_copy(layout: Layout, where: Path) -> Layout:
    """A copy of a generated workspace (for benchmarks that write)."""
    if where.exists():
        shutil.rmtree(where)
    shutil.copytree(layout.root, where, symlinks=True)
    copy = Layout(
        root=where.resolve(),
        teams=layout.teams,
        tasks=layout.tasks,
        gates=list(layout.gates),
        files=layout.files,
        big_task=layout.big_task,
    )
    if layout.big_log is not None:
        copy.big_log = copy.root / layout.big_log.relative_to(layout.root)
    return copy
