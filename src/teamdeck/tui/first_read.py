"""The first snapshot, read by a forked child process while this one imports Textual.

A start spends ~270 ms importing (Textual, the models, the readers) and ~130 ms reading
the workspace, and in one process Python runs the two one after the other (the GIL).
``teamdeck tui`` forks before it imports Textual: the child imports only what reading
needs, records the state of every file the snapshot is read from, reads the snapshot
and sends both back pickled, on the machine's other core. The app takes them once its
watcher is in place and refreshes every file that changed since the child's record, so
a change made meanwhile is not lost. Where there is no fork, or the child fails, dies or
is too slow, the app reads the workspace itself, as it would without this.
"""

from __future__ import annotations

import os
import pickle
import signal
import threading
from dataclasses import dataclass
from typing import TYPE_CHECKING, NoReturn

if TYPE_CHECKING:
    from teamdeck.store.workspace import Workspace
    from teamdeck.view.build import FileRecord
    from teamdeck.view.snapshot import WorkspaceSnapshot

TAKE_TIMEOUT_S = 30.0
"""The longest the app waits for the child before reading the workspace itself."""


@dataclass
class FirstRead:
    """A child process reading the first snapshot (:meth:`start`), and the pipe it
    answers on."""

    pid: int
    fd: int

    @classmethod
    def start(cls, ws: Workspace) -> FirstRead | None:
        """Fork the reader of ``ws``; None where that is not safe: no fork on this
        platform, or more than one thread (a child forked from a threaded process can
        hang on a lock another thread held, an import lock say). Call it before Textual
        or any worker starts."""
        if not hasattr(os, "fork") or threading.active_count() > 1:
            return None
        read_fd, write_fd = os.pipe()
        try:
            pid = os.fork()
        except OSError:
            os.close(read_fd)
            os.close(write_fd)
            return None
        if pid == 0:
            os.close(read_fd)
            _read_and_send(ws, write_fd)
        os.close(write_fd)
        return cls(pid, read_fd)

    def take(self, timeout: float = TAKE_TIMEOUT_S) -> tuple[FileRecord, WorkspaceSnapshot] | None:
        """What the child read: the file record taken before it read, and the snapshot.
        None when it failed or died (its answer is cut short) or took longer than
        ``timeout`` (it is stopped, which cuts the answer short). Call once."""
        watchdog = threading.Timer(timeout, os.kill, (self.pid, signal.SIGKILL))
        watchdog.daemon = True  # an app closed meanwhile does not wait for it
        watchdog.start()
        try:
            with os.fdopen(self.fd, "rb") as pipe:
                data = pipe.read()
            record, snapshot = pickle.loads(data)  # our own child's bytes
        except Exception:  # noqa: BLE001 - a child that failed or died mid-answer: the app reads the workspace itself
            return None
        finally:
            watchdog.cancel()
            os.waitpid(self.pid, 0)
        return record, snapshot


def _read_and_send(ws: Workspace, fd: int) -> NoReturn:
    """The child: record, read, send, exit (never back into the caller's code)."""
    status = 1
    try:
        from teamdeck.view.build import build_snapshot, file_record

        record = file_record(ws)
        snapshot = build_snapshot(ws, check_outputs=False, record=True)
        data = memoryview(pickle.dumps((record, snapshot), protocol=pickle.HIGHEST_PROTOCOL))
        while data:
            data = data[os.write(fd, data) :]
        status = 0
    except BaseException:  # noqa: BLE001 - Ctrl-C or a failure: the parent sees a short answer and reads itself
        pass
    finally:
        os._exit(status)
