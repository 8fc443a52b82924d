"""teamdeck's writes to a Ripperdoc team race Ripperdoc's own, and nothing is lost (C19:
concurrent sends to one inbox, the other writer being the agent tool itself).

Ripperdoc's ``send_team_message`` (the function its ``SendMessage`` tool and its idle
notifications call) appends to the recipient's inbox, to its ``messages.jsonl`` and bumps
``config.json``'s ``version``, all under one ``flock`` of ``teams/<team>/.lock``. Two
processes write the same team at once: the pinned Ripperdoc's Python sending messages to
``alice`` with its own function until told to stop, and meanwhile ``teamdeck send``
(another process per message, as agents and people run it) sending ``N`` more to her. If either side wrote
outside the other's lock, a read-modify-write would drop the other's entry.

The roster's ``version`` is not counted: Ripperdoc's ``send_team_message`` reads
config.json *before* it takes the lock and writes it back whole under it, so a bump made
in between by anyone (teamdeck, or another Ripperdoc process) is lost; 81 of 82 were
seen here (tests/fixtures/ripperdoc/FORMAT.md).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest
from support.ripperdoc_client import config_dir, python

pytestmark = pytest.mark.slow

TEAM = "Race-Team"  # Ripperdoc keeps case
N = 40

RIPPERDOC_SIDE = textwrap.dedent(
    """
    import pathlib
    import sys
    import time
    from ripperdoc.utils.collaboration import teams

    team, count = sys.argv[1], int(sys.argv[2])
    if sys.argv[3] == "create":
        lead = teams.TeamMember(name="team-lead", agent_id=f"team-lead@{team}", role="lead", active=True,
                                 agent_type="general-purpose")
        teams.create_team(name=team, members=[lead], metadata={"team_lead": "team-lead"})
        teams.upsert_team_member(team, teams.TeamMember(name="alice", agent_id=f"alice@{team}", active=True,
                                                                 agent_type="general-purpose"))
    else:
        # Send until told to stop (the file named by argv[4]), so both writers overlap.
        stop, n = pathlib.Path(sys.argv[4]), 0
        while not stop.exists() or n < count:
            teams.send_team_message(team_name=team, sender="team-lead", recipients=["alice"],
                                    message_type="message", content=f"ripperdoc {n}", metadata={"summary": f"r{n}"})
            n += 1
            time.sleep(0.03)  # about as often as teamdeck's sends land: a few hundred at most
        print(n)
    """
)


def ripperdoc_side(home: Path, *args: str) -> subprocess.Popen[str]:
    env = {**os.environ, "HOME": str(home), "RIPPERDOC_CONFIG_DIR": str(config_dir(home))}
    return subprocess.Popen(
        [str(python()), "-c", RIPPERDOC_SIDE, TEAM, str(N), *args],
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def teamdeck_send(root: Path, n: int) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "teamdeck",
            "send",
            TEAM,
            "alice",
            f"teamdeck {n}",
            "--summary",
            f"t{n}",
            "--workspace",
            str(root),
        ],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "TEAMDECK_WORKSPACE": ""},
    )


def test_teamdecks_sends_and_ripperdocs_own_lose_nothing_when_they_race(tmp_path: Path) -> None:
    home = tmp_path / "home"
    root = config_dir(home)
    root.mkdir(parents=True)
    created = ripperdoc_side(home, "create")
    out, err = created.communicate(timeout=60)
    assert created.returncode == 0, out + err
    config = root / "teams" / TEAM / "config.json"
    version_before = json.loads(config.read_text())["version"]

    stop = tmp_path / "stop"
    writer = ripperdoc_side(home, "send", str(stop))
    inbox_file = root / "teams" / TEAM / "inboxes" / "alice.json"
    deadline = time.monotonic() + 60
    while not inbox_file.exists() and time.monotonic() < deadline:  # Ripperdoc is sending
        time.sleep(0.01)
    with ThreadPoolExecutor(max_workers=2) as pool:
        sent = list(pool.map(lambda n: teamdeck_send(root, n), range(N)))
    stop.touch()
    out, err = writer.communicate(timeout=120)
    assert writer.returncode == 0, out + err
    ripperdocs = int(out)
    assert all(done.returncode == 0 for done in sent), [done.stderr for done in sent if done.returncode]

    inbox = json.loads(inbox_file.read_text())
    contents = sorted(entry["content"] for entry in inbox)
    assert contents == sorted([f"ripperdoc {n}" for n in range(ripperdocs)] + [f"teamdeck {n}" for n in range(N)])
    order = [entry["content"].split()[0] for entry in inbox]
    last_teamdeck = len(order) - 1 - order[::-1].index("teamdeck")
    assert "ripperdoc" in order[order.index("teamdeck") : last_teamdeck]  # the writers did overlap
    log = [json.loads(line) for line in (root / "teams" / TEAM / "messages.jsonl").read_text().splitlines()]
    assert sorted(record["content"] for record in log) == contents  # Ripperdoc's log: every message, once
    assert json.loads(config.read_text())["version"] > version_before  # see the module: not + 2N
    checked = subprocess.run(
        [sys.executable, "-m", "teamdeck", "validate", "--workspace", str(root)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert checked.returncode == 0, checked.stdout + checked.stderr
