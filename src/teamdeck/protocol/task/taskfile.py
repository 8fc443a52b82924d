"""Reading task.yaml and changing it safely: the one read-modify-write path for tasks.

:func:`transact` is how every front changes a task. Under the task's lock it cleans up
after a crashed writer (stale temp files, F1; a torn last line of events.jsonl, F2),
re-reads task.yaml, applies events a crashed writer left unapplied (F12), lets the caller decide
which events to add, appends them durably (fsync) *before* replacing task.yaml (R11),
and guards the replace with a compare-and-swap against writers that ignore the lock (C6).

The same machinery keeps every event-sourced document: a :class:`DocumentKind` names
the document's model, its file, its log and its :class:`~teamdeck.protocol.task.replay.DocumentFold`
(tasks are :data:`TASK`; coordinator plans are another kind, see protocol/plans/).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, cast

from pydantic import BaseModel, ValidationError

from teamdeck.errors import Conflict, InvalidFile, NotFound, Refused, TeamdeckError, WriteFailed
from teamdeck.model.event import Event
from teamdeck.model.task import Task
from teamdeck.protocol.task.listing import task_ids as task_ids  # re-exported: its old home
from teamdeck.protocol.task.replay import TASKS, DocumentFold
from teamdeck.store.atomic import atomic_replace, remove_stale_temps
from teamdeck.store.files import ensure_dir
from teamdeck.store.jsonl import append_record, read_records, records_after, repair_torn_tail
from teamdeck.store.loaders import read_capped
from teamdeck.store.locks import locked
from teamdeck.store.workspace import Workspace
from teamdeck.store.yaml_text import dump_yaml, parse_yaml

log = logging.getLogger(__name__)

Decide = Callable[[Any], list[Event]]
"""Given the current task (or document), the events to add (empty: nothing to do). May raise Refused."""


@dataclass(frozen=True)
class DocumentKind:
    """A kind of document kept as a YAML file folded from a JSONL event log.

    Attributes:
        ledger: its creation event and reducers.
        model: the pydantic model of the file.
        file: the document's path for an id.
        log: its events.jsonl for an id.
    """

    ledger: DocumentFold
    model: type[BaseModel]
    file: Callable[[Workspace, str], Path]
    log: Callable[[Workspace, str], Path]

    @property
    def noun(self) -> str:
        """How messages name it ("task", "plan")."""
        return self.ledger.name


TASK = DocumentKind(TASKS, Task, Workspace.task_file, Workspace.events_file)
"""Tasks: ``tasks/<id>/task.yaml`` and ``tasks/<id>/events.jsonl``."""

_CAS_ATTEMPTS = 3


@dataclass(frozen=True)
class TaskChange:
    """What :func:`transact` did: the task after the change, the events it added, and
    notices for the person about crash debris it cleaned up first (also logged).

    ``owed``: what a change made through it (a gate decided) still owes, one line per
    effect that failed: not empty, the change is recorded but not done, and every front
    says so (the CLI exits 3, F24)."""

    task: Task
    events: list[Event]
    notices: tuple[str, ...] = ()
    owed: tuple[str, ...] = ()


def validation_message(err: ValidationError, limit: int = 3) -> str:
    """Pydantic errors as ``gates[0].id: must be a string, got integer 10 (+2 more)``."""
    parts = []
    for problem in err.errors()[:limit]:
        where = _json_path(problem["loc"])
        text = problem["msg"]
        if problem["type"] in ("string_type", "int_type", "list_type", "dict_type", "bool_type"):
            expected = problem["type"].split("_")[0]
            expected = {
                "str": "a string",
                "string": "a string",
                "int": "an integer",
                "list": "a list",
                "dict": "a mapping",
                "bool": "true or false",
            }.get(expected, expected)
            got = problem.get("input")
            text = f"must be {expected}, got {type(got).__name__} {got!r}"[:120]
        parts.append(f"{where}: {text}" if where else text)
    more = len(err.errors()) - limit
    return "; ".join(parts) + (f" (+{more} more)" if more > 0 else "")


def _json_path(location: tuple[Any, ...]) -> str:
    text = ""
    for part in location:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text


def parse_task_dict(data: bytes, path: Path, kind: DocumentKind = TASK) -> dict[str, Any]:
    """task.yaml bytes as a dict (unknown fields and key order kept), checked to be a task
    (or a document of ``kind``).

    Raises:
        InvalidFile: unparseable YAML or a shape that is not a task.
    """
    raw = parse_yaml(data, path)
    if not isinstance(raw, dict):
        raise InvalidFile(path, "", f"expected a mapping at the top, got {type(raw).__name__}")
    try:
        kind.model.model_validate(raw)
    except ValidationError as err:
        raise InvalidFile(path, "", validation_message(err)) from None
    return raw


def read_events(ws: Workspace, task_id: str, kind: DocumentKind = TASK) -> list[Event]:
    """Every valid event of the task (or document), in file order, each id once (bad lines skipped)."""
    records, _problems = read_records(kind.log(ws, task_id))
    return _valid_events(records)


def _valid_events(records: list[dict[str, Any]]) -> list[Event]:
    events = []
    for record in records:
        try:
            events.append(Event.model_validate(record))
        except ValidationError:
            continue
    return events


def _unapplied_events(ws: Workspace, task_id: str, kind: DocumentKind, task: dict[str, Any] | None) -> list[Event]:
    """The events the document has not applied yet, reading only the log's tail when
    the document names its last applied event (the usual case)."""
    log_path = kind.log(ws, task_id)
    last = task.get("lastEventId") if task is not None else None
    if isinstance(last, str):
        after = records_after(log_path, last)
        # No record has that id: the whole log would give nothing either (see _pending).
        return _valid_events(after) if after is not None else []
    events = read_events(ws, task_id, kind) if log_path.exists() else []
    return _pending(events, task)


def _pending(events: list[Event], task: dict[str, Any] | None) -> list[Event]:
    """The events task.yaml has not applied yet, given the whole log."""
    if task is None:
        return events
    last = task.get("lastEventId")
    if last is None:
        updated = str(task.get("updatedAt", ""))
        return [event for event in events if event.ts > updated]
    for index in range(len(events) - 1, -1, -1):
        if events[index].id == last:
            return events[index + 1 :]
    return []


def load_task(ws: Workspace, task_id: str) -> Task:
    """task.yaml with any unapplied events folded in (read-only: nothing is written).

    Raises:
        NotFound: no such task.
        InvalidFile: task.yaml or the folded result is not a valid task.
    """
    return cast(Task, load_document(ws, task_id, TASK))  # TASK documents validate as Task


def load_document(ws: Workspace, doc_id: str, kind: DocumentKind) -> BaseModel:
    """A document of ``kind`` with any unapplied events folded in (nothing is written).

    Raises:
        NotFound: no such document.
        InvalidFile: its file or the folded result is not valid.
    """
    loaded = _load_raw(ws, doc_id, kind)
    if loaded.task is None:
        raise _missing(ws, doc_id, kind, loaded.data)
    document: BaseModel = _validated(ws, doc_id, loaded.task, kind)
    return document


def _missing(ws: Workspace, doc_id: str, kind: DocumentKind, data: bytes | None, action: str = "") -> TeamdeckError:
    """Why there is no document ``doc_id`` to read: its file is empty with nothing in its
    log to rebuild it from (``data``: its bytes), or there is none (``action``: what
    could not be done, for the message)."""
    if data is not None:
        return InvalidFile(
            ws.rel(kind.file(ws, doc_id)), "", f"empty, and its log has no {kind.ledger.created} to rebuild it from"
        )
    found = f"No {kind.noun} '{doc_id}' in {ws.root} (looked for {ws.rel(kind.file(ws, doc_id))})"
    return NotFound(f"Could not {action}: {found}" if action else found)


@dataclass(frozen=True)
class _Loaded:
    task: dict[str, Any] | None
    """The task as parsed (unknown fields and key order kept), pending events applied."""
    data: bytes | None
    """task.yaml's bytes as read (None: no file)."""
    reconciled: bool
    """Whether events task.yaml had not applied yet were folded in."""


