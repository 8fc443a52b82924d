"""Property tests: join idempotence over arbitrary outputs, and a state machine over
joins, gate decisions and crashes whose invariant is state == replay(events) (C14)."""

from __future__ import annotations

import errno
import json
import shutil
import tempfile
from datetime import UTC, datetime, timedelta
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, initialize, invariant, rule
from reliability.faults import Fault, FaultyFs

from teamdeck.errors import Conflict, WriteFailed
from teamdeck.model.task import Task
from teamdeck.protocol.effects.gate_decisions import decide_gate
from teamdeck.protocol.task.join import join_task
from teamdeck.protocol.task.lifecycle import can_transition
from teamdeck.protocol.task.replay import replay
from teamdeck.protocol.task.taskfile import load_task, parse_task_dict, read_events
from teamdeck.store import fs
from teamdeck.store.workspace import Workspace

from .kit import files_state, new_task, write_output

AGENTS = ("w1", "w2", "w3")
texts = st.text(max_size=40)
outputs = st.one_of(
    st.fixed_dictionaries(
        {
            "status": st.sampled_from(["completed", "blocked", "failed"]),
            "summary": texts,
            "questions": st.lists(texts, max_size=3),
            "nextActions": st.lists(texts, max_size=2),
        }
    ),
    st.binary(max_size=30),  # anything at all, mostly invalid
    st.just(None),  # an agent directory with no final.json yet
)


def _ticking_clock():
    moment = [datetime(2026, 3, 1, 12, 0, tzinfo=UTC)]

    def clock():
        moment[0] += timedelta(seconds=1)
        return moment[0]

    return clock


def _workspace() -> tuple[Workspace, Path]:
    root = Path(tempfile.mkdtemp(prefix="teamdeck-prop-"))
    return Workspace.at(root, clock=_ticking_clock(), actor="human:prop"), root


def _write(ws: Workspace, agent: str, output) -> None:
    if output is None:
        (ws.agents_dir("t1") / agent).mkdir(parents=True, exist_ok=True)
    elif isinstance(output, bytes):
        write_output(ws, "t1", agent, output)
    else:
        write_output(ws, "t1", agent, json.dumps(output))


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.dictionaries(st.sampled_from(AGENTS), outputs, max_size=3))
def test_join_is_idempotent_for_any_outputs(chosen):
    ws, root = _workspace()
    try:
        new_task(ws)
        for agent, output in chosen.items():
            _write(ws, agent, output)
        first = join_task(ws, "t1")
        assert first.summary.totals.total == len(chosen)
        before, events = files_state(root), read_events(ws, "t1")
        second = join_task(ws, "t1")
        assert (second.events, second.written, second.gates_opened, second.gates_updated) == ([], [], [], [])
        assert files_state(root) == before and read_events(ws, "t1") == events
        assert second.summary == first.summary
    finally:
        shutil.rmtree(root)


class JoinAndGates(RuleBasedStateMachine):
    """Workers write outputs, the supervisor joins, people decide gates, and some
    decisions crash between the event append and the task.yaml replace."""

    @initialize()
    def setup(self):
        self.ws, self.root = _workspace()
        new_task(self.ws)
        self.writes = 0
        self.stale_yaml = False  # a crash left task.yaml behind its log

    def teardown(self):
        shutil.rmtree(self.root, ignore_errors=True)

    def _gates(self):
        return load_task(self.ws, "t1").gates

    @rule(
        agent=st.sampled_from(AGENTS),
        status=st.sampled_from(["completed", "blocked", "blocked", "failed"]),
        questions=st.lists(st.sampled_from(["Q1", "Q2", "`Q3`"]), max_size=2),
    )
    def worker_writes(self, agent, status, questions):
        self.writes += 1
        write_output(self.ws, "t1", agent, {"status": status, "summary": f"run {self.writes}", "questions": questions})

    @rule()
    def join(self):
        before = self._gates()
        result = join_task(self.ws, "t1")
        self.stale_yaml = False
        after = {gate.id: gate for gate in self._gates()}
        assert set(result.gates_opened) == set(after) - {gate.id for gate in before}
        again = join_task(self.ws, "t1")
        assert again.events == [] and again.written == []

    @rule(pick=st.integers(min_value=0, max_value=5), approve=st.booleans())
    def decide(self, pick, approve):
        gates = self._gates()
        if not gates:
            return
        gate = gates[pick % len(gates)]
        decision, note = ("approve", None) if approve else ("reject", "no")
        if gate.state != "blocked":
            try:
                decide_gate(self.ws, "t1", gate.id, decision, note)
            except Conflict as err:
                assert f"already {gate.state} by you (human:prop)" in str(err)
            else:
                raise AssertionError("deciding a decided gate was accepted")
            return
        decide_gate(self.ws, "t1", gate.id, decision, note)
        self.stale_yaml = False
        assert load_task(self.ws, "t1").gate(gate.id).state == ("approved" if approve else "rejected")

    @rule(pick=st.integers(min_value=0, max_value=5))
    def decide_and_crash_before_task_yaml(self, pick):
        open_gates = [gate for gate in self._gates() if gate.state == "blocked"]
        if not open_gates:
            return
        gate = open_gates[pick % len(open_gates)]
        with fs.installed(FaultyFs(Fault("replace", errno.EIO, name="task.yaml"))) as faulty:
            try:
                decide_gate(self.ws, "t1", gate.id, "approve")
            except WriteFailed:
                pass
        assert faulty.fired == 1
        self.stale_yaml = True
        # the event is in the log, so the decision is in force for every reader
        assert load_task(self.ws, "t1").gate(gate.id).state == "approved"

    @invariant()
    def state_is_the_replay_of_the_log(self):
        events = read_events(self.ws, "t1")
        rebuilt = Task.model_validate(replay(events))
        task = load_task(self.ws, "t1")
        assert (rebuilt.state, rebuilt.gates) == (task.state, task.gates)
        on_disk = Task.model_validate(parse_task_dict(self.ws.task_file("t1").read_bytes(), Path("task.yaml")))
        if not self.stale_yaml:
            assert (on_disk.state, on_disk.gates) == (rebuilt.state, rebuilt.gates)
        assert on_disk.lastEventId in [event.id for event in events]

    @invariant()
    def every_transition_is_legal_and_every_gate_decided_once(self):
        state, decided = None, {}
        for event in read_events(self.ws, "t1"):
            if event.type == "task.created":
                state = event.payload["task"]["state"]
            elif event.type == "task.state_changed":
                assert event.payload["from"] == state and can_transition(state, event.payload["to"])
                state = event.payload["to"]
            elif event.type in ("gate.approved", "gate.rejected"):
                gate_id = event.payload["gateId"]
                assert gate_id not in decided
                decided[gate_id] = event.type

    @invariant()
    def input_required_exactly_when_a_gate_waits(self):
        task = load_task(self.ws, "t1")
        assert (task.state == "input-required") == bool(task.open_gates)


TestJoinAndGates = JoinAndGates.TestCase
TestJoinAndGates.settings = settings(
    max_examples=25, stateful_step_count=15, deadline=None, suppress_health_check=[HealthCheck.too_slow]
)
