"""Writer processes for the crash and concurrency tests: ``python worker.py ROLE ARGS``.

Each role is a few lines over the real store/protocol code. A role that must start
together with others prints ``ready`` and waits for one line on stdin before it works,
so the test can release every process at once; a role that holds something prints
``held`` and waits for stdin to close (or to be killed).
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

from teamdeck.protocol.common.events import new_event
from teamdeck.protocol.task.lifecycle import transition_event
from teamdeck.protocol.task.taskfile import load_task, transact
from teamdeck.store.jsonl import MAX_RECORD_BYTES, append_record, encode_record
from teamdeck.store.locks import lock_path_for, locked
from teamdeck.store.workspace import Workspace


def _say(word: str) -> None:
    print(word, flush=True)


def _start_together() -> None:
    _say("ready")
    sys.stdin.readline()


def transition(root: str, task_id: str, target: str) -> None:
    """Move the task to ``target``; prints ``done`` once transact returned."""
    ws = Workspace.at(root, actor="agent:crash")
    transact(ws, task_id, lambda task: [transition_event(ws, task, target)], action=f"move to {target}")
    _say("done")


def add_gates(root: str, task_id: str, prefix: str, count: str) -> None:
    """Add ``count`` gates ``<prefix>0..`` one transaction each (read-modify-write races)."""
    ws = Workspace.at(root, actor=f"agent:{prefix}")
    _start_together()
    for number in range(int(count)):
        gate = f"{prefix}{number}"
        payload = {"gateId": gate, "reason": "race", "agentInstance": prefix, "questions": []}
        transact(ws, task_id, lambda _task, p=payload: [new_event(ws, "gate.blocked", p)], action=f"block {gate}")
    _say("done")


def flip_states(root: str, task_id: str, stop_file: str) -> None:
    """Toggle the task between working and input-required until ``stop_file`` exists."""
    ws = Workspace.at(root, actor="agent:flipper")
    _start_together()
    flips = 0
    while not os.path.exists(stop_file):

        def decide(task):
            return [transition_event(ws, task, "input-required" if task.state == "working" else "working")]

        transact(ws, task_id, decide, action="flip")
        flips += 1
    _say(f"flips {flips}")


def append_events(path: str, writer: str, count: str, seed: str) -> None:
    """Append ``count`` records of sizes 100 B .. the record cap with one write each."""
    import random

    rng = random.Random(int(seed))
    target = Path(path)
    base = len(encode_record({"id": f"{writer}-{0:05d}", "writer": writer, "n": 0, "pad": ""}, target))
    _start_together()
    for number in range(int(count)):
        size = MAX_RECORD_BYTES if number == 0 else rng.randint(100, MAX_RECORD_BYTES)
        record = {"id": f"{writer}-{number:05d}", "writer": writer, "n": number, "pad": "x" * max(0, size - base)}
        append_record(target, record, durable=False)
    _say("done")


def hold_lock(path: str, second_fd: str) -> None:
    """Hold the lock on ``path``; with ``second_fd=1`` also open and close another
    descriptor of the lock file (the lockf pitfall, C12). Waits for stdin to close."""
    with locked(Path(path), timeout=5):
        if second_fd == "1":
            os.close(os.open(lock_path_for(Path(path)), os.O_RDWR))
        _say("held")
        sys.stdin.read()


def hold_lockf(path: str) -> None:
    """The pitfall itself: an fcntl.lockf lock, then open and close a second descriptor."""
    import fcntl

    fd = os.open(lock_path_for(Path(path)), os.O_RDWR | os.O_CREAT, 0o644)
    fcntl.lockf(fd, fcntl.LOCK_EX)
    os.close(os.open(lock_path_for(Path(path)), os.O_RDWR))
    _say("held")
    sys.stdin.read()


def state(root: str, task_id: str) -> None:
    """Print the task's state as JSON (a fresh process reading what is on disk)."""
    task = load_task(Workspace.at(root), task_id)
    _say(json.dumps({"state": task.state, "revision": task.revision}))


def decide(root: str, task_id: str, gate_id: str) -> None:
    """Approve a gate (the multi-file action of F17); prints ``done`` once acknowledged."""
    from teamdeck.protocol.effects.gate_decisions import decide_gate

    decide_gate(Workspace.at(root, actor="human:tester"), task_id, gate_id, "approve", "go ahead")
    _say("done")


