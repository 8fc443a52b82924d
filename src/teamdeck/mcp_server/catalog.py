"""The ten tools ``teamdeck mcp`` serves: names and the descriptions agents read.

Kept apart from the server so ``teamdeck mcp --help`` can list them without importing
the MCP SDK (every other command stays fast).
"""

from __future__ import annotations

import textwrap

TOOLS: dict[str, str] = {
    "list_agents": (
        "List the members of your team: name, role, model, derived status (working, idle, awaiting a "
        "person, shutdown-requested, shutdown-approved, offline), unread messages, whether an MCP server "
        "acts as them over HTTP (connected), whether `teamdeck run` is running their process now "
        "(running; run: since when, runs today, cost, how the last run ended), and the open tasks they work on "
        "(currentTask is the most recently changed)."
    ),
    "read_agent_conversation": (
        "Read a member's conversation: what it received and what it sent (from every inbox of the team and "
        "teamdeck's messages.jsonl), oldest first, newest last; consecutive idle notifications are folded "
        "into one row with a count. Pages: returns the `limit` messages before row index `before` (default: "
        "the newest); the result's `before` is the cursor for the previous page (null at the beginning). "
        "Reads only."
    ),
    "create_agent": (
        "Add a member to your team's roster (config.json), as Claude Code's Task(team_name, name) does; a "
        "member of that name who shut down is brought back. This only writes the roster: starting the "
        "agent's process is your runtime's job (e.g. spawn a teammate with that name). `team_role` (coordinator, "
        "crafter, gate) limits what the new member may do: a crafter does not delegate or create agents, a gate "
        "only gives its verdict."
    ),
    "delegate": (
        "Assign a teamdeck task to a member of its team, as `teamdeck delegate`: records the worker in "
        "task.yaml (an approved task starts) and sends a task_assignment to the member's inbox, from you. "
        "You are told in your inbox when the worker reports (or use wait_for_agent)."
    ),
    "message_agent": (
        "Send a plain message to one member of your team, from you, as `teamdeck send` (Claude Code's "
        "SendMessage type=message): `member` is a name, NAME, name@team or team-lead; the summary is "
        "required and shown to the recipient; structured protocol messages are refused."
    ),
    "wait_for_agent": (
        "Wait (without polling) until a member reports on a task (a new or changed final.json), the task "
        "ends, the member goes idle (a new idle notification) or offline, or `timeout_s` passes. Returns at "
        "once when there is nothing to wait for: the member is offline, the task is final, or its final "
        "report on the task is already in. The result's `event` says which: reported, task-finished, idle, "
        "offline or timeout, with the report if any."
    ),
    "report_to_parent": (
        "Report on a task as its worker, as `teamdeck report`: writes your final.json (status completed, "
        "blocked or failed; summary; questions for a person; next actions; changed files), joins the task "
        "(blocked opens a gate for a person) and tells whoever delegated the task to you."
    ),
    "request_decision": (
        "Ask a person to decide something about a task, without finishing your work: opens a gate in the "
        "decision queue (the task becomes input-required; your questions go to shared/human-notes.md), "
        "exactly as a blocked report does. Returns the gate id: read the answer with get_decision."
    ),
    "get_decision": (
        "Read a gate's decision: pending, approved or rejected, with who decided, when and their note "
        "(answers may also be written under the questions in shared/human-notes.md). With wait_s > 0, waits "
        "(without polling) up to that many seconds for the decision."
    ),
    "read_inbox": (
        "Read your inbox as `<teammate-message>` blocks (the format Claude Code injects), marking the unread "
        "ones read as `teamdeck inbox --inject` does (shutdown requests first). unread_only=false also returns "
        "the messages read earlier."
    ),
}
"""Tool name → description, in the order they are listed."""


def help_text(width: int = 100) -> str:
    """The tools as ``teamdeck mcp --help`` lists them (the first sentence of each)."""
    lines = ["tools (the agent reads the full descriptions):"]
    for name, description in TOOLS.items():
        first = description.split(". ")[0].rstrip(".") + "."
        lines.append(textwrap.fill(first, width, initial_indent=f"  {name:<25}", subsequent_indent=" " * 27))
    return "\n".join(lines)
