"""The floor each on-screen target is divided by: the least a Textual app must do to
show the same thing, run under the same pty in the same benchmark run.

* **start**: import Textual and draw one screen of the terminal's size (an overview
  line and a screenful of rows, the first holding the oldest gate's task id): what
  ``teamdeck tui`` shows first, without reading anything.
* **write → screen** (``--watch``): teamdeck's own watcher (:func:`teamdeck.watch.watch_batches`,
  the same debounce and step) on the workspace, and one frame per batch: the overview
  line counts the batches seen (``<n> batches``). Nothing is read or parsed.
* **key → durable and on screen** (``--durable FILE``): Enter appends one line to FILE,
  fsyncs it, and the next frame shows ``<n> decided``.
* **CPU**: this app with ``--watch``, idle and with the same writes as the real app.

Usage::

    python bench/bare_app.py WORKSPACE --overview TEXT --first TEXT [--rows 60] [--watch] [--durable FILE]
"""

from __future__ import annotations

import argparse
import os
import threading
from pathlib import Path


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("workspace", type=Path)
    parser.add_argument("--overview", default="bare app", help="the first line (the real app's overview line)")
    parser.add_argument("--first", default="first row", help="text of the first row (the oldest gate's task)")
    parser.add_argument("--rows", type=int, default=60, help="rows of the list (more than the screen shows)")
    parser.add_argument("--watch", action="store_true", help="watch WORKSPACE, one frame per batch")
    parser.add_argument("--durable", type=Path, help="Enter appends a line to this file, fsynced")
    args = parser.parse_args()

    from textual.app import App, ComposeResult
    from textual.events import Key
    from textual.widgets import Static

    class Bare(App[None]):
        CSS = "#overview { height: 1; } #rows { height: auto; }"
        BINDINGS = [("q", "quit", "Quit")]

        def __init__(self) -> None:
            super().__init__()
            self.batches = 0
            self.decided = 0
            self.stop = threading.Event()

        def compose(self) -> ComposeResult:
            yield Static(f"{args.overview} · 0 batches · 0 decided", id="overview")
            rows = [f"{args.first}  the oldest decision waiting"]
            rows += [f"row {n:04d}  generated line of the bare app's list" for n in range(1, args.rows)]
            yield Static("\n".join(rows), id="rows")

        def on_mount(self) -> None:
            if args.watch:
                threading.Thread(target=self.watch, name="bare-watcher", daemon=True).start()

        def watch(self) -> None:
            from teamdeck.watch import watch_batches

            for _batch in watch_batches(args.workspace, self.stop):
                self.call_from_thread(self.seen)

        def seen(self) -> None:
            self.batches += 1
            self.show()

        def show(self) -> None:
            overview = self.query_one("#overview", Static)
            overview.update(f"{args.overview} · {self.batches} batches · {self.decided} decided")

        def on_key(self, event: Key) -> None:
            if event.key == "enter" and args.durable is not None:
                with open(args.durable, "ab") as handle:
                    handle.write(b'{"type":"gate.approved"}\n')
                    handle.flush()
                    os.fsync(handle.fileno())
                self.decided += 1
                self.show()

        def on_unmount(self) -> None:
            self.stop.set()

    Bare().run()


if __name__ == "__main__":
    main()
