"""A detached tmux session on a private server socket, for tests that drive
``teamdeck tui`` as a person does: keys in, the screen read back.

tmux runs on its own socket (``tmux -L``), so a test never touches a person's own tmux
sessions; :meth:`Tmux.kill` ends the server whatever happened.
"""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
import time
import uuid
from pathlib import Path

DEADLINE_S = 20.0


class Tmux:
    """One detached session on a private tmux server."""

    def __init__(self, command: list[str], *, width: int = 120, height: int = 36) -> None:
        self.socket = f"teamdeck-test-{uuid.uuid4().hex[:12]}"
        # Keep the pane after the app exits, so a crash leaves its traceback to read.
        shell = f"{shlex.join(command)}; echo EXITED $?; sleep 60"
        self.tmux("new-session", "-d", "-s", "td", "-x", str(width), "-y", str(height), shell)

    def tmux(self, *args: str) -> str:
        return subprocess.run(
            ["tmux", "-L", self.socket, "-f", os.devnull, *args], check=True, capture_output=True, text=True, timeout=10
        ).stdout

    def screen(self) -> str:
        return self.tmux("capture-pane", "-p", "-t", "td")

    def wait_for(self, *texts: str) -> str:
        """Poll the pane until every one of ``texts`` is on it; the screen."""
        deadline = time.monotonic() + DEADLINE_S
        while True:
            screen = self.screen()
            if all(text in screen for text in texts):
                return screen
            if "EXITED" in screen or time.monotonic() > deadline:
                raise AssertionError(f"waiting for {texts!r}; the screen is:\n{screen}")
            time.sleep(0.05)

    def wait_gone(self, text: str) -> str:
        deadline = time.monotonic() + DEADLINE_S
        while True:
            screen = self.screen()
            if text not in screen:
                return screen
            if time.monotonic() > deadline:
                raise AssertionError(f"{text!r} stayed on the screen:\n{screen}")
            time.sleep(0.05)

    def wait_changed(self, before: str, timeout_s: float = 5.0) -> str:
        """Poll the pane until it differs from ``before`` (or ``timeout_s`` passed: a key
        that changes nothing, at the end of a list); the screen."""
        deadline = time.monotonic() + timeout_s
        while (screen := self.screen()) == before and time.monotonic() < deadline:
            time.sleep(0.05)
        return screen

    def keys(self, *keys: str) -> None:
        self.tmux("send-keys", "-t", "td", *keys)

    def kill(self) -> None:
        subprocess.run(["tmux", "-L", self.socket, "kill-server"], capture_output=True, timeout=10)


def tui_command(root: Path) -> list[str]:
    """``teamdeck tui`` on ``root`` for a pane. LINES/COLUMNS may sit in the C environment
    of a process that used curses; they would override the pane's real size."""
    return [
        "env",
        "-u",
        "TEAMDECK_WORKSPACE",
        "-u",
        "LINES",
        "-u",
        "COLUMNS",
        "TERM=xterm-256color",
        sys.executable,
        "-m",
        "teamdeck",
        "tui",
        "--workspace",
        str(root),
    ]