def _load_raw(ws: Workspace, task_id: str, kind: DocumentKind) -> _Loaded:
    path = kind.file(ws, task_id)
    try:
        data: bytes | None = read_capped(path)
    except FileNotFoundError:
        data = None
    except InvalidFile as err:  # too big or unreadable: name it as every message does
        raise InvalidFile(ws.rel(path), err.where, err.why) from None
    raw: dict[str, Any] | None = None
    if data is not None and data.strip():  # an empty file is rebuilt from the log (B16)
        raw = parse_task_dict(data, ws.rel(path), kind)
    pending = _unapplied_events(ws, task_id, kind, raw)
    if raw is None:
        starts = [index for index, event in enumerate(pending) if event.type == kind.ledger.created]
        if not starts:
            return _Loaded(None, data, False)
        pending = pending[starts[-1] :]
    return _Loaded(kind.ledger.replay(pending, raw), data, bool(pending))


def _validated(ws: Workspace, task_id: str, task: dict[str, Any], kind: DocumentKind = TASK) -> Any:
    try:
        return kind.model.model_validate(task)
    except ValidationError as err:
        raise InvalidFile(ws.rel(kind.file(ws, task_id)), "", validation_message(err)) from None


def dump_task(task: BaseModel | dict[str, Any]) -> bytes:
    """task.yaml bytes: block YAML, keys in model order, unknown fields kept."""
    data = task.model_dump(mode="json") if isinstance(task, BaseModel) else task
    return dump_yaml(data)


