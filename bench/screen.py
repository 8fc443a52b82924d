"""The real app in a real (pseudo-)terminal, watched from outside.

"Visible on screen" here means: the bytes that draw it have been written to the
terminal. :class:`Terminal` runs ``bench/app_main.py`` (the app as ``teamdeck tui``
builds it) under a pty of a fixed size, reads everything it writes on a thread, and
notes when each chunk arrived, so a benchmark can ask when a piece of text first
appeared after a given point (:meth:`Terminal.wait_for`). Textual writes each widget
line's segments whole, so a value drawn in one style (``401 unread``) arrives
contiguous. Nothing in the app is hooked or patched.
"""

from __future__ import annotations

import bisect
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

APP_MAIN = Path(__file__).with_name("app_main.py")
ANSI = re.compile(rb"\x1b(\[[0-9;?<>=$]*[ -/]*[@-~]|\][^\x07]*\x07|[=>78])")


class Terminal:
    """``bench/app_main.py WORKSPACE [args]`` (or another ``program``: the bare app of
    bench/bare_app.py) under a pty of ``size`` (columns, rows).

    Attributes:
        pid: the app's process id (for /proc: CPU time, peak memory).
        started: ``time.perf_counter()`` just before the process was forked.
    """

    def __init__(
        self, workspace: Path, *args: str, size: tuple[int, int] = (120, 40), program: Path = APP_MAIN
    ) -> None:
        self.size = size
        self._buffer = bytearray()
        self._ends: list[int] = []
        self._times: list[float] = []
        self._cond = threading.Condition()
        self._closed = False
        self._status: int | None = None
        argv = [sys.executable, str(program), str(workspace), *args]
        self.started = time.perf_counter()
        pid, fd = pty.fork()
        if pid == 0:  # the child: become the app
            os.environ.update(TERM="xterm-256color", COLUMNS=str(size[0]), LINES=str(size[1]))
            os.environ.pop("NO_COLOR", None)
            try:
                os.execv(sys.executable, argv)
            finally:
                os._exit(127)
        self.pid, self.fd = pid, fd
        fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", size[1], size[0], 0, 0))
        self._reader = threading.Thread(target=self._read, name="pty-reader", daemon=True)
        self._reader.start()

    def _read(self) -> None:
        while True:
            try:
                data = os.read(self.fd, 1 << 16)
            except OSError:
                data = b""
            now = time.perf_counter()
            with self._cond:
                if not data:
                    self._closed = True
                    self._cond.notify_all()
                    return
                self._buffer += data
                self._ends.append(len(self._buffer))
                self._times.append(now)
                self._cond.notify_all()

    # --- reading the screen ----------------------------------------------------------

    def mark(self) -> int:
        """The offset of everything written so far (search after it)."""
        with self._cond:
            return len(self._buffer)

    def arrival(self, offset: int) -> float:
        """When the byte at ``offset`` arrived (``perf_counter`` time)."""
        with self._cond:
            index = bisect.bisect_right(self._ends, offset)
            return self._times[min(index, len(self._times) - 1)]

    def wait_for(
        self, pattern: bytes | re.Pattern[bytes], since: int = 0, timeout: float = 10.0
    ) -> tuple[float, re.Match[bytes]]:
        """Wait until ``pattern`` appears in what was written after offset ``since``.

        Returns:
            When the chunk completing the first match arrived, and the match.

        Raises:
            TimeoutError: not seen within ``timeout`` seconds (the text written since
                ``since`` is in the message, escape sequences removed).
        """
        regex = pattern if isinstance(pattern, re.Pattern) else re.compile(re.escape(pattern))
        deadline = time.perf_counter() + timeout
        scanned = since
        with self._cond:
            while True:
                match = regex.search(self._buffer, scanned)
                if match is not None:
                    index = bisect.bisect_left(self._ends, match.end())
                    return self._times[index], match
                scanned = max(since, len(self._buffer) - 256)
                left = deadline - time.perf_counter()
                if left <= 0 or self._closed:
                    tail = ANSI.sub(b"", bytes(self._buffer[since:]))[-2000:].decode("utf-8", "replace")
                    why = "the app exited" if self._closed else f"not seen within {timeout:g} s"
                    raise TimeoutError(f"{regex.pattern!r}: {why}; the screen got: {tail!r}")
                self._cond.wait(left)

    def matches(self, pattern: re.Pattern[bytes], since: int = 0) -> list[tuple[float, re.Match[bytes]]]:
        """Every match of ``pattern`` written after ``since``, with its arrival time."""
        with self._cond:
            found = []
            for match in pattern.finditer(self._buffer, since):
                index = bisect.bisect_left(self._ends, match.end())
                found.append((self._times[index], match))
            return found

    def text(self, since: int = 0) -> str:
        """What was written after ``since``, escape sequences removed (for messages)."""
        with self._cond:
            return ANSI.sub(b"", bytes(self._buffer[since:])).decode("utf-8", "replace")

    # --- typing, ending -------------------------------------------------------------

    def send(self, keys: bytes) -> float:
        """Type ``keys``; returns the time they were written."""
        moment = time.perf_counter()
        os.write(self.fd, keys)
        return moment

    def close(self, timeout: float = 5.0) -> int | None:
        """Quit the app (``q``), then stop it if it does not exit; returns its exit status."""
        if self._status is not None:
            return self._status
        try:
            os.write(self.fd, b"q")
        except OSError:
            pass
        deadline = time.monotonic() + timeout
        status = None
        while time.monotonic() < deadline:
            pid, status = os.waitpid(self.pid, os.WNOHANG)
            if pid:
                break
            time.sleep(0.02)
        else:
            os.kill(self.pid, signal.SIGKILL)
            _pid, status = os.waitpid(self.pid, 0)
        self._reader.join(1.0)
        try:
            os.close(self.fd)
        except OSError:
            pass
        self._status = status
        return status

    def __enter__(self) -> Terminal:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
