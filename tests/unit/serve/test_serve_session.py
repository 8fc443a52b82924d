"""``teamdeck serve``'s session, driven over pipes in this process: the hello, the first
state, requests run as the TUI's actions, a request sent again answered from its record
(applied once), and every bad line answered with one problem while the stream goes on."""

from __future__ import annotations

import json
import os
import queue
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from support.run_records import name_in_agents

from teamdeck.clock import iso
from teamdeck.errors import NotFound
from teamdeck.model.run import RunRecord
from teamdeck.protocol.common.requests import take_request
from teamdeck.serve.session import Session
from teamdeck.shapes import stream
from teamdeck.store.runs import write_run
from teamdeck.store.workspace import Workspace

GATE = "task:checkout-api:g-api-dev-1"
WAIT_S = 20.0


class Client:
    """The client's ends of a session running on a thread: write lines, read frames."""

    def __init__(self, root: Path, *, watch: bool = False) -> None:
        self.root = root
        to_server_r, self._to_server = os.pipe()
        from_server, from_server_w = os.pipe()
        self._in = os.fdopen(to_server_r, "rb")
        self._out = os.fdopen(from_server_w, "wb")
        self._from_server = os.fdopen(from_server, "rb")
        self.frames: queue.Queue[dict[str, Any]] = queue.Queue()
        self.reading = threading.Event()
        """Cleared: the client reads nothing (the server's writes fill the pipe and block)."""
        self.reading.set()

        def open_workspace(named: str | None) -> Workspace:
            if named is not None and not Path(named).is_absolute():
                raise NotFound(f"{named} is not an absolute path")
            return Workspace.at(named or root, actor="human:tester")

        self.session = Session(open_workspace, self._in, self._out, watch=watch)
        self.code: int | None = None
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()
        threading.Thread(target=self._read, daemon=True).start()

    def _serve(self) -> None:
        self.code = self.session.run()
        self._out.close()

    def _read(self) -> None:
        while True:
            self.reading.wait()
            line = self._from_server.readline()
            if not line:
                return
            self.frames.put(json.loads(line))

    def send(self, frame: dict[str, Any] | bytes) -> None:
        data = frame if isinstance(frame, bytes) else stream.encode(frame)
        os.write(self._to_server, data)

    def hello(self, **fields: Any) -> dict[str, Any]:
        self.send({"frame": "hello", "protocol": stream.PROTOCOL, "workspace": str(self.root), **fields})
        return self.next("hello")

    def next(self, kind: str) -> dict[str, Any]:
        """The next frame of ``kind`` (frames of other kinds before it are dropped)."""
        deadline = time.monotonic() + WAIT_S
        while True:
            frame = self.frames.get(timeout=max(0.01, deadline - time.monotonic()))
            if frame["frame"] == kind:
                return frame

    def ask(self, request_id: str, op: str, **args: Any) -> dict[str, Any]:
        self.send({"frame": "request", "id": request_id, "op": op, "args": args})
        return self.next("result")

    def close(self) -> int | None:
        os.close(self._to_server)
        self._thread.join(WAIT_S)
        return self.code


@pytest.fixture
def client(demo: Path) -> Iterator[Client]:
    opened = Client(demo)
    yield opened
    opened.close()


def approvals(root: Path) -> int:
    """How many times the checkout-api gate was approved, as its task's events record it."""
    events = [json.loads(line) for line in (root / "tasks" / "checkout-api" / "events.jsonl").read_text().splitlines()]
    return sum(
        1 for event in events if event["type"] == "gate.approved" and event["payload"]["gateId"] == "g-api-dev-1"
    )


def test_the_first_state_is_the_status_json_and_an_answer_is_the_tui_s(client: Client) -> None:
    hello = client.hello()
    assert hello["protocol"] == stream.PROTOCOL and hello["workspace"] == str(client.root)
    state = client.next("state")
    assert state["full"] and state["seq"] == 1
    assert GATE in [gate["key"] for gate in state["state"]["gates"]]
    assert {"overview", "tasks", "teams", "problems"} <= set(state["state"])

    result = client.ask("req-answer-0001", "answer", key=GATE, answer="approve", note="from afar")
    assert result["ok"] and not result["repeated"] and "approved" in result["text"]
    assert approvals(client.root) == 1
    assert "from afar" in (client.root / "tasks" / "checkout-api" / "shared" / "human-notes.md").read_text()


def test_a_request_by_a_person_at_another_front_is_recorded_as_theirs(client: Client) -> None:
    client.hello()
    client.next("state")
    args = {"key": GATE, "answer": "approve", "note": "from my phone"}
    client.send({"frame": "request", "id": "req-by-000001", "op": "answer", "args": args, "by": "human:web:ana"})
    assert client.next("result")["ok"]
    events = (client.root / "tasks" / "checkout-api" / "events.jsonl").read_text().splitlines()
    approved = [json.loads(line) for line in events if '"gate.approved"' in line]
    assert [event["actor"] for event in approved] == ["human:web:ana"]
    assert approved[0]["payload"]["by"] == "human:web:ana"


