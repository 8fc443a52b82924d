"""``notify.command``: the person's own command (ntfy, a Slack webhook, a phone) run for
each alert, with the alert as one JSON object on stdin.

Runs happen one at a time on a thread of their own, at least
``notify.minIntervalSeconds`` apart (the rest wait their turn, in order; beyond
:data:`MAX_WAITING` the newest are dropped, and the person is told); a command that
fails (cannot start, exits non-zero, outlives :data:`RUN_TIMEOUT_S`) is reported
as a notice - never fatal, and the next alert runs it again.
"""

from __future__ import annotations

import contextlib
import json
import os
import queue
import signal
import subprocess
import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from teamdeck.model.settings import NotifySettings

RUN_TIMEOUT_S = 10.0
MAX_WAITING = 50
"""The most alerts waiting for the command (a storm of arrivals must not queue hours
of runs)."""
_STOP = object()


class NotifyCommand:
    """The runner of ``notify.command`` for one app.

    Args:
        settings: reads the ``notify:`` settings, and why they could not be read, at
            each run (a change of ``.teamdeck.yaml`` applies to the next alert).
        report: says a failure to the person (called from the runner's thread).
    """

    def __init__(
        self, settings: Callable[[], tuple[NotifySettings, str | None]], report: Callable[[str], None]
    ) -> None:
        self._settings = settings
        self._report = report
        self._waiting: queue.Queue[object] = queue.Queue()
        self._thread: threading.Thread | None = None
        self._dropped = 0
        self.runs = 0
        """How many times the command ran (tests)."""

    def send(self, data: dict[str, Any]) -> None:
        """Run the command for one alert, when its turn comes."""
        if self._waiting.qsize() >= MAX_WAITING:
            self._dropped += 1
            if self._dropped == 1:
                self._report(f"notify.command: more than {MAX_WAITING} alerts waiting; the newest are not sent")
            return
        self._dropped = 0
        self._waiting.put(data)
        if self._thread is None:
            self._thread = threading.Thread(target=self._run_all, name="notify-command", daemon=True)
            self._thread.start()

    def stop(self) -> None:
        """Let the runner end after the run in progress (the app is closing)."""
        if self._thread is not None:
            self._waiting.put(_STOP)

    def _run_all(self) -> None:
        last = 0.0
        while True:
            data = self._waiting.get()
            if data is _STOP:
                return
            settings, problem = self._settings()
            if problem is not None:
                self._report(f"notify.command not run: {problem}")
                continue
            if settings.command is None:
                continue
            wait = last + settings.minIntervalSeconds - time.monotonic()
            if wait > 0:
                time.sleep(wait)
            last = time.monotonic()
            self.runs += 1
            failure = run_once(settings.command, json.dumps(data, ensure_ascii=False))
            if failure is not None:
                self._report(f"notify.command failed: {failure}")


def run_once(command: str | list[str], stdin: str) -> str | None:
    """Run ``command`` once with ``stdin``; None when it succeeded, else why not (one
    line: the exit status and the last line it wrote to stderr)."""
    try:
        process = subprocess.Popen(
            command,
            shell=isinstance(command, str),
            stdin=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
            start_new_session=True,  # its own process group: stopped whole on a timeout
        )
    except OSError as err:
        return f"could not start it: {err.strerror or err}"
    try:
        _, stderr = process.communicate(stdin, timeout=RUN_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, signal.SIGKILL)
        process.communicate()
        return f"still running after {RUN_TIMEOUT_S:g} s; stopped"
    if process.returncode != 0:
        lines = stderr.strip().splitlines()
        return f"exit status {process.returncode}" + (f": {lines[-1][:200]}" if lines else "")
    return None
