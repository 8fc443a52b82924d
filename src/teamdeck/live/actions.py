"""The front's actions, run one at a time in the order asked, each followed by a read
of exactly what it wrote.

An :class:`Action` is one protocol call on the workspace (the TUI's panels build them: tui/panels/*/actions.py).
The :class:`ActionRunner` runs them on one long-lived thread (a key press starts its
call at once: no thread to start first), records what each wrote through the store's
seam (protocol/common/written.py) and hands those paths down to an :class:`OwnWrites` (the
:class:`~teamdeck.live.workspace.LiveWorkspace`), which reads them and drops the
watcher's echo. There is no optimistic update: what the person sees is what is on
disk. How each action went is an :class:`Outcome` for the front to show.

Nothing here knows Textual; the front runs :meth:`ActionRunner.run` on a thread of its own.
"""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from teamdeck.errors import TeamdeckError
from teamdeck.protocol.common.written import recorded, stamps

if TYPE_CHECKING:
    from teamdeck.store.files import Stamp
    from teamdeck.store.workspace import Workspace


@dataclass(frozen=True)
class Action:
    """One thing a person asked for: a protocol call on the workspace.

    Attributes:
        what: what is being done, for the notice ("approve gate g1").
        call: the protocol call; returns a line for the person (or None).
        ref: who asked for it, handed back in its :class:`Outcome` (``teamdeck serve``:
            the request's id; the TUI needs none).
        actor: who the files record as acting (``human:web:ana``: a person at another
            front of ``teamdeck serve``); empty: the workspace's own actor.
    """

    what: str
    call: Callable[[Workspace], str | None]
    ref: str = ""
    actor: str = ""


@dataclass(frozen=True)
class Outcome:
    """How one action went.

    Attributes:
        what: the action's ``what``.
        text: the line for the person: the call's, ``done: <what>``, or why it failed.
        failed: the call was refused (a TeamdeckError) or raised.
        wrote: it changed files; they are read right after this outcome is reported,
            so a notice can wait for the frame that shows them.
        ref: the action's ``ref``.
    """

    what: str
    text: str
    failed: bool = False
    wrote: bool = False
    ref: str = ""


SHOWN_WAIT_S = 0.1
"""The longest an action waits, once its decision is on disk, for the front to draw it
before it writes the decision's effects (:class:`ActionRunner`)."""


class OwnWrites(Protocol):
    """Who is told what an action wrote (the live workspace): passed down to the runner,
    so the write seam never reaches up into a front."""

    def wrote(self, paths: Iterable[Path]) -> int:
        """``paths`` were written by this front: read them now, ignore their echo.
        Returns a ticket for :meth:`wait_shown`."""

    def wait_shown(self, ticket: int, timeout: float) -> None:
        """Return once what was read for ``ticket`` is drawn (at most ``timeout``
        seconds; at once for a front that does not say what it drew)."""


class ActionRunner:
    """Runs :class:`Action` s one at a time, in the order they were submitted.

    The first document a call replaces whole is the decision (task.yaml of a gate
    answered): before the call's next write (its effects: human-notes.md, the worker
    told) the runner waits for the front to draw it (at most :data:`SHOWN_WAIT_S`), so
    that the effects' work does not take the CPU (one interpreter lock) from the frame
    the person waits for.

    Args:
        ws: the workspace every call is given.
        writes: told what each call wrote; the first document it replaces whole
            (task.yaml for a decision, the inbox for a message) is told at once, while
            the call goes on (the decision shows while the worker is still being
            messaged), the rest once the call returns or fails, in one go.
        report: told each action's :class:`Outcome`, from the runner's thread.
    """

    def __init__(self, ws: Workspace, writes: OwnWrites, report: Callable[[Outcome], None]) -> None:
        self.ws = ws
        self._writes = writes
        self._report = report
        self._queue: queue.SimpleQueue[Action | None] = queue.SimpleQueue()
        self._waiting = 0
        self._lock = threading.Lock()

    def submit(self, action: Action) -> None:
        """Run ``action`` after every action submitted before it. Safe from any thread."""
        with self._lock:
            self._waiting += 1
        self._queue.put(action)

    @property
    def acting(self) -> bool:
        """An action is waiting or running (tests wait on it)."""
        return self._waiting > 0

    def stop(self) -> None:
        """End :meth:`run` once the actions submitted before are done."""
        self._queue.put(None)

    def run(self) -> None:
        """Run the submitted actions until :meth:`stop`. Blocks; run it on a thread."""
        while True:
            action = self._queue.get()
            if action is None:
                return
            try:
                self._perform(action)
            except Exception as err:  # noqa: BLE001 - a bug in one action must not stop the others
                self._report(Outcome(action.what, f"{type(err).__name__}: {err}", failed=True, ref=action.ref))
            finally:
                with self._lock:
                    self._waiting -= 1

    def _perform(self, action: Action) -> None:
        written: set[Path] = set()
        read_early: dict[Path, Stamp | None] = {}
        to_show: list[int] = []

        def before_next_write() -> None:
            if to_show:
                self._writes.wait_shown(to_show.pop(), SHOWN_WAIT_S)

        def replaced(path: Path) -> None:
            if read_early:
                # What follows the call's own document is its effects (human-notes.md,
                # the worker's inbox): read with the rest once the call returns. Each
                # told now was a refresh and a redraw on the UI thread while the
                # decision's frame waited for it.
                return
            read_early.update(stamps((path,)))
            to_show.append(self._writes.wrote({path}))

        try:
            done = recorded(
                lambda: action.call(self.ws._replace(actor=action.actor) if action.actor else self.ws),
                written,
                on_replaced=replaced,
                on_write=before_next_write,
            ).result
        except TeamdeckError as err:
            self._wrote_rest(written, read_early)
            self._report(Outcome(action.what, str(err), failed=True, ref=action.ref))
            return
        except BaseException:
            self._wrote_rest(written, read_early)
            raise
        self._report(Outcome(action.what, done or f"done: {action.what}", wrote=bool(written), ref=action.ref))
        self._wrote_rest(written, read_early)

    def _wrote_rest(self, written: set[Path], read_early: dict[Path, Stamp | None]) -> None:
        """Tell what the call wrote, but not the files told early and not written again
        since."""
        now = stamps(read_early)
        self._writes.wrote({path for path in written if path not in read_early or now[path] != read_early[path]})
