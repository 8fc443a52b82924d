"""A workspace for runner tests: one team of members run by `runtime: command` with the
scripted agent (tests/support/runner_agent.py), a `teamdeck run` started as a user would (a
subprocess of the real CLI), and ways to look at what happened."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import yaml

from teamdeck.model.run import RunRecord
from teamdeck.protocol.team.messaging.sending import send_message
from teamdeck.protocol.team.teams import add_member, create_team
from teamdeck.store.fs import CRASH_ENV
from teamdeck.store.workspace import Workspace
from teamdeck.view.readers.runs import all_runs

AGENT = Path(__file__).with_name("runner_agent.py")
TEAM = "crew"


class World:
    """See the module. ``agents``: extra entries of ``agents:`` (merged over the team's);
    ``make_team``: builds another team (named ``team``) instead of ``crew`` of ``members``."""

    def __init__(
        self,
        root: Path,
        members: list[str],
        agents: dict[str, Any] | None = None,
        *,
        team: str = TEAM,
        make_team: Callable[[Workspace], None] | None = None,
        **defaults: Any,
    ) -> None:
        self.root, self.team = root, team
        root.mkdir(parents=True, exist_ok=True)
        self.ws = Workspace.at(root, actor="human:tester")
        if make_team is not None:
            make_team(self.ws)
        else:
            create_team(self.ws, TEAM)
            for member in members:
                add_member(self.ws, TEAM, member)
        self.defaults: dict[str, Any] = {}
        self.configure(agents or {}, **defaults)
        self.runner: subprocess.Popen[bytes] | None = None
        self.runner_out = root / "runner.out"

    def configure(self, agents: dict[str, Any], **defaults: Any) -> None:
        """Write ``agents:``: the team's entry (``agents`` may replace it) and the
        defaults given now over those given before."""
        self.defaults.update(defaults)
        section = {
            "defaults": {"retries": 0, "backoff_s": 0.2, "grace_s": 1, **self.defaults},
            f"{self.team}/*": {
                "runtime": "command",
                "command": [sys.executable, str(AGENT), "{team}", "{member}", "{run_id}"],
                "env": {CRASH_ENV: ""},  # a crash point given to the runner is not its agents'
            },
            **agents,
        }
        (self.root / ".teamdeck.yaml").write_text(yaml.safe_dump({"agents": section}))

    def send(self, member: str, text: str, sender: str = "team-lead") -> None:
        send_message(self.ws, self.team, member, text, summary="work", sender=sender)

    def start(self, *args: str, env: dict[str, str] | None = None) -> subprocess.Popen[bytes]:
        """Start ``teamdeck run`` and wait for its first line (``env``: added to its
        environment, e.g. ``TEAMDECK_CRASH_AT`` to have it die at a crash point)."""
        self.runner = subprocess.Popen(
            [sys.executable, "-m", "teamdeck", "-w", str(self.root), "run", *args],
            stdout=self.runner_out.open("ab"),
            stderr=subprocess.STDOUT,
            env={**os.environ, "PYTHONUNBUFFERED": "1", **(env or {})},
        )
        started = self.output().count("runner of ")
        wait_for(lambda: self.output().count("runner of ") > started or self.runner.poll() is not None, 30)
        return self.runner

    def stop(self) -> int:
        if self.runner is None:
            return 0
        if self.runner.poll() is None:
            self.runner.send_signal(signal.SIGTERM)
        code = self.runner.wait(30)
        self.runner = None
        return code

    def kill(self) -> None:
        assert self.runner is not None
        self.runner.kill()
        self.runner.wait(10)
        self.runner = None

    def died(self, timeout: float = 30) -> int:
        """Wait for the runner to end by itself (killed at its crash point): its exit code."""
        assert self.runner is not None
        code = self.runner.wait(timeout)
        self.runner = None
        return code

    def cli(self, *args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-m", "teamdeck", "-w", str(self.root), *args],
            capture_output=True,
            text=True,
            timeout=timeout,
        )

    def output(self) -> str:
        return self.runner_out.read_text() if self.runner_out.exists() else ""

    def agent_log(self) -> list[dict[str, Any]]:
        path = self.root / "agent-log.jsonl"
        if not path.exists():
            return []
        return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]

    def runs(self, member: str | None = None) -> list[RunRecord]:
        return sorted(
            (run for runs in all_runs(self.ws) for run in runs.runs if member is None or run.member == member),
            key=lambda run: run.id,
        )

    def decisions(self) -> list[dict[str, Any]]:
        path = self.root / "runs" / "decisions.jsonl"
        return [json.loads(line) for line in path.read_text().splitlines()] if path.exists() else []


def wait_for(check: Callable[[], Any], timeout: float = 20.0, step: float = 0.05) -> Any:
    """``check()``'s first truthy value, or AssertionError after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = check()
        if value:
            return value
        time.sleep(step)
    raise AssertionError(f"not within {timeout} s")


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    stat = Path(f"/proc/{pid}/stat").read_text() if Path(f"/proc/{pid}/stat").exists() else ""
    return not stat[stat.rindex(")") + 2 :].startswith("Z") if stat else False
