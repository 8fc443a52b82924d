"""The files of ``teamdeck run`` under ``runs/`` (docs/protocol.md, "Running the agents"):

- ``runs/<team>/<member>/<run_id>/run.yaml``: a run's folded state, replaced atomically;
- ``.../events.jsonl``: its append-only events (started, stop-requested, ended...);
- ``.../output.log`` and ``stderr.log``: what the process wrote (the runner opens them);
- ``runs/requests.jsonl``: wakes and stops asked by a person (CLI, TUI) for the runner;
- ``runs/decisions.jsonl``: decisions the runner asks (a run that failed every retry, a
  budget reached) and their answers.

Every path is built by :class:`~teamdeck.store.workspace.Workspace` from checked names and
passes :func:`~teamdeck.store.paths.open_beneath` (a link out of the workspace is refused, S10);
each log line is appended whole under the log's lock, after a torn tail is set aside.
"""

from __future__ import annotations

import fcntl
import json
import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from teamdeck.errors import InvalidFile
from teamdeck.model.run import RunRecord
from teamdeck.store.atomic import atomic_replace
from teamdeck.store.files import ensure_dir, list_entries, read_optional
from teamdeck.store.jsonl import append_record, read_records, repair_torn_tail
from teamdeck.store.loaders import model_problem
from teamdeck.store.locks import locked
from teamdeck.store.paths import ID_RE, MEMBER_RE, open_beneath
from teamdeck.store.workspace import Workspace
from teamdeck.store.yaml_text import dump_yaml, parse_yaml

RUN_FILE = "run.yaml"
EVENTS_FILE = "events.jsonl"
OUTPUT_FILE = "output.log"
STDERR_FILE = "stderr.log"
RUN_ID_RE = re.compile(r"^r-[0-9a-z]{26}$")


def requests_log(ws: Workspace) -> Path:
    """``runs/requests.jsonl``: a person's wakes and stops, for the runner."""
    return ws.runs_dir / "requests.jsonl"


def read_run(ws: Workspace, run_dir: Path) -> RunRecord:
    """The run.yaml of ``run_dir``.

    Raises:
        FileNotFoundError: no run.yaml (a run being created).
        InvalidFile: not a run record.
    """
    path = run_dir / RUN_FILE
    data = read_optional(path, shown=ws.rel(path))
    if data is None:
        raise FileNotFoundError(path)
    raw = parse_yaml(data, ws.rel(path))
    try:
        return RunRecord.model_validate(raw)
    except ValidationError as err:
        raise InvalidFile(ws.rel(path), "", model_problem(err)) from None


def write_run(ws: Workspace, record: RunRecord) -> Path:
    """Replace the run's run.yaml with ``record`` (its directory made if missing)."""
    run_dir = ws.run_dir(record.team, record.member, record.id)
    ensure_dir(run_dir)
    data = dump_yaml(record.model_dump(mode="json", by_alias=True, exclude_none=True))
    atomic_replace(run_dir / RUN_FILE, data, crash_prefix="run")
    return run_dir


def append_log(ws: Workspace, path: Path, record: dict[str, Any]) -> None:
    """Append ``record`` as one line of the log ``path`` under its lock (a torn last
    line, left by a writer that was killed, is moved aside first)."""
    ensure_dir(path.parent)
    with locked(path, what=str(ws.rel(path))):
        repair_torn_tail(path, record.get("id", "torn"))
        append_record(path, record)


def append_run_event(ws: Workspace, record: RunRecord, event: dict[str, Any]) -> None:
    """Append ``event`` to the run's events.jsonl."""
    append_log(ws, ws.run_dir(record.team, record.member, record.id) / EVENTS_FILE, event)


def read_log(path: Path) -> list[dict[str, Any]]:
    """Every complete record of a runs log (bad lines skipped: they are reported by
    the readers that show them)."""
    return read_records(path)[0]


def member_run_dirs(ws: Workspace, team: str, member: str) -> list[Path]:
    """The member's run directories, oldest first (run ids sort by start)."""
    return [e.path for e in list_entries(ws.member_runs_dir(team, member)) if e.is_dir and RUN_ID_RE.fullmatch(e.name)]


def run_members(ws: Workspace) -> Iterator[tuple[str, str]]:
    """Every ``(team, member)`` with a directory under ``runs/``."""
    for team in list_entries(ws.runs_dir):
        if not team.is_dir or not ID_RE.fullmatch(team.name):
            continue
        for member in list_entries(team.path):
            if member.is_dir and MEMBER_RE.fullmatch(member.name):
                yield team.name, member.name


def find_run_dir(ws: Workspace, run_id: str) -> Path | None:
    """The directory of the run ``run_id``, wherever it is, or None."""
    if not RUN_ID_RE.fullmatch(run_id):
        return None
    for team, member in run_members(ws):
        candidate = ws.run_dir(team, member, run_id)
        if (candidate / RUN_FILE).is_file():
            return candidate
    return None


def tail_text(path: Path, limit: int = 4000) -> str:
    """The last ``limit`` bytes of a log as text ("" when it does not exist)."""
    try:
        with os.fdopen(open_beneath(path, os.O_RDONLY), "rb") as handle:
            handle.seek(max(0, path.stat().st_size - limit))
            return handle.read().decode(errors="replace")
    except OSError:
        return ""


def holder_of(path: Path) -> dict[str, Any] | None:
    """Who holds the runner lock ``path`` (runs/runner.lock) now, or None when no runner
    runs (nobody holds it): probed with a non-blocking ``flock``."""
    try:
        fd = open_beneath(path, os.O_RDWR | os.O_NOFOLLOW | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            return read_holder(fd)
        fcntl.flock(fd, fcntl.LOCK_UN)
        return None
    finally:
        os.close(fd)


def _read(fd: int) -> dict[str, Any]:
    try:
        raw = json.loads(os.pread(fd, 4096, 0) or b"{}")
    except (OSError, ValueError):
        return {}
    return raw if isinstance(raw, dict) else {}


def read_holder(fd: int) -> dict[str, Any]:
    """The holder a runner wrote into its lock file (``{}`` when unreadable)."""
    try:
        raw = json.loads(os.pread(fd, 4096, 0) or b"{}")
    except (OSError, ValueError):
        return {}
    return raw if isinstance(raw, dict) else {}
