"""S1 under a real terminal: ``teamdeck tui`` in a pseudo-terminal shows a question, a
message and a task title full of escape sequences (OSC 52 clipboard write, OSC 0/2
titles, OSC 8 link, DCS, APC, PM, SOS, CSI 6n/2J, ESC c, 8-bit C1 forms, an
unterminated OSC), and none of them reaches the bytes the terminal receives.

The same run with the same words but harmless ``~`` in place of every escape is the
control: it proves the markers the assertions look for do reach the output when they
are plain text, and gives the escape sequences Textual itself sends.
"""

from __future__ import annotations

import fcntl
import os
import pty
import re
import signal
import struct
import sys
import termios
import threading
import time
from pathlib import Path

import pytest
from support import hostile

from teamdeck.store.workspace import Workspace

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="needs a Linux pty")

ROWS, COLS = 40, 160
DEADLINE_S = 20.0

INJECTED = (
    b"\x1b]52;",
    hostile.CLIPBOARD_PAYLOAD.encode("ascii"),
    b"\x1b]0;PWNED",
    b"\x1b]2;PWNED",
    b"\x1b]8;;https://evil",
    b"\x1bP+q",
    b"\x1b_PWNED",
    b"\x1b^PWNED",
    b"\x1bXPWNED",
    "\x9b".encode(),
    "\x9d".encode(),
    "\x90".encode(),
    "\x9c".encode(),
    hostile.PWNED.encode("ascii"),
)
"""Byte strings only the injected sequences contain (8-bit C1 forms as UTF-8)."""
NO_MORE_THAN_TEXTUAL = (b"\x1b[6n", b"\x1b[2J", b"\x1bc")
"""Sequences Textual may send itself: the hostile run may not send more of them."""
STRING_SEQUENCE = re.compile(rb"\x1b[\]P_^X][^\x07\x1b]*(?:\x07|\x1b\\)?")
"""OSC, DCS, APC, PM and SOS strings as they appear in the output."""


class PtyApp:
    """``teamdeck tui`` on a pseudo-terminal: its output collected by a thread."""

    def __init__(self, workspace: Path) -> None:
        self.output = bytearray()
        self._lock = threading.Lock()
        env = {key: value for key, value in os.environ.items() if not key.startswith(("TEXTUAL", "TEAMDECK"))}
        env.update(TERM="xterm-256color", LANG="C.UTF-8", COLUMNS=str(COLS), LINES=str(ROWS))
        argv = [sys.executable, "-m", "teamdeck", "tui", "--workspace", str(workspace), "--no-watch"]
        self.pid, self.fd = pty.fork()
        if self.pid == 0:  # the child: size the terminal, become the app
            try:
                fcntl.ioctl(0, termios.TIOCSWINSZ, struct.pack("HHHH", ROWS, COLS, 0, 0))
                os.execve(sys.executable, argv, env)
            finally:
                os._exit(127)
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        while True:
            try:
                data = os.read(self.fd, 65536)
            except OSError:  # EIO: the child closed the terminal
                return
            if not data:
                return
            with self._lock:
                self.output += data

    def snapshot(self) -> bytes:
        with self._lock:
            return bytes(self.output)

    def wait_for(self, marker: bytes, *, after: int = 0) -> int:
        """Wait until ``marker`` appears in the output past offset ``after``; its offset."""
        deadline = time.monotonic() + DEADLINE_S
        while True:
            found = self.snapshot().find(marker, after)
            if found >= 0:
                return found
            if time.monotonic() > deadline:
                raise AssertionError(
                    f"{marker!r} did not appear within {DEADLINE_S} s; output tail: {self.snapshot()[-600:]!r}"
                )
            time.sleep(0.02)

    def press(self, keys: bytes) -> None:
        os.write(self.fd, keys)

    def wait_exit(self) -> int:
        """The exit status (killed after the deadline)."""
        deadline = time.monotonic() + DEADLINE_S
        while time.monotonic() < deadline:
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                self._reader.join(timeout=2)
                return os.waitstatus_to_exitcode(status)
            time.sleep(0.02)
        self.kill()
        raise AssertionError("teamdeck tui did not quit on q")

    def kill(self) -> None:
        try:
            os.kill(self.pid, signal.SIGKILL)
            os.waitpid(self.pid, 0)
        except (ProcessLookupError, ChildProcessError):
            pass

    def close(self) -> None:
        self.kill()
        try:
            os.close(self.fd)
        except OSError:
            pass


def run_tui(workspace: Path) -> bytes:
    """Start the TUI, wait for the text on panels 1, 3 and 4, quit with ``q``; the output."""
    app = PtyApp(workspace)
    try:
        after = app.wait_for(f"{hostile.AFTER}-question".encode())
        app.wait_for(b"Quit", after=after)  # the footer, drawn below the question
        app.press(b"3")
        app.wait_for(f"{hostile.AFTER}-inbox".encode())
        app.press(b"4")
        app.wait_for(f"{hostile.BEFORE}-title".encode())  # the control's title is longer than a cell
        app.press(b"q")
        assert app.wait_exit() == 0
        return app.snapshot()
    finally:
        app.close()


def test_s1_no_injected_escape_sequence_reaches_the_terminal(ws: Workspace, tmp_path: Path) -> None:
    hostile.escape_world(ws, hostile.escape_text)
    hostile_out = run_tui(ws.root)
    (tmp_path / "control").mkdir()
    control = Workspace.at(tmp_path / "control", clock=ws.clock, actor=ws.actor)
    hostile.escape_world(control, hostile.benign_text)
    benign_out = run_tui(control.root)

    # The control run shows the payload words as text: the searches below can find them.
    assert b"PWNED-TITLE-0" in benign_out and hostile.CLIPBOARD_PAYLOAD.encode() in benign_out

    for injected in INJECTED:
        assert injected not in hostile_out, f"{injected!r} reached the terminal"
    for sequence in NO_MORE_THAN_TEXTUAL:
        assert hostile_out.count(sequence) <= benign_out.count(sequence), (
            f"an injected {sequence!r} reached the terminal"
        )
    own = set(STRING_SEQUENCE.findall(benign_out))
    extra = set(STRING_SEQUENCE.findall(hostile_out)) - own
    assert not extra, f"string sequences Textual did not send itself: {sorted(extra)[:5]!r}"

    # A visible placeholder where the sequences were, and the rest still drawn after it.
    placeholder = "\ufffd".encode()
    first = hostile_out.find(placeholder)
    assert first >= 0, "no U+FFFD placeholder on screen"
    assert hostile_out.find(f"{hostile.AFTER}-question".encode(), first) > first
    assert hostile_out.find(b"Quit", first) > first, "the footer was not drawn after the hostile text"
    assert f"{hostile.AFTER}-title".encode() in hostile_out and f"{hostile.AFTER}-inbox".encode() in hostile_out
