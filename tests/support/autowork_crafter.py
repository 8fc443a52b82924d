"""A scripted crafter for `runtime: command` (and tests that run it themselves): it takes
its unread messages with `teamdeck inbox TEAM MEMBER --inject --json`, and answers each
task_assignment and each guardian's request for changes with `teamdeck report ...
--status completed`; for changes it first writes `<task>.fixed` in the workspace (what
the test's check looks for). `--silent` makes a member that never answers: it reads
nothing and does nothing (the stall story).

Usage: autowork_crafter.py WORKSPACE TEAM MEMBER [--silent]
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

CHANGES = re.compile(r"asks for changes to task (\S+) ")


def teamdeck(workspace: str, *args: str) -> str:
    return subprocess.run(
        [sys.executable, "-m", "teamdeck", "-w", workspace, *args], capture_output=True, text=True, check=True
    ).stdout


def main(argv: list[str]) -> int:
    workspace, team, member = argv[:3]
    if "--silent" in argv:
        return 0
    messages = json.loads(teamdeck(workspace, "inbox", team, member, "--inject", "--json"))["messages"]
    for message in messages:
        text = message["text"]
        task_id = None
        try:
            decoded = json.loads(text)
            if isinstance(decoded, dict) and decoded.get("type") == "task_assignment":
                task_id = decoded["taskId"]
        except ValueError:
            found = CHANGES.search(text)
            if found:
                task_id = found[1]
                (Path(workspace) / f"{task_id}.fixed").write_text("fixed\n")
        if task_id:
            agent = member.lower()
            teamdeck(workspace, "report", task_id, agent, "--status", "completed", "--summary", f"{member}: {task_id}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
