"""Alerts in a real terminal: ``teamdeck tui`` in tmux, every byte it
writes to the terminal copied out with ``pipe-pane``. A permission request written from
outside while the terminal is unfocused brings a bell and an OSC 9 / OSC 777
notification naming the agent and the reason; while focused on the queue, none.

Focus is what the terminal reports: Textual turns focus reporting on (``CSI ? 1004 h``)
and the terminal answers ``CSI O`` / ``CSI I`` when its window loses or gains focus.
tmux sends those to the pane itself when its ``focus-events`` option is on and an
attached client's focus changes; a detached test session has no client, so the test
types the very same reports into the pane.
"""

from __future__ import annotations

import re
import time
from pathlib import Path

import pytest
from support import decision_world as world
from support.tmux import DEADLINE_S, Tmux, tui_command

from teamdeck.store.workspace import Workspace

OSC = re.compile(r"\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)")
FOCUS_OUT, FOCUS_IN = ("1b", "5b", "4f"), ("1b", "5b", "49")


def _wait_output(out: Path, text: str, start: int = 0) -> str:
    deadline = time.monotonic() + DEADLINE_S
    while True:
        written = out.read_bytes()[start:].decode("utf-8", "replace") if out.exists() else ""
        if text in written:
            return written
        if time.monotonic() > deadline:
            raise AssertionError(f"{text!r} never written; the terminal got {written[-2000:]!r}")
        time.sleep(0.05)


@pytest.mark.parametrize("size", [(80, 24), (120, 36)])
def test_a_decision_rings_the_unfocused_terminal_and_not_the_focused_one(demo: Path, tmp_path: Path, size) -> None:
    out = tmp_path / "terminal.out"
    session = Tmux(tui_command(demo), width=size[0], height=size[1])
    try:
        session.tmux("set-option", "-g", "focus-events", "on")
        session.tmux("pipe-pane", "-o", "-t", "td", f"cat >> {out}")
        session.wait_for("1 Decisions", " unread")
        ws = Workspace.at(demo)

        session.tmux("send-keys", "-t", "td", "-H", *FOCUS_OUT)
        time.sleep(0.3)
        before = out.stat().st_size if out.exists() else 0
        world.ask_permission(ws, "perf-audit", "profiler", "perm-away", description="Run perf record")
        written = _wait_output(out, "\x1b]9;", before)
        assert "\x07" in written
        notification = written.split("\x1b]9;", 1)[1].split("\x07", 1)[0]
        assert "profiler" in notification and "permission" in notification
        assert "\x1b]777;notify;" in written

        session.tmux("send-keys", "-t", "td", "-H", *FOCUS_IN)
        time.sleep(0.3)
        before = out.stat().st_size
        world.ask_permission(ws, "perf-audit", "log-miner", "perm-here", description="Read the access logs")
        session.wait_for("log-miner")  # on screen: read and drawn
        time.sleep(1.0)
        after = out.read_bytes()[before:].decode("utf-8", "replace")
        assert "\x1b]9;" not in after and "\x1b]777;" not in after
        assert "\x07" not in OSC.sub("", after)  # no bell (a BEL ending another OSC is not one)
    finally:
        session.kill()