def transact(
    ws: Workspace, task_id: str, decide: Decide, *, action: str, create: bool = False, kind: DocumentKind = TASK
) -> TaskChange:
    """Change a task (or another document kind) through events, atomically and durably.

    Args:
        ws: the workspace.
        task_id: the task (must exist unless ``create``).
        decide: returns the events to append given the current task; may raise.
        action: what is being done, for messages ("approve gate g1").
        create: the task must not exist yet; ``decide`` receives ``None``.
        kind: the document kind (default: tasks).

    Returns:
        The task after the change and the events appended (none: nothing changed,
        and nothing was written).

    Raises:
        ReadOnly, NotFound, Refused, Conflict, Busy, InvalidFile, WriteFailed.
    """
    ws.require_writable(action)
    path = kind.file(ws, task_id)
    if create:
        ensure_dir(path.parent)
    elif not (path.exists() or kind.log(ws, task_id).exists()):
        # Checked before locking so no lock file is left in a directory that is not a
        # task of ours (e.g. a Claude Code task list under tasks/<team>/).
        raise _missing(ws, task_id, kind, None, action)
    with locked(path, what=str(ws.rel(path))):
        notices = _clean_up_after_crash(ws, path, kind.log(ws, task_id))
        loaded = _load_raw(ws, task_id, kind)
        if create and loaded.task is not None:
            raise Refused(f"Could not {action}: {kind.noun} '{task_id}' already exists ({ws.rel(path)})")
        if not create and loaded.task is None:
            raise _missing(ws, task_id, kind, loaded.data, action)
        current = _validated(ws, task_id, loaded.task, kind) if loaded.task is not None else None
        events = decide(current)
        if not events and not loaded.reconciled:
            assert current is not None, "creating a document needs an event"
            return TaskChange(current, [], notices)
        for number, event in enumerate(events, start=1):
            # One fsync after the last line makes every line of this change durable
            # (fsync flushes the whole file) before task.yaml is replaced.
            append_record(kind.log(ws, task_id), event.model_dump(mode="json"), durable=number == len(events))
        for _attempt in range(_CAS_ATTEMPTS):
            after = kind.ledger.replay(events, loaded.task)
            assert after is not None, "the document exists (created now or before)"
            new_task = _validated(ws, task_id, after, kind)
            if _unchanged_on_disk(path, loaded.data):
                try:
                    atomic_replace(path, dump_task(after), crash_prefix=kind.noun)
                except WriteFailed as err:  # the events are in the log: say so (R11, F5)
                    raise WriteFailed(
                        f"Could not {action}: {err}; the change is recorded in {kind.log(ws, task_id).name} and will be applied on the next command"
                    ) from err
                return TaskChange(new_task, events, notices)
            loaded = _load_raw(ws, task_id, kind)
            events = []  # ours are in the log now: reconciling the fresh file applied them
        raise Conflict(
            f"Could not {action}: {path.name} changed on disk while applying; the event is recorded and will be applied on the next command. Please retry."
        )


def rewrite_stale(ws: Workspace, doc_ids: Iterable[str], kind: DocumentKind = TASK) -> list[str]:
    """Rewrite each document file that has not applied every event of its log (F26).

    A writer killed after appending its events and before replacing the file (R11)
    leaves the file behind its log: readers fold the missing events in, but the file
    itself stayed stale until the next change to that document. This brings it up to
    date through :func:`transact` (under the lock, nothing appended), as
    ``teamdeck doctor --repair`` and every writing command's start do, for the ids
    protocol/task/listing.py's ``maybe_behind`` gives. A document replayed and found
    up to date is left alone; one that cannot be read is left to ``validate``.

    Returns:
        One line per file rewritten, or per file that could not be.
    """
    lines = []
    for doc_id in doc_ids:
        path = kind.file(ws, doc_id)
        try:
            if not _load_raw(ws, doc_id, kind).reconciled:
                continue
            change = transact(ws, doc_id, lambda _current: [], action=f"bring {ws.rel(path)} up to date", kind=kind)
        except InvalidFile:
            continue  # not a valid document: validate and doctor name it
        except TeamdeckError as err:
            lines.append(str(err))
            continue
        lines += change.notices
        lines.append(f"{ws.rel(path)}: rewritten with the events of {kind.log(ws, doc_id).name} a crash left unapplied")
    return lines


def _clean_up_after_crash(ws: Workspace, path: Path, log_path: Path) -> tuple[str, ...]:
    """Remove a killed writer's temp files of ``path`` (F1) and move a torn last line of
    ``log_path`` aside (F2) before anything is appended after it. Call under the
    document's lock: it is the writer lock of both files.

    Returns:
        One notice per thing cleaned up (each also logged as a warning).

    Raises:
        WriteFailed: the torn line could not be saved; the log was left untouched (F16).
    """
    notices = [
        f"removed a temp file left by a crashed writer: {ws.rel(stale)}"
        for stale in remove_stale_temps(path.parent, path.name)
    ]
    banner = repair_torn_tail(log_path, ws.clock().strftime("%Y%m%dT%H%M%SZ"))
    if banner:
        notices.append(f"{ws.rel(log_path.parent)}/{banner}")
    for notice in notices:
        log.warning("%s", notice)
    return tuple(notices)


def _unchanged_on_disk(path: Path, data: bytes | None) -> bool:
    """Compare-and-swap guard: task.yaml still holds the bytes we read (C6)."""
    try:
        return path.read_bytes() == data
    except FileNotFoundError:
        return data is None
