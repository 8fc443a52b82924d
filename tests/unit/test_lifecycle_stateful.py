"""C14 for the lifecycle: random sequences of every action, human and agent, including
crashes between an event and task.yaml, never reach a state the table forbids, and
replaying events.jsonl always reproduces task.yaml.

Actions: manual transitions to any state (legal or not), cancel, retry, workers writing
outputs (completed / blocked / failed / invalid) and the join that turns a blocked one
into a gate, gate decisions of every kind, guardian verifications with each verdict,
a supervisor dying after assigning a guardian, and a writer dying after appending an
event but before replacing task.yaml (the next command reconciles, F12).

Durability (fsync) is not what this test is about, so a seam without fsync keeps each
step cheap; the invariants read everything back from disk.
"""

from __future__ import annotations

import json
import shutil
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule
from support.locations import FIXED_NOW

from teamdeck.clock import fixed_clock
from teamdeck.errors import TeamdeckError
from teamdeck.model.guardian import GuardianResult
from teamdeck.model.task import Task
from teamdeck.protocol.effects.gate_decisions import decide_gate
from teamdeck.protocol.effects.task_retry import retry
from teamdeck.protocol.guardians import registry
from teamdeck.protocol.guardians.verification import _assign, verify
from teamdeck.protocol.task.create import create_task
from teamdeck.protocol.task.join import join_task
from teamdeck.protocol.task.lifecycle import (
    STATES,
    TRANSITIONS,
    can_transition,
    cancel,
    check_can_start,
    legal_next,
    transition,
    transition_event,
)
from teamdeck.protocol.task.replay import replay
from teamdeck.protocol.task.taskfile import load_task, read_events, transact
from teamdeck.store import fs as fs_seam
from teamdeck.store.jsonl import append_record
from teamdeck.store.workspace import Workspace

TASKS = ("t1", "t2")
_FAST_TMP = "/dev/shm" if Path("/dev/shm").is_dir() else None
"""A memory filesystem when there is one: hundreds of workspaces are made and removed."""
VERDICTS = ("PASS", "FAIL", "NEEDS_CHANGES")


class NoSync(fs_seam.OsFs):
    """The real filesystem without fsync: this test checks logic, not durability."""

    def fsync(self, fd: int) -> None:
        pass

    def fsync_dir(self, fd: int) -> None:
        pass


class Scripted:
    """A guardian whose verdict the state machine picks."""

    status = "PASS"

    def verify(self, context):
        return GuardianResult(status=Scripted.status, recommendations=["change something"])


