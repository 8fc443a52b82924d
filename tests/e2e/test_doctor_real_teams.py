"""``teamdeck doctor`` tells the truth on real Claude Code data.

In Claude Code a teammate's first ``task_assignment`` also arrives in its spawn prompt,
so the inbox copy can stay unread while the work is done; doctor used to call every
such message "not injected" and exit 1 on a finished team. Each unread-after-idle
message is now classified by what the member did afterwards; only a member that did
nothing but go idle is a failure (exit 1).

The team is the real capture ``analysis-team`` (tests/fixtures/claude-code/, from a
user's ~/.claude), carried on to its end with entries shaped exactly like the
capture's own: reports, idle notifications with ``completedTaskId``, a shutdown.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from support.locations import FIXTURES

TEAM = "analysis-team"


def _append(root: Path, recipient: str, sender: str, at: str, text: str | dict, *, read: bool = True) -> None:
    path = root / "teams" / TEAM / "inboxes" / f"{recipient}.json"
    entries = json.loads(path.read_text()) if path.exists() else []
    body = json.dumps(text, separators=(",", ":")) if isinstance(text, dict) else text
    entries.append({"from": sender, "text": body, "timestamp": at, "color": "blue", "read": read})
    path.write_text(json.dumps(entries, indent=2))


def _idle(root: Path, member: str, at: str, completed: str | None = None) -> None:
    notice = {"type": "idle_notification", "from": member, "timestamp": at, "idleReason": "available"}
    if completed:
        notice |= {"completedTaskId": completed, "completedStatus": "completed"}
    _append(root, "team-lead", member, at, notice)


@pytest.fixture
def finished(tmp_path: Path) -> Path:
    """The captured team (its inboxes and its task list) after its members did their work.

    - message-analyst (assignment #3 unread): idles with completedTaskId 3.
    - task-analyst (assignment #1 unread): idles; the captured task list has #1
      completed, owned by it.
    - lifecycle-analyst (assignment #4 unread, #4 still pending): idles, is asked to
      shut down, approves, is marked inactive.
    - config-analyst (the lead's "You got interrupted..." unread): idles, says nothing.
    """
    root = tmp_path / "claude"
    shutil.copytree(FIXTURES / TEAM, root)
    _idle(root, "message-analyst", "2026-02-09T15:20:05.000Z", completed="3")
    _idle(root, "task-analyst", "2026-02-09T15:21:00.000Z")
    _idle(root, "lifecycle-analyst", "2026-02-09T15:22:00.000Z")
    request = "shutdown-1770650600000@lifecycle-analyst"
    _append(
        root,
        "lifecycle-analyst",
        "team-lead",
        "2026-02-09T15:23:20.000Z",
        {"type": "shutdown_request", "requestId": request, "from": "team-lead", "reason": "done"},
    )
    _append(
        root,
        "team-lead",
        "lifecycle-analyst",
        "2026-02-09T15:23:30.000Z",
        {"type": "shutdown_approved", "requestId": request, "from": "lifecycle-analyst", "backendType": "in-process"},
    )
    config = root / "teams" / TEAM / "config.json"
    data = json.loads(config.read_text())
    for member in data["members"]:
        if member["name"] == "lifecycle-analyst":
            member["isActive"] = False
    config.write_text(json.dumps(data, indent=2))
    _idle(root, "config-analyst", "2026-02-09T15:24:00.000Z")
    return root


def test_only_the_member_that_did_nothing_is_a_failure(finished: Path, run_cli) -> None:
    result = run_cli(finished, "doctor")
    assert result.code == 1, result.out
    # the roster flag is named as such: "active" alone read as "working"
    assert "    config-analyst       general-purpose  isActive " in result.out
    assert "    lifecycle-analyst    general-purpose  inactive " in result.out
    failures = result.out.split("  failures:\n", 1)[1].split("  notices:\n", 1)[0]
    assert failures.strip().splitlines() == [
        "not injected: plain from team-lead at 2026-02-09T15:09:40.164Z is still unread although config-analyst "
        "went idle after it and has sent nothing since: send it again, or check that config-analyst reads its inbox"
    ]
    notices = result.out.split("  notices:\n", 1)[1]
    assert (
        "unread, task completed: task_assignment from team-lead at 2026-02-09T15:08:18.038Z is still unread, "
        "but message-analyst completed task #3 (nothing to do)" in notices
    )
    assert "task_assignment from task-analyst at 2026-02-09T15:08:11.039Z is still unread, but task-analyst " in notices
    assert (
        "unread, member offline since: task_assignment from team-lead at 2026-02-09T15:08:18.567Z is still unread; "
        "lifecycle-analyst has gone offline since (nothing to do)" in notices
    )
    data = run_cli(finished, "doctor", "--json").json
    codes = sorted((f["code"], f["member"], f["failure"]) for f in data["teams"][0]["findings"])
    assert codes == [
        ("not_injected", "config-analyst", True),
        ("unread_completed", "message-analyst", False),
        ("unread_completed", "task-analyst", False),
        ("unread_offline", "lifecycle-analyst", False),
    ]


def test_a_member_that_reported_since_is_no_failure(finished: Path, run_cli) -> None:
    _append(finished, "team-lead", "config-analyst", "2026-02-09T15:25:00.000Z", "Config analysis written")
    result = run_cli(finished, "doctor")
    assert result.code == 0, result.out
    assert "no delivery or handshake failures" in result.out
    assert (
        "unread, member reported since: plain from team-lead at 2026-02-09T15:09:40.164Z is still unread, "
        "but config-analyst has sent messages since (it was working)" in result.out
    )