def delegate_to(root: str, task_id: str, member: str) -> None:
    """Delegate a task (F17); prints ``done`` once acknowledged."""
    from teamdeck.protocol.coordination.delegation import delegate

    delegate(Workspace.at(root, actor="human:tester"), task_id, member)
    _say("done")


def report_blocked(root: str, task_id: str, agent_id: str) -> None:
    """A worker reports blocked (F17: final.json, the join, the gate, the delegator told)."""
    from teamdeck.protocol.coordination.delegation import report

    report(
        Workspace.at(root, actor=f"agent:{agent_id}"),
        task_id,
        agent_id,
        status="blocked",
        summary="stuck",
        questions=["A or B?"],
    )
    _say("done")


def join(root: str, task_id: str) -> None:
    """Join a task (F17: gates, human-notes.md, the reports); prints ``done`` once acknowledged."""
    from teamdeck.protocol.task.join import join_task

    join_task(Workspace.at(root, actor="human:tester"), task_id)
    _say("done")


def send(root: str, team: str, to: str, text: str) -> None:
    """Send one message (F17); prints ``done`` once acknowledged."""
    from teamdeck.protocol.team.messaging.sending import send_message

    send_message(Workspace.at(root, actor="human:tester"), team, to, text, summary="crash test")
    _say("done")


def receive(root: str, headers_file: str, body_file: str) -> None:
    """Receive one webhook delivery (F18; its signature is the webhook front's); prints its outcome."""
    from teamdeck.protocol.forge.deliveries import receive as receive_delivery

    headers = json.loads(Path(headers_file).read_text())
    outcome = receive_delivery(Workspace.at(root), headers, Path(body_file).read_bytes())
    _say(f"outcome {outcome.outcome}")


def receive_on_cue(root: str, headers_file: str, body_file: str) -> None:
    """:func:`receive`, started when a line arrives on stdin (everything imported and read
    before): the test kills it a measured time after the cue (F23's random kill points)."""
    import teamdeck.protocol.forge.rules  # noqa: F401 - its rules imported before the cue, not after
    from teamdeck.protocol.forge.deliveries import receive as receive_delivery

    ws = Workspace.at(root)
    headers = json.loads(Path(headers_file).read_text())
    body = Path(body_file).read_bytes()
    _start_together()
    outcome = receive_delivery(ws, headers, body)
    _say(f"outcome {outcome.outcome}")


def stress_sends(path: str, writer: str, count: str, stale_after: str) -> None:
    """Append ``count`` messages ``<writer>-<n>`` to one inbox through the locked writer (C17);
    a send that never got the lock (Busy: nothing written) is tried again, and counted."""
    from teamdeck.errors import Busy
    from teamdeck.formats.claude_code.inbox import append_message

    target = Path(path)
    _start_together()
    busy = 0
    for number in range(int(count)):
        message = {"from": writer, "text": f"{writer}-{number}", "timestamp": "2026-03-01T10:00:00.000Z", "read": False}
        while True:
            try:
                append_message(target, message, stale_after=float(stale_after))
                break
            except Busy:  # never got the lock, nothing written: a person would try again
                busy += 1
    _say(f"done busy {busy}")


def read_and_mark(path: str, stop_file: str, stale_after: str) -> None:
    """Until ``stop_file`` exists: parse the inbox as a reader would (counting reads that
    are not a JSON array) and, every 20th read, mark everything read as its recipient does."""
    from teamdeck.errors import Busy
    from teamdeck.formats.claude_code.inbox import mark_read

    target = Path(path)
    _start_together()
    reads = invalid = marked = 0
    while not os.path.exists(stop_file):
        reads += 1
        try:
            if not isinstance(json.loads(target.read_bytes()), list):
                invalid += 1
        except ValueError:
            invalid += 1
        if reads % 20 == 0:
            try:
                marked += len(mark_read(target, lambda _entry: True, stale_after=float(stale_after)))
            except Busy:  # never got the lock: nothing marked; the next round tries again
                pass
    _say(f"reads {reads} invalid {invalid} marked {marked}")


if __name__ == "__main__":
    globals()[sys.argv[1].replace("-", "_")](*sys.argv[2:])
