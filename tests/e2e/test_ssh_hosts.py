"""Two hosts through a real OpenSSH server each (sshd on 127.0.0.1, generated keys, a
copy of the demo workspace per host): read as one, answered where each decision lives,
a host that goes away shown as such and taken back when it returns, and an action cut
off mid-way applied at most once."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from support.locations import DEMO
from support.sshd import SshHost, start_hosts

from teamdeck.protocol.team.messaging.sending import send_message
from teamdeck.remote.link import Link
from teamdeck.store.workspace import Workspace

pytestmark = pytest.mark.slow

GATE = "task:checkout-api:g-api-dev-1"
OTHER_GATE = "task:payment-retry:g-db-migrator-1"
WAIT_S = 30.0


@pytest.fixture
def hosts(tmp_path: Path) -> Iterator[dict[str, SshHost]]:
    started = start_hosts(tmp_path, DEMO, "alpha", "beta")
    yield started
    for host in started.values():
        host.kill()


def approvals(workspace: Path, gate_id: str = "g-api-dev-1", task: str = "checkout-api") -> int:
    lines = (workspace / "tasks" / task / "events.jsonl").read_text().splitlines()
    events = [json.loads(line) for line in lines]
    return sum(1 for event in events if event["type"] == "gate.approved" and event["payload"]["gateId"] == gate_id)


def until(check: Callable[[], bool], what: str | Callable[[], str], timeout: float = WAIT_S) -> float:
    """Wait for ``check``; the seconds it took (``what``: named on a timeout, worked
    out then when it is a function)."""
    started = time.monotonic()
    while not check():
        if time.monotonic() - started > timeout:
            raise AssertionError(f"timed out waiting for {what() if callable(what) else what}")
        time.sleep(0.05)
    return time.monotonic() - started


def teamdeck(*args: str, env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "teamdeck", *args], env=env, cwd=cwd, capture_output=True, text=True, timeout=120
    )


def test_the_hosts_file_shows_both_hosts_and_a_decision_is_answered_on_its_own_host(
    hosts: dict[str, SshHost], tmp_path: Path
) -> None:
    listed = tmp_path / "hosts.yaml"
    listed.write_text("hosts:\n" + "".join(host.hosts_yaml() for host in hosts.values()))
    env = {**os.environ, "TEAMDECK_HOSTS": str(listed), "TEAMDECK_WORKSPACE": ""}
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()

    status = teamdeck("status", env=env, cwd=elsewhere)
    assert status.returncode == 0, status.stderr
    assert "== alpha  127.0.0.1:" in status.stdout and "== beta  127.0.0.1:" in status.stdout
    assert status.stdout.count("live (teamdeck") == 2 and GATE in status.stdout

    queue = json.loads(teamdeck("decisions", "list", "--json", env=env, cwd=elsewhere).stdout)
    assert {(item["host"], item["key"]) for item in queue["decisions"]} >= {("alpha", GATE), ("beta", GATE)}
    created = [item["createdAt"] for item in queue["decisions"]]
    assert created == sorted(created)  # one queue over both hosts, oldest first

    decided = teamdeck(
        "decisions", "decide", "--on", "beta", GATE, "approve", "--note", "over ssh", env=env, cwd=elsewhere
    )
    assert decided.returncode == 0, decided.stderr
    assert decided.stdout.startswith("beta: gate g-api-dev-1 of task checkout-api approved")
    assert approvals(hosts["beta"].workspace) == 1
    assert approvals(hosts["alpha"].workspace) == 0  # the other host's files are untouched
    assert "over ssh" in (hosts["beta"].workspace / "tasks" / "checkout-api" / "shared" / "human-notes.md").read_text()

    listing = json.loads(teamdeck("hosts", "--json", env=env, cwd=elsewhere).stdout)
    assert [(item["host"], item["status"], item["decisionsWaiting"]) for item in listing["hosts"]] == [
        ("alpha", "live", 4),
        ("beta", "live", 3),
    ]


def test_f20_a_write_on_a_host_shows_its_loss_is_marked_and_its_return_brings_what_changed_meanwhile(
    hosts: dict[str, SshHost],
) -> None:
    beta = hosts["beta"]
    changes: list[str] = []
    link = Link(beta.host, on_change=lambda link: changes.append(link.status)).start()
    alpha = Link(hosts["alpha"].host).start()
    try:
        assert link.wait_first(WAIT_S) and alpha.wait_first(WAIT_S)

        def unread_of_quant() -> int:
            return next(team["unread"] for team in link.state["teams"] if team["name"] == "quant")

        before = unread_of_quant()
        send_message(Workspace.at(beta.workspace), "quant", "zhangfei-dev", "written on beta", summary="hi")
        shown = until(lambda: unread_of_quant() == before + 1, "beta's write on the link")
        print(f"beta write -> link state in {shown * 1000:.0f} ms")

        beta.kill()
        lost = until(lambda: link.status == "unreachable", "beta marked unreachable", timeout=10)
        print(f"beta killed -> unreachable in {lost * 1000:.0f} ms: {link.why}")
        assert link.why and link.state["gates"]  # why, in one line, and its last state kept
        assert alpha.status == "live"  # the other host is not disturbed
        assert alpha.ask("answer", {"key": OTHER_GATE, "answer": "approve", "note": None}).ok

        # During the outage, someone at beta's own shell answers a decision.
        done = subprocess.run(
            [sys.executable, "-m", "teamdeck", "-w", str(beta.workspace), "decisions", "decide", GATE, "approve"],
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert done.returncode == 0, done.stderr
        beta.start()
        until(lambda: link.status == "live", lambda: f"beta back (link {link.status}: {link.why})", timeout=WAIT_S)
        until(lambda: GATE not in [gate["key"] for gate in link.state["gates"]], "the answer seen on the link")
        assert changes.count("unreachable") >= 1 and changes[-1] == "live"
    finally:
        link.stop()
        alpha.stop()
    assert approvals(hosts["alpha"].workspace, "g-db-migrator-1", "payment-retry") == 1


def test_f20_an_action_whose_link_is_cut_after_the_request_is_written_is_applied_at_most_once(
    hosts: dict[str, SshHost],
) -> None:
    beta = hosts["beta"]
    link = Link(beta.host).start()
    try:
        assert link.wait_first(WAIT_S)
        sent = link._send

        def send_then_cut(asked: object) -> None:
            sent(asked)  # type: ignore[arg-type]
            process = link._process
            if process is not None and not getattr(send_then_cut, "cut", False):
                send_then_cut.cut = True  # type: ignore[attr-defined]
                process.kill()  # the connection drops right after the request is written

        link._send = send_then_cut  # type: ignore[method-assign]
        reply = link.ask("answer", {"key": GATE, "answer": "approve", "note": "once"}, timeout=WAIT_S)
        assert getattr(send_then_cut, "cut", False)
        assert reply.ok or reply.unknown, reply
        until(lambda: approvals(beta.workspace) == 1, "the approval on beta")
        time.sleep(1.0)  # a second application, if there were one, would land by now
        assert approvals(beta.workspace) == 1
        again = link.ask("answer", {"key": GATE, "answer": "approve", "note": "once"})
        assert not again.ok and "no decision" in again.text  # a new request is refused: it is answered
    finally:
        link.stop()
