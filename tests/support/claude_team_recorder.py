"""Every version of every file Claude Code writes for an agent team, as it writes them.

Claude Code 2.1.332 drains inboxes (it removes a message once delivered, usually within
a second) and deletes ``teams/<team>/`` when the session ends, so a copy of the
directory afterwards holds nothing. :class:`Recorder` polls ``<claude dir>/teams`` and
``<claude dir>/tasks`` every few milliseconds from a thread and appends one JSON line
per change to a history file:

    {"at_ms": 6373, "path": "teams/session-1a2b3c4d/inboxes/team-lead.json", "text": "[...]"}

``at_ms`` counts from the recorder's start, ``path`` is relative to the Claude dir,
``text`` is the file's content (UTF-8), or null when the file was removed. A change
that comes and goes between two polls is missed (Claude Code's temp files usually are
not: their names, ``<name>.json.tmp.<8 hex>``, show in the histories).

:func:`load_history` reads such a file back; :func:`replay` writes its versions into a
directory, one at a time, so a test can show teamdeck every state the client left on
disk, in order (tests/fixtures/claude-code/2.1.332/ holds captured histories).
"""

from __future__ import annotations

import json
import os
import re
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path

from teamdeck.clock import fixed_clock, parse_iso
from teamdeck.store.workspace import Workspace
from teamdeck.view.refresh.build import build_snapshot, refresh
from teamdeck.view.snapshot.workspace import WorkspaceSnapshot

POLL_S = 0.005
WATCHED = ("teams", "tasks")


@dataclass(frozen=True)
class Version:
    """One version of one file: when (ms after the start), where, and its text (None: removed)."""

    at_ms: int
    path: str
    text: str | None


class Recorder:
    """A thread that records every version of the files under ``claude_dir``'s
    ``teams/`` and ``tasks/`` into ``out`` (JSON lines); a context manager."""

    def __init__(self, claude_dir: Path, out: Path, *, poll_s: float = POLL_S) -> None:
        self.root = claude_dir
        self.out = out
        self.poll_s = poll_s
        self._seen: dict[str, bytes] = {}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="claude-team-recorder", daemon=True)
        self._start = time.monotonic()

    def __enter__(self) -> Recorder:
        self._start = time.monotonic()
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()

    def _scan(self) -> dict[str, bytes]:
        found = {}
        for top in WATCHED:
            for folder, _dirs, names in os.walk(self.root / top):
                for name in names:
                    path = Path(folder) / name
                    try:
                        found[str(path.relative_to(self.root))] = path.read_bytes()
                    except OSError:  # removed (or replaced) between the listing and the read
                        continue
        return found

    def _run(self) -> None:
        with self.out.open("a", encoding="utf-8") as history:
            while True:
                stopping = self._stop.is_set()  # one last scan after the stop is asked
                now = self._scan()
                at_ms = round((time.monotonic() - self._start) * 1000)
                lines = [
                    Version(at_ms, path, data.decode("utf-8", "replace"))
                    for path, data in now.items()
                    if self._seen.get(path) != data
                ]
                lines += [Version(at_ms, path, None) for path in self._seen.keys() - now.keys()]
                for version in lines:
                    history.write(json.dumps(version.__dict__, ensure_ascii=False) + "\n")
                history.flush()
                self._seen = now
                if stopping:
                    return
                time.sleep(self.poll_s)


def load_history(path: Path) -> list[Version]:
    """The versions a :class:`Recorder` wrote, in order."""
    with path.open(encoding="utf-8") as lines:
        return [Version(**json.loads(line)) for line in lines if line.strip()]


def replay(versions: list[Version], root: Path) -> Iterator[tuple[Version, Path]]:
    """Write each version under ``root`` in turn (a removed file is removed), yielding
    it and the file's path after it is on disk."""
    for version in versions:
        target = root / version.path
        if version.text is None:
            target.unlink(missing_ok=True)
        else:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(version.text, encoding="utf-8")
        yield version, target


def until_first(versions: list[Version], path_part: str) -> list[Version]:
    """The versions before the first whose path contains ``path_part`` (all when none does)."""
    cut = next((n for n, version in enumerate(versions) if path_part in version.path), len(versions))
    return versions[:cut]


def until_cleanup(versions: list[Version]) -> list[Version]:
    """The versions before the client's end-of-session cleanup (it renames the team
    directory to ``<team>.deleted-<uuid>``, or removes its config.json, then the rest)."""
    cut = next(
        (
            n
            for n, version in enumerate(versions)
            if ".deleted-" in version.path or (version.text is None and version.path.endswith("/config.json"))
        ),
        len(versions),
    )
    return versions[:cut]


def live_replay(versions: list[Version], root: Path, *, record: bool = True) -> tuple[Workspace, WorkspaceSnapshot]:
    """Write ``versions`` into ``root`` one by one, refreshing a live snapshot (recording
    what it reads, as ``teamdeck tui`` does) after each; the workspace (its clock 10 s
    after the last message of the run) and the last snapshot."""
    root.mkdir(parents=True, exist_ok=True)
    stamps = re.findall(r'"timestamp": "([^"]+)"', "".join(version.text or "" for version in versions))
    now = max(parse_iso(stamp) for stamp in stamps) + timedelta(seconds=10)
    ws = Workspace.at(root, clock=fixed_clock(now), actor="human:tester")
    snapshot = build_snapshot(ws, record=record)
    for _version, path in replay(versions, ws.root):
        snapshot = refresh(snapshot, [path])
    return ws, snapshot


def team_of(ws: Workspace) -> str:
    (team,) = [path.name for path in (ws.root / "teams").iterdir() if path.is_dir()]
    return team
