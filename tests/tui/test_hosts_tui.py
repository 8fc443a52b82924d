"""``teamdeck tui`` over two hosts, each a real OpenSSH server on 127.0.0.1 with its
own copy of the demo workspace and its own runner: one queue over both; a message sent
from here to a member on one, whose agent that host's runner wakes, and its answer
shown; an answer and a shutdown request sent to the host that owns the item (and only
there); a host that goes away marked with its keys refused while the other keeps
working, and its return showing what was answered during the outage."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from support.locations import DEMO
from support.pilot_helpers import SIZE, until
from support.sshd import SshHost, start_hosts, start_runner
from textual.widgets import Input, TextArea

from teamdeck.tui.dialogs.compose import ComposeScreen
from teamdeck.tui.dialogs.text_view import TextScreen
from teamdeck.tui.hosts.app import HostsApp
from teamdeck.tui.hosts.lists import HostDecisionList, HostMemberList, HostTaskList
from teamdeck.tui.widgets.confirm_bar import ConfirmBar

pytestmark = pytest.mark.slow

GATE = "task:checkout-api:g-api-dev-1"
OTHER_GATE = "task:payment-retry:g-db-migrator-1"


@pytest.fixture
def hosts(tmp_path: Path) -> Iterator[dict[str, SshHost]]:
    """Two hosts, each with its own sshd, workspace and runner."""
    started = start_hosts(tmp_path, DEMO, "alpha", "beta")
    runners = [start_runner(host.workspace) for host in started.values()]
    yield started
    for runner in runners:
        runner.terminate()
        runner.wait(timeout=30)
    for host in started.values():
        host.kill()


def unread_on_disk(workspace: Path, team: str, member: str) -> int:
    """A member's unread count as ``teamdeck status --json`` reads it on the host itself."""
    done = subprocess.run(
        [sys.executable, "-m", "teamdeck", "-w", str(workspace), "status", "--json"],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    (found,) = [row for row in json.loads(done.stdout)["teams"] if row["name"] == team]
    return next(row["unread"] for row in found["members"] if row["name"] == member)


def inbox_texts(workspace: Path, team: str, member: str) -> list[str]:
    return [
        entry["text"] for entry in json.loads((workspace / "teams" / team / "inboxes" / f"{member}.json").read_text())
    ]


def agent_replies(workspace: Path) -> list[str]:
    """What the scripted agent run by the host's runner read, run by run."""
    log = workspace / "agent-log.jsonl"
    return [text for line in log.read_text().splitlines() for text in json.loads(line)["texts"]] if log.exists() else []


def approvals(workspace: Path, task: str = "checkout-api") -> int:
    events = [json.loads(line) for line in (workspace / "tasks" / task / "events.jsonl").read_text().splitlines()]
    return sum(1 for event in events if event["type"] == "gate.approved")


def test_f20_two_hosts_in_one_tui_answered_where_they_live_lost_and_taken_back(hosts: dict[str, SshHost]) -> None:
    alpha, beta = hosts["alpha"], hosts["beta"]
    app = HostsApp([alpha.host, beta.host])

    def queue_keys() -> list[str]:
        return [row.key for row in app.hosts_screen.query_one(HostDecisionList).rows]

    def host_lines() -> str:
        return str(app.hosts_screen.query_one("#host-lines").render())

    def member_row(host: str, team: str, member: str) -> str:
        """What the members list draws for one member (its cells, as on screen)."""
        members = app.hosts_screen.query_one(HostMemberList)
        (row,) = [row for row in members.rows if row.key == f"{host}\x1f{team}\x1f{member}"]
        return "  ".join(cell.text for cell in row.cells)

    async def on_list(pilot, kind: type, row_key: str) -> None:
        listing = app.hosts_screen.query_one(kind)
        listing.focus()
        assert listing.select_key(row_key)
        await pilot.pause()

    async def answer(pilot, row_key: str, note: str) -> None:
        await on_list(pilot, HostDecisionList, row_key)
        await pilot.press("a")
        bar = app.hosts_screen.query_one(ConfirmBar)
        await until(pilot, lambda: bar.asking, "the confirm bar")
        assert bar.confirm_label == "Approve"
        for key in note:
            await pilot.press(key)
        await pilot.press("enter")
        await until(pilot, lambda: not bar.display, "the answered bar to go (it keeps the keys a moment)")

    async def main() -> None:
        async with app.run_test(size=SIZE) as pilot:
            await until(pilot, lambda: all(link.status == "live" for link in app.links), "both hosts live")
            await until(pilot, lambda: len(queue_keys()) == 8, "one queue of both hosts' decisions")
            assert host_lines().count("●") == 2
            assert host_lines().startswith("2 hosts, 2 live · 8 decisions waiting · ")
            unread = sum(int(link.state["overview"]["unread"]) for link in app.links)
            assert f" · {unread} unread in all" in host_lines().splitlines()[0]
            tasks = [row.key for row in app.hosts_screen.query_one(HostTaskList).rows]
            assert {"alpha\x1fcheckout-api", "beta\x1fcheckout-api"} <= set(tasks)

            # The person messages beta's member from here (m); beta's runner wakes it,
            # its agent reads the message and answers the lead: the screen shows what
            # beta's own files say, and nothing of it reaches alpha.
            await on_list(pilot, HostMemberList, "beta\x1fquant\x1fzhangfei-dev")
            await pilot.press("m")
            await until(pilot, lambda: isinstance(app.screen, ComposeScreen), "the message dialog")
            app.screen.query_one("#summary", Input).value = "from afar"
            app.screen.query_one("#text", TextArea).text = "reply:team-lead"
            await pilot.press("ctrl+s")
            await until(
                pilot, lambda: "reply:team-lead" in agent_replies(beta.workspace), "beta's runner ran its agent"
            )
            await until(
                pilot,
                lambda: (
                    f"{unread_on_disk(beta.workspace, 'quant', 'team-lead')} unread"
                    in member_row("beta", "quant", "team-lead")
                ),
                "beta's state on screen",
            )
            assert "reply:team-lead" not in inbox_texts(alpha.workspace, "quant", "zhangfei-dev")

            # Enter on beta's lead: its inbox, read from beta, holds the agent's answer.
            await on_list(pilot, HostMemberList, "beta\x1fquant\x1fteam-lead")
            await pilot.press("enter")
            await until(pilot, lambda: isinstance(app.screen, TextScreen), "beta's lead's inbox")
            assert "on beta" in str(app.screen.title_content)
            assert "from zhangfei-dev" in app.screen.text
            await pilot.press("escape")
            await until(pilot, lambda: not isinstance(app.screen, TextScreen), "the inbox closed")

            # A shutdown asked of alpha's member (s) lands in alpha's inbox only.
            await on_list(pilot, HostMemberList, "alpha\x1fperf-audit\x1fprofiler")
            await pilot.press("s")
            bar = app.hosts_screen.query_one(ConfirmBar)
            await until(pilot, lambda: bar.asking, "the shutdown's confirm bar")
            assert "on alpha" in str(bar.query_one("#confirm-title").render())
            await pilot.press("enter")
            await until(
                pilot,
                lambda: any(
                    '"shutdown_request"' in text for text in inbox_texts(alpha.workspace, "perf-audit", "profiler")
                ),
                "alpha's shutdown request",
            )
            await until(pilot, lambda: not bar.display, "the answered bar to go")
            assert not any(
                '"shutdown_request"' in text for text in inbox_texts(beta.workspace, "perf-audit", "profiler")
            )

            await answer(pilot, f"beta\x1f{GATE}", "ok")
            await until(pilot, lambda: f"beta\x1f{GATE}" not in queue_keys(), "beta's decision answered")
            assert approvals(beta.workspace) == 1 and approvals(alpha.workspace) == 0
            assert f"alpha\x1f{GATE}" in queue_keys()

            beta.kill()
            await until(pilot, lambda: "✗ beta: unreachable since" in host_lines(), "beta marked unreachable")
            assert host_lines().startswith("2 hosts, 1 live, 1 not")
            assert f"beta\x1f{OTHER_GATE}" in queue_keys()  # its last state stays, dimmed
            await on_list(pilot, HostDecisionList, f"beta\x1f{OTHER_GATE}")
            await pilot.press("a")
            assert not app.hosts_screen.query_one(ConfirmBar).asking  # its keys are refused, with why
            await until(
                pilot,
                lambda: any("beta is unreachable" in str(notice.message) for notice in app._notifications),
                "why beta's keys are refused",
            )

            await answer(pilot, f"alpha\x1f{GATE}", "")  # the other host keeps working
            await until(pilot, lambda: approvals(alpha.workspace) == 1, "alpha's answer")

            # During the outage, someone at beta's own shell answers a decision.
            done = await asyncio.to_thread(
                subprocess.run,
                [
                    sys.executable,
                    "-m",
                    "teamdeck",
                    "-w",
                    str(beta.workspace),
                    "decisions",
                    "decide",
                    OTHER_GATE,
                    "approve",
                ],
                capture_output=True,
                text=True,
                timeout=60,
            )
            assert done.returncode == 0, done.stderr
            beta.start()
            try:
                await until(pilot, lambda: host_lines().count("●") == 2, "beta back")
            except AssertionError:
                link = app.links[1]
                raise AssertionError(f"beta not back: {link.status} since {link.since}: {link.why}") from None
            await until(pilot, lambda: f"beta\x1f{OTHER_GATE}" not in queue_keys(), "the outage's answer on screen")
            await pilot.press("q")

    asyncio.run(main())
