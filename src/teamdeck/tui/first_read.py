"""The first snapshot, read by a forked child process while this one imports Textual.

A start spends ~270 ms importing (Textual, the models, the readers) and ~130 ms reading
the workspace, and in one process Python runs the two one after the other (the GIL).
``teamdeck tui`` forks before it imports Textual: the child imports only what reading
needs, records the state of every file the snapshot is read from, reads the snapshot
and sends it back pickled, on the machine's other core. The app takes it once its
watcher is in place and refreshes every file that changed since the child's record, so
a change made meanwhile is not lost. Where there is no fork, or the child fails, dies or
is too slow, the app reads the workspace itself, as it would without this.

The answer comes in two parts through one pickler (so the second refers to the
objects of the first instead of repeating them): the record and what the fronts draw
(the snapshot without its refresher state), then the refresher state (the parsed
inboxes, ledgers and log readers: at 10x, 20 MB of the 22 and 1 s of the 1.2 s
unpickling). The app draws its first screen from the first part and takes the second
after it (:meth:`FirstRead.state`), before it refreshes anything.
"""

from __future__ import annotations

import os
import pickle
import signal
import threading
from dataclasses import dataclass, field, replace
from typing import IO, TYPE_CHECKING, NoReturn

if TYPE_CHECKING:
    from teamdeck.store.workspace import Workspace
    from teamdeck.view.file_record import FileRecord
    from teamdeck.view.read_state import ReadState
    from teamdeck.view.snapshot import WorkspaceSnapshot

TAKE_TIMEOUT_S = 30.0
"""The longest the app waits for the child (both parts) before reading the workspace itself."""


@dataclass
class FirstRead:
    """A child process reading the first snapshot (:meth:`start`), and the pipe it
    answers on."""

    pid: int
    fd: int
    _pipe: IO[bytes] | None = field(default=None, repr=False)
    _unpickler: pickle.Unpickler | None = field(default=None, repr=False)
    _watchdog: threading.Timer | None = field(default=None, repr=False)

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
        """The first part of the child's answer: the file record taken before it read,
        and the snapshot without its refresher state (``state`` is None: call
        :meth:`state` for it). None when the child failed or died (its answer is cut
        short) or took longer than ``timeout`` for both parts (it is stopped, which
        cuts the answer short). Call once."""
        self._watchdog = threading.Timer(timeout, os.kill, (self.pid, signal.SIGKILL))
        self._watchdog.daemon = True  # an app closed meanwhile does not wait for it
        self._watchdog.start()
        try:
            self._pipe = os.fdopen(self.fd, "rb")
            self._unpickler = pickle.Unpickler(self._pipe)
            record, snapshot = self._unpickler.load()  # our own child's bytes
        except Exception:  # noqa: BLE001 - a child that failed or died mid-answer: the app reads the workspace itself
            self._end()
            return None
        return record, snapshot

    def state(self) -> ReadState | None:
        """The second part: the refresher state of the snapshot :meth:`take` returned
        (its objects are the snapshot's own). None when the child failed, died or
        timed out meanwhile, or :meth:`take` did not answer. Call once, after it."""
        if self._unpickler is None:
            return None
        try:
            state: ReadState = self._unpickler.load()
        except Exception:  # noqa: BLE001 - cut short: the app reads the workspace itself
            return None
        finally:
            self._end()
        return state

    def _end(self) -> None:
        """Close the pipe, stop the watchdog and reap the child (it has exited or was killed)."""
        if self._watchdog is not None:
            self._watchdog.cancel()
        if self._pipe is not None:
            self._pipe.close()
        else:
            os.close(self.fd)
        self._unpickler = None
        os.waitpid(self.pid, 0)


def _read_and_send(ws: Workspace, fd: int) -> NoReturn:
    """The child: record, read, send both parts, exit (never back into the caller's code)."""
    status = 1
    try:
        from teamdeck.view.build import build_snapshot
        from teamdeck.view.file_record import file_record

        record = file_record(ws)
        snapshot = build_snapshot(ws, check_outputs=False, record=True)
        with os.fdopen(fd, "wb") as pipe:
            pickler = pickle.Pickler(pipe, protocol=pickle.HIGHEST_PROTOCOL)
            pickler.dump((record, replace(snapshot, state=None)))
            pipe.flush()  # the app draws from this part while the second is pickled
            pickler.dump(snapshot.state)
        status = 0
    except BaseException:  # noqa: BLE001 - Ctrl-C or a failure: the parent sees a short answer and reads itself
        pass
    finally:
        os._exit(status)