@pytest.mark.parametrize("by", ["coder", "human:", "human:web:ana:x", "human:web:<script>", "human:" + "a" * 41])
def test_a_request_may_name_a_person_only(client: Client, by: str) -> None:
    """An agent's name, or text that is no login, as ``by``: the line is refused, not run."""
    client.hello()
    client.next("state")
    args = {"key": GATE, "answer": "approve"}
    client.send({"frame": "request", "id": "req-by-000002", "op": "answer", "args": args, "by": by})
    assert "by" in client.next("problem")["text"]
    assert approvals(client.root) == 0


def test_a_request_sent_again_to_a_new_server_is_answered_from_its_record_and_done_once(demo: Path) -> None:
    first = Client(demo)
    first.hello()
    first.next("state")
    assert first.ask("req-again-0001", "answer", key=GATE, answer="approve")["ok"]
    assert first.close() == 0

    second = Client(demo)  # the link dropped; the client sends the same request, same id
    second.hello()
    second.next("state")
    again = second.ask("req-again-0001", "answer", key=GATE, answer="approve")
    assert again["ok"] and again["repeated"] and "approved" in again["text"]
    assert approvals(demo) == 1
    second.close()


def test_a_request_taken_but_never_finished_is_unknown_and_not_run(client: Client) -> None:
    ws = Workspace.at(client.root)
    args = {"key": GATE, "answer": "approve"}
    assert take_request(ws, "req-lost-00001", "answer", args) is None  # a server died mid-action
    client.hello()
    client.next("state")
    result = client.ask("req-lost-00001", "answer", **args)
    assert result["unknown"] and not result["ok"] and "check" in result["text"]
    assert approvals(client.root) == 0


def test_the_same_id_for_another_request_is_refused(client: Client) -> None:
    name_in_agents(Workspace.at(client.root), "perf-audit/*")
    client.hello()
    client.next("state")
    assert client.ask("req-twice-0001", "wake", team="perf-audit", member="profiler")["ok"]
    refused = client.ask("req-twice-0001", "answer", key=GATE, answer="approve")
    assert not refused["ok"] and "req-twice-0001" in refused["text"]
    assert approvals(client.root) == 0


def test_a_wake_of_a_member_no_agents_entry_names_is_refused_with_the_reason(client: Client) -> None:
    name_in_agents(Workspace.at(client.root), "perf-audit/*")  # a wildcard never names the lead
    client.hello()
    client.next("state")
    refused = client.ask("req-wake-00001", "wake", team="perf-audit", member="team-lead")
    assert not refused["ok"] and "no agents: entry in .teamdeck.yaml names perf-audit/team-lead" in refused["text"]
    assert not (client.root / "runs" / "requests.jsonl").exists()


@pytest.mark.parametrize(
    ("line", "named"),
    [
        (b"not json\n", "invalid JSON"),
        (b"[1, 2]\n", "not a JSON object"),
        (b'{"frame": "subscribe"}\n', "unknown frame"),
        (b'{"frame": "request", "id": "../../etc/x", "op": "answer", "args": {}}\n', "id"),
        (b'{"frame": "request", "id": "req-00000001", "op": "answer", "args": {}, "extra": 1}\n', "extra"),
        (b'{"frame": "hello", "protocol": 1}\n', "hello was said already"),
        (b'{"frame": "request", "id": "x' + b"y" * 300_000 + b'"}\n', "over the limit"),
    ],
    ids=["not-json", "not-object", "unknown-frame", "hostile-id", "unknown-field", "hello-twice", "huge-line"],
)
def test_b23_a_bad_line_is_one_problem_naming_the_line_and_the_stream_goes_on(
    client: Client, line: bytes, named: str
) -> None:
    client.hello()
    client.next("state")
    client.send(line)
    problem = client.next("problem")
    assert problem["text"].startswith("line 2: ") and named in problem["text"]
    assert client.ask("req-after-0001", "answer", key=GATE, answer="approve")["ok"]


@pytest.mark.parametrize(
    ("op", "args", "named"),
    [
        ("format-disk", {}, "unknown op"),
        ("answer", {"key": GATE}, "answer"),
        ("answer", {"key": GATE, "answer": "approve", "sudo": True}, "sudo"),
        ("message", {"team": "quant", "member": "zhangfei-dev", "text": "x" * 10_001}, "text"),
        ("answer", {"key": "task:nope:g-1", "answer": "approve"}, "no decision"),
    ],
    ids=["unknown-op", "missing-arg", "unknown-arg", "text-too-long", "not-waiting"],
)
def test_a_request_that_cannot_be_built_is_refused_and_nothing_is_taken(
    client: Client, op: str, args: dict[str, Any], named: str
) -> None:
    client.hello()
    client.next("state")
    result = client.ask("req-refuse-001", op, **args)
    assert not result["ok"] and not result["unknown"] and named in result["text"]
    assert not (client.root / ".teamdeck" / "requests").exists()  # refused before it was taken


