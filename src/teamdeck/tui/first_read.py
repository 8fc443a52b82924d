"""The first snapshot, read by a forked child process while this one imports Textual.

A start spends ~270 ms importing (Textual, the models, the readers) and ~130 ms reading
the workspace, and in one process Python runs the two one after the other (the GIL).
``teamdeck tui`` forks before it imports Textual: the child imports only what reading
needs, reads the snapshot and sends it back pickled, on the machine's other core.
Meanwhile the app records the state of every file the snapshot is read from (at 10x,
0.2-0.4 s of stat calls the child would otherwise make before its read) and tells the
child to read once it has; once its watcher is in place it refreshes every file that
changed since that record, so a change made meanwhile is not lost. Where there is no
fork, or the child fails, dies or is too slow, the app reads the workspace itself, as
it would without this.

The answer comes in two parts through one pickler (so the second refers to the
objects of the first instead of repeating them): what the fronts draw (the snapshot
without its refresher state), then the refresher state (the parsed inboxes, ledgers
and log readers: at 10x, 10 of the 20 MB and 0.27 of the 0.34 s of unpickling them with
collection off). The app draws its first screen from the first part and takes the second
after it (:meth:`FirstRead.state`), before it refreshes anything.
"""

from __future__ import annotations

import contextlib
import os
import pickle
import signal
import threading
from dataclasses import dataclass, field, replace
from typing import IO, TYPE_CHECKING, NoReturn

if TYPE_CHECKING:
    from teamdeck.store.workspace import Workspace
    from teamdeck.view.refresh.file_record import FileRecord
    from teamdeck.view.refresh.read_state import ReadState
    from teamdeck.view.snapshot.workspace import WorkspaceSnapshot

TAKE_TIMEOUT_S = 30.0
"""The longest the app waits for the child (both parts) before reading the workspace itself."""


def before_the_fork() -> None:
    """Import, before the fork, what both processes would import after it: the data
    models and pydantic (~110-150 ms), which the child reads with and the app needs for the
    second part of the child's answer, after its first frame. The child then starts
    from them, and the two import each module once between them; the rest of the
    readers are the child's alone until the app's first frame. (Importing all the
    readers here would make the app wait for them before it imports Textual: at 1x the
    two sides reach the first screen together as it is.)"""
    # Imported for their side effect: the classes exist in both processes (pydantic with the task models).


@dataclass
class FirstRead:
    """A child process reading the first snapshot (:meth:`start`), and the pipe it
    answers on."""

    pid: int
    fd: int
    record: FileRecord
    """The state of the files, taken before the child read them."""
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
        from teamdeck.view.refresh.file_record import file_record

        read_fd, write_fd = os.pipe()
        go_fd, going_fd = os.pipe()
        try:
            pid = os.fork()
        except OSError:
            for fd in (read_fd, write_fd, go_fd, going_fd):
                os.close(fd)
            return None
        if pid == 0:
            os.close(read_fd)
            os.close(going_fd)
            _read_and_send(ws, write_fd, go_fd)
        os.close(write_fd)
        os.close(go_fd)
        try:
            record = file_record(ws)  # while the child imports the readers
        except Exception:  # noqa: BLE001 - no record, no read elsewhere: the app reads the workspace itself
            os.close(going_fd)  # a child not told to read exits without an answer
            os.close(read_fd)
            os.waitpid(pid, 0)
            return None
        with contextlib.suppress(OSError):  # a child already gone: its answer is cut short, take() says so
            os.write(going_fd, _RECORDED)
        os.close(going_fd)
        return cls(pid, read_fd, record)

    def take(self, timeout: float = TAKE_TIMEOUT_S) -> tuple[FileRecord, WorkspaceSnapshot] | None:
        """The file record taken before the child read, and the first part of its
        answer: the snapshot without its refresher state (``state`` is None: call
        :meth:`state` for it). None when the child failed or died (its answer is cut
        short) or took longer than ``timeout`` for both parts (it is stopped, which
        cuts the answer short). Call once."""
        self._watchdog = threading.Timer(timeout, os.kill, (self.pid, signal.SIGKILL))
        self._watchdog.daemon = True  # an app closed meanwhile does not wait for it
        self._watchdog.start()
        try:
            self._pipe = os.fdopen(self.fd, "rb")
            self._unpickler = pickle.Unpickler(self._pipe)
            snapshot = self._unpickler.load()  # our own child's bytes
        except Exception:  # noqa: BLE001 - a child that failed or died mid-answer: the app reads the workspace itself
            self._end()
            return None
        return self.record, snapshot

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


_RECORDED = b"r"
"""What the app writes to the child once it recorded the files' state."""


def _read_and_send(ws: Workspace, fd: int, go_fd: int) -> NoReturn:
    """The child: import the readers, wait for the app's record, read, send both parts,
    exit (never back into the caller's code)."""
    status = 1
    try:
        from teamdeck.view.refresh.build import build_snapshot

        if os.read(go_fd, 1) != _RECORDED:
            raise RuntimeError("the app took no record of the files")  # (it failed): no answer, it reads itself
        snapshot = build_snapshot(ws, check_outputs=False, record=True)
        with os.fdopen(fd, "wb") as pipe:
            pickler = pickle.Pickler(pipe, protocol=pickle.HIGHEST_PROTOCOL)
            pickler.dump(replace(snapshot, state=None))
            pipe.flush()  # the app draws from this part while the second is pickled
            pickler.dump(snapshot.state)
        status = 0
    except BaseException:  # noqa: BLE001 - Ctrl-C or a failure: the parent sees a short answer and reads itself
        pass
    finally:
        os._exit(status)