class Lifecycle(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        self.root = Path(tempfile.mkdtemp(prefix="lifecycle-", dir=_FAST_TMP))
        self.ws = Workspace.at(self.root, clock=fixed_clock(FIXED_NOW), actor="human:tester")
        self.seam = fs_seam.installed(NoSync())
        self.seam.__enter__()
        self.previous_extra = dict(registry._EXTRA)
        registry._EXTRA["scripted"] = Scripted
        self.outputs = 0

    def teardown(self) -> None:
        registry._EXTRA.clear()
        registry._EXTRA.update(self.previous_extra)
        self.seam.__exit__(None, None, None)
        shutil.rmtree(self.root, ignore_errors=True)

    @initialize(first=st.sampled_from(("working", "planned", "approved")))
    def create(self, first):
        create_task(self.ws, "t1", "First", state=first)
        create_task(self.ws, "t2", "Second", state="approved", extra={"dependsOn": ["t1"]})

    # --- people ---------------------------------------------------------------------
    @rule(task=st.sampled_from(TASKS), state=st.sampled_from(STATES))
    def move(self, task, state):
        self._unchanged_when_refused(task, lambda: transition(self.ws, task, state, reason="by hand"))

    @rule(task=st.sampled_from(TASKS))
    def cancel_task(self, task):
        self._unchanged_when_refused(task, lambda: cancel(self.ws, task, reason="stop"))

    @rule(task=st.sampled_from(TASKS))
    def retry_task(self, task):
        self._unchanged_when_refused(task, lambda: retry(self.ws, task))

    @rule(task=st.sampled_from(TASKS), approve=st.booleans(), pick=st.integers(0, 3))
    def decide(self, task, approve, pick):
        gates = load_task(self.ws, task).open_gates
        if not gates:
            return
        gate = gates[pick % len(gates)]
        self._unchanged_when_refused(
            task,
            lambda: decide_gate(self.ws, task, gate.id, "approve" if approve else "reject", None if approve else "no"),
        )

    # --- agents ---------------------------------------------------------------------
    @rule(
        task=st.sampled_from(TASKS),
        agent=st.sampled_from(("w1", "w2")),
        status=st.sampled_from(("completed", "blocked", "failed", "invalid")),
    )
    def worker_writes_and_join(self, task, agent, status):
        self.outputs += 1
        path = self.ws.final_output(task, agent)
        path.parent.mkdir(parents=True, exist_ok=True)
        output = {"status": status, "summary": f"output {self.outputs}", "questions": [f"question {self.outputs}?"]}
        path.write_text(json.dumps(output) if status != "invalid" else '{"status": 3}')
        try:
            join_task(self.ws, task)
        except TeamdeckError:
            pass

    @rule(task=st.sampled_from(TASKS), status=st.sampled_from(VERDICTS))
    def guardian_verifies(self, task, status):
        Scripted.status = status
        self._unchanged_when_refused(task, lambda: verify(self.ws, task, guardian="scripted", isolation="thread"))

    # --- crashes ----------------------------------------------------------------------
    @rule(task=st.sampled_from(TASKS))
    def supervisor_dies_after_assigning(self, task):
        self._unchanged_when_refused(task, lambda: _assign(self.ws, task, "scripted", "crash test", 5.0, []))

    @rule(task=st.sampled_from(TASKS), pick=st.integers(0, 9))
    def writer_dies_between_event_and_yaml(self, task, pick):
        current = load_task(self.ws, task)
        targets = legal_next(current.state)
        if not targets:
            return
        target = targets[pick % len(targets)]
        try:
            check_can_start(self.ws, current, target)  # the writer checked, appended, then died
        except TeamdeckError:
            return
        event = transition_event(self.ws, current, target, reason="then the writer died")
        append_record(self.ws.events_file(task), event.model_dump(mode="json"))

    @rule(task=st.sampled_from(TASKS))
    def restart_reconciles(self, task):
        transact(self.ws, task, lambda _task: [], action="reconcile")
        assert Task.model_validate(_yaml(self.ws, task)) == load_task(self.ws, task)

    # --- invariants ---------------------------------------------------------------------
    @invariant()
    def replaying_the_log_reproduces_the_task(self):
        for task in TASKS:
            if not self.ws.events_file(task).exists():
                continue
            rebuilt = Task.model_validate(replay(read_events(self.ws, task)))
            assert rebuilt == load_task(self.ws, task)

    @invariant()
    def every_recorded_move_is_in_the_table(self):
        for task in TASKS:
            if not self.ws.events_file(task).exists():
                continue
            events = read_events(self.ws, task)
            state = events[0].payload["task"]["state"]
            for event in events[1:]:
                if event.type == "task.state_changed":
                    assert event.payload["from"] == state, (event.payload, state)
                    assert can_transition(state, event.payload["to"]), (state, event.payload["to"])
                    state = event.payload["to"]
            assert state in TRANSITIONS and load_task(self.ws, task).state == state

    @invariant()
    def a_started_dependent_means_its_dependency_is_done(self):
        if not self.ws.events_file("t2").exists():
            return
        started = [
            event
            for event in read_events(self.ws, "t2")
            if event.type == "task.state_changed"
            and (event.payload["from"], event.payload["to"]) == ("approved", "working")
        ]
        if started:
            t1_done = [
                event.ts
                for event in read_events(self.ws, "t1")
                if event.type == "task.state_changed" and event.payload["to"] == "done"
            ]
            assert t1_done, "t2 started while t1 was not done"

    def _unchanged_when_refused(self, task, action):
        before = (self.ws.task_file(task).read_bytes(), self.ws.events_file(task).read_bytes())
        try:
            action()
        except TeamdeckError:
            after = (self.ws.task_file(task).read_bytes(), self.ws.events_file(task).read_bytes())
            assert after == before, "a refused action changed the task"


def _yaml(ws: Workspace, task: str) -> dict:
    from teamdeck.store.yaml_text import parse_yaml

    return parse_yaml(ws.task_file(task).read_bytes(), ws.task_file(task))


Lifecycle.TestCase.settings = settings(
    max_examples=300,
    stateful_step_count=12,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much],
)
TestLifecycle = Lifecycle.TestCase