def test_a_client_of_another_protocol_is_told_and_the_session_ends(demo: Path) -> None:
    other = Client(demo)
    other.send({"frame": "hello", "protocol": stream.PROTOCOL + 1, "workspace": str(demo)})
    assert other.next("hello")["protocol"] == stream.PROTOCOL  # so the client can say which it speaks
    assert f"protocol {stream.PROTOCOL}" in other.next("problem")["text"]
    assert other.close() == 2


def test_a_workspace_the_server_cannot_open_is_one_problem(demo: Path) -> None:
    other = Client(demo)
    other.send({"frame": "hello", "protocol": stream.PROTOCOL, "workspace": "relative/path"})
    assert "relative/path" in other.next("problem")["text"]
    assert other.close() == 2


def test_a_reader_that_does_not_read_gets_the_newest_state_not_a_queue(demo: Path) -> None:
    """200 changes while the client reads nothing: the server holds one snapshot for it,
    not 200 frames; once it reads, the last state shows the last change."""
    slow = Client(demo, watch=True)
    slow.hello()
    slow.next("state")
    until(lambda: slow.session.hub is not None and slow.session.hub.live.watching)
    slow.reading.clear()
    inbox = demo / "teams" / "quant" / "inboxes" / "zhangfei-dev.json"
    for number in range(200):
        entries = json.loads(inbox.read_text())
        entries.append({"from": "team-lead", "text": f"change {number}", "timestamp": "2026-03-01T12:00:00.000Z"})
        inbox.write_text(json.dumps(entries))
        time.sleep(0.005)
    until(lambda: slow.session.hub is not None and slow.session.hub.live.settled, timeout=WAIT_S)
    slow.reading.set()
    states = []
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        try:
            states.append(slow.frames.get(timeout=1))
        except queue.Empty:
            break
    states = [frame for frame in states if frame["frame"] == "state"]
    assert 1 <= len(states) < 50
    teams = {}
    for frame in states:
        teams = frame["state"].get("teams", teams)
    quant = next(team for team in teams if team["name"] == "quant")
    assert quant["unread"] >= 200
    slow.close()


def until(check: Any, timeout: float = WAIT_S) -> None:
    deadline = time.monotonic() + timeout
    while not check():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.02)


def test_a_query_answers_from_what_the_server_shows_and_records_nothing(client: Client) -> None:
    client.hello()
    client.next("state")
    client.send(
        {"frame": "query", "id": "query-00000001", "what": "inbox", "args": {"team": "quant", "member": "zhangfei-dev"}}
    )
    answer = client.next("answer")
    assert answer["ok"] and answer["id"] == "query-00000001"
    assert answer["data"]["member"] == "zhangfei-dev" and answer["data"]["messages"]
    assert {"from", "kind", "text", "read", "timestamp"} <= set(answer["data"]["messages"][0])
    client.send(
        {"frame": "query", "id": "query-00000002", "what": "inbox", "args": {"team": "quant", "member": "nobody"}}
    )
    missing = client.next("answer")
    assert not missing["ok"] and "nobody" in missing["text"]
    client.send({"frame": "query", "id": "query-00000003", "what": "secrets", "args": {}})
    assert "unknown query" in client.next("answer")["text"]
    assert not (client.root / ".teamdeck" / "requests").exists()  # asked freely, never recorded


def test_a_conversation_and_a_run_s_log_are_read_from_the_files_as_the_cli_reads_them(client: Client) -> None:
    """What a snapshot does not hold, asked of the server: the member's conversation,
    its runs, and one run's record, events and output."""
    ws = Workspace.at(client.root)
    record = RunRecord(
        id="r-01m8cg0000000000000000abcd", team="quant", member="zhangfei-dev", runtime="command",
        trigger="message", argv=["true"], state="ended", outcome="succeeded", createdAt=iso(ws.clock()),
    )  # fmt: skip
    (write_run(ws, record) / "output.log").write_text("checked the \x1b]52;c;cGF5bG9hZA==\x07 order book\n")
    client.hello()
    client.next("state")

    def query(query_id: str, what: str, **args: Any) -> dict[str, Any]:
        client.send({"frame": "query", "id": query_id, "what": what, "args": args})
        return client.next("answer")

    talk = query("query-00000011", "conversation", team="quant", member="zhangfei-dev", limit=5)
    assert talk["ok"] and talk["data"]["member"] == "zhangfei-dev" and 0 < len(talk["data"]["messages"]) <= 5
    assert {"direction", "from", "to", "text"} <= set(talk["data"]["messages"][0])
    runs = query("query-00000012", "runs", team="quant", member="zhangfei-dev")
    assert [run["id"] for run in runs["data"]["runs"]] == [record.id]
    log = query("query-00000013", "run-log", run=record.id)
    assert log["ok"] and log["data"]["run"]["outcome"] == "succeeded"
    assert "order book" in log["data"]["tails"]["output.log"] and "\x1b" not in log["data"]["tails"]["output.log"]
    assert not query("query-00000014", "run-log", run="r-nothing")["ok"]
    assert not query("query-00000015", "conversation", team="quant", member="zhangfei-dev", limit=10_000)["ok"]
