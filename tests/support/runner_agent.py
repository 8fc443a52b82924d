"""A scripted agent for `runtime: command` tests: reads its unread messages with
`teamdeck inbox --inject` (unless told not to), records what it saw in
<workspace>/agent-log.jsonl (with the messages it was woken for, from
$TEAMDECK_RUN_MESSAGES), then obeys the directives in the messages it read and in
$AGENT (comma separated):

  sleep:N     sleep N seconds            fail / exit:N   exit with status 1 / N
  cost:X      print a stream-json result line reporting X dollars
  noread      ($AGENT only) do not read the inbox
  stubborn    ($AGENT only) ignore SIGTERM (the runner must SIGKILL)
  reply:NAME  send a message to NAME
  child       leave a child process in its process group (sleep 300)

A shutdown_request it reads is approved (shutdown_response --approve); with
`linger:N` in $AGENT it then stays N seconds more, as an agent that does not exit by
itself after approving (the runner must stop it).
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path


def main() -> int:
    ws, team, member, run_id = (os.environ[f"TEAMDECK_{k}"] for k in ("WORKSPACE", "TEAM", "MEMBER", "RUN_ID"))
    directives = [d for d in os.environ.get("AGENT", "").split(",") if d]
    if "stubborn" in directives:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
    texts: list[str] = []
    if "noread" not in directives:
        out = subprocess.run(
            [sys.executable, "-m", "teamdeck", "-w", ws, "inbox", team, member, "--inject", "--json"],
            capture_output=True,
            check=True,
        )
        texts = [message["text"] for message in json.loads(out.stdout)["messages"]]
    carried = [m["text"] for m in json.loads(Path(os.environ["TEAMDECK_RUN_MESSAGES"]).read_text())]
    entry = {
        "run": run_id, "member": member, "team": team, "pid": os.getpid(), "texts": texts, "argv": sys.argv[1:],
        "woken_for": carried,
    }  # fmt: skip
    with open(Path(ws) / "agent-log.jsonl", "a") as log:
        log.write(json.dumps(entry) + "\n")
    status = 0
    for text in texts:
        request = _shutdown_request(text)
        if request is not None:
            _teamdeck(
                ws,
                "send",
                team,
                "team-lead",
                "--type",
                "shutdown_response",
                "--request-id",
                request,
                "--approve",
                "--from",
                member,
            )
    for directive in directives + [t for text in texts for t in text.split(",")]:
        name, _, value = directive.strip().partition(":")
        if name == "sleep":
            time.sleep(float(value))
        elif name == "fail":
            print("failing as told", file=sys.stderr)
            status = 1
        elif name == "exit":
            status = int(value)
        elif name == "cost":
            print(json.dumps({"type": "result", "is_error": False, "total_cost_usd": float(value), "result": "done"}))
        elif name == "child":
            subprocess.Popen(["sleep", "300"])
        elif name == "reply":
            _teamdeck(ws, "send", team, value, f"from {member}", "--summary", "reply", "--from", member)
        elif name == "linger" and any(_shutdown_request(text) for text in texts):
            time.sleep(float(value))
    return status


def _shutdown_request(text: str) -> str | None:
    try:
        value = json.loads(text)
    except ValueError:
        return None
    return value.get("requestId") if isinstance(value, dict) and value.get("type") == "shutdown_request" else None


def _teamdeck(ws: str, *args: str) -> None:
    subprocess.run([sys.executable, "-m", "teamdeck", "-w", ws, *args], check=True, capture_output=True)


if __name__ == "__main__":
    sys.exit(main())
