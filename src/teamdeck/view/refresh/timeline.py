"""The part of the events timeline that no log holds: Claude Code's own messages and
task list.

teamdeck logs what it sends (``messages.jsonl``), but Claude Code's agents write
straight into each other's inboxes and keep their tasks in ``tasks/<team>/``; on a
real ``~/.claude`` the Events panel was empty. Here every inbox message that the
team's log does not already hold becomes a row (at its ``timestamp``, ``from → to``,
its type), and every task of a team's task list (but the internal trackers the lists
hide) a row with its status now, at the newest message that assigned it or reported
it completed (task files carry no time of their own).

Rows are made once per read of an inbox (:meth:`ReadState.derive`), so a change to
one inbox turns only that inbox into rows again, and each team's rows are sorted once
per change of that team. The merged tail is kept too: a refresh after an inbox change
only inserts the rows it added (usually at the end) into the last tail, where merging
every team's rows again cost 90 % of a refresh at 10x (~15k rows sorted and merged).
"""

from __future__ import annotations

import bisect
import heapq
from typing import cast

from teamdeck.formats.inboxes import Inbox
from teamdeck.formats.registry import team_format
from teamdeck.model.team import ClaudeTask, IdleNotification, TaskAssignment
from teamdeck.store.loaders import dumps_json
from teamdeck.view.readers.inbox_fold import describe, idle_detail
from teamdeck.view.readers.team_files import TeamFiles
from teamdeck.view.refresh.log_merge import MAX_EVENTS, moment, order_of
from teamdeck.view.refresh.read_state import ReadState
from teamdeck.view.snapshot.events import DETAIL_CHARS, EventRow
from teamdeck.view.snapshot.workspace import same_items


def with_team_rows(state: ReadState, rows: tuple[EventRow, ...]) -> tuple[EventRow, ...]:
    """The newest :data:`MAX_EVENTS` of ``rows`` (the logs' tail, in order) and every
    team's inbox and task rows, in order."""
    teams = tuple(_team_rows(state, name) for name in sorted(state.teams))
    inputs = (rows, *teams)
    kept = state.derived.get("timeline")
    if kept is not None:
        old_inputs, old_tail = kept
        if same_items(inputs, old_inputs):
            return cast(tuple[EventRow, ...], old_tail)
        added = _added(old_inputs, inputs)
        tail = None if added is None else _inserted(cast(tuple[EventRow, ...], old_tail), added)
    else:
        tail = None
    if tail is None:
        merged = tuple(heapq.merge(rows, *teams, key=order_of))
        tail = merged[-MAX_EVENTS:] if len(merged) > MAX_EVENTS else merged
    state.derived["timeline"] = (inputs, tail)
    return tail


def _added(old: tuple[object, ...], new: tuple[tuple[EventRow, ...], ...]) -> list[EventRow] | None:
    """The rows ``new`` (the logs' tail, then each team's rows) holds beyond ``old``,
    when that is all that changed: the logs' tail only grew at its end (an event
    appended: a decision) and every old row of a team is still there as it was (a
    message added). None when anything else changed (a row went, a task's status
    changed, a team came or went): merging every row again then."""
    if len(old) != len(new):
        return None
    was_log, now_log = cast(tuple[EventRow, ...], old[0]), new[0]
    if now_log[: len(was_log)] != was_log:  # the same objects: compared by identity
        return None
    added: list[EventRow] = list(now_log[len(was_log) :])
    for was, now in zip(cast(tuple[tuple[EventRow, ...], ...], old[1:]), new[1:], strict=True):
        if was is now:
            continue
        left = {row.id: row for row in was}
        if len(left) != len(was):
            return None
        for row in now:
            if left.get(row.id) == row:
                del left[row.id]
            else:
                added.append(row)
        if left:
            return None
    return added


def _inserted(tail: tuple[EventRow, ...], added: list[EventRow]) -> tuple[EventRow, ...]:
    """``tail`` (the newest rows of a merge, at most :data:`MAX_EVENTS`) with the rows
    ``added`` to that merge, cut to :data:`MAX_EVENTS` again: rows older than a full
    tail's oldest would be cut at once, so they are left out."""
    full = len(tail) >= MAX_EVENTS
    rows = list(tail)
    for row in sorted(added, key=order_of):
        if full and order_of(row) < order_of(tail[0]):
            continue
        bisect.insort(rows, row, key=order_of)
    return tuple(rows[-MAX_EVENTS:])


def _team_rows(state: ReadState, name: str) -> tuple[EventRow, ...]:
    """The inbox and task rows of team ``name`` in order, made again only when its
    files, its log's sends or its task list changed."""
    files = state.teams[name]
    logged = _logged(files)
    listing = state.task_lists.get(name)
    return state.derive(f"timeline files {name}", (files, logged, listing), lambda: _made_rows(state, name, logged))


def _made_rows(state: ReadState, name: str, logged: frozenset[tuple[str, str, str]]) -> tuple[EventRow, ...]:
    """The rows of :func:`_team_rows`, from the rows of each inbox as last made."""
    files = state.teams[name]
    made = tuple(
        state.derive(f"timeline inbox {name}/{recipient}", (inbox, logged), lambda: inbox_rows(name, inbox, logged))
        for recipient, inbox in files.inboxes.inboxes.items()
    )
    listing = state.task_lists.get(name)
    tasks = (
        tuple(
            (entry, task) for entry, task in listing.read.items() if isinstance(task, ClaudeTask) and not task.internal
        )
        if listing is not None
        else ()
    )

    def combine() -> tuple[EventRow, ...]:
        moments: dict[str, str] = {}
        for _rows, mentions in made:
            for task_id, at in mentions.items():
                if moment(at) > moment(moments.get(task_id, "")):
                    moments[task_id] = at
        made_rows = [row for inbox_made, _mentions in made for row in inbox_made]
        return tuple(sorted(made_rows + task_rows(state, name, tasks, moments), key=order_of))

    return state.derive(f"timeline team {name}", (*made, *(task for _entry, task in tasks)), combine)


def _logged(files: TeamFiles) -> frozenset[tuple[str, str, str]]:
    """``(sender, recipient, timestamp)`` of every send in the team's messages.jsonl,
    lower-cased (their inbox copies are not rows twice)."""
    fold = files.fold
    if fold is None:
        return frozenset()
    return fold.logged_sends()


def inbox_rows(
    team: str, inbox: Inbox, logged: frozenset[tuple[str, str, str]]
) -> tuple[tuple[EventRow, ...], dict[str, str]]:
    """A row per message of ``inbox`` that the team's log does not hold, and for each
    task id a message assigns or reports completed, the newest such message's time."""
    rows = []
    mentions: dict[str, str] = {}
    path = f"teams/{team}/inboxes/{inbox.recipient}.json"
    for entry in inbox.entries:
        message, kind = entry.message, entry.kind
        if message is None or kind is None:
            continue
        task_id = kind.taskId if isinstance(kind, TaskAssignment) else None
        if isinstance(kind, IdleNotification):
            task_id = kind.completedTaskId
        if task_id and moment(message.timestamp) > moment(mentions.get(task_id, "")):
            mentions[task_id] = message.timestamp
        if (message.from_.lower(), inbox.recipient.lower(), message.timestamp) in logged:
            continue
        plain = kind.KIND == "plain"
        if isinstance(kind, IdleNotification):
            line = idle_detail(kind)
        else:
            line = describe(kind, message.summary)[0]
        record = {"inbox": path, "index": entry.index, **message.to_json()}
        if not plain:
            record["text"] = kind.to_payload()
        rows.append(
            EventRow(
                ts=message.timestamp,
                id=f"{path}#{entry.index}",
                source=f"team {team}",
                kind="message" if plain else kind.KIND,
                actor=f"{message.from_} → {inbox.recipient}",
                text=" ".join(line.split())[:300],
                detail=_capped(record),
                path=path,
            )
        )
    return tuple(rows), mentions


def task_rows(
    state: ReadState, team: str, tasks: tuple[tuple[str, ClaudeTask], ...], moments: dict[str, str]
) -> list[EventRow]:
    """A row per task of a team's task list (with the name of its entry in the list)
    that a message assigned or reported completed, with the task's status as the list
    has it now, at the newest such message (task files carry no time; their
    modification time is the time of a copy as often as of a change)."""
    rows = []
    list_format = team_format(state.ws, team)
    for entry, task in tasks:
        changed = moments.get(task.id)
        if changed is None:
            continue
        path = list_format.task_shown(state.ws, team, entry)
        owner = f", owner {task.owner}" if task.owner else ""
        rows.append(
            EventRow(
                ts=changed,
                id=f"~{path}",  # "~": after the message of the same moment
                source=f"team {team}",
                kind=f"task {task.status}",
                actor=task.owner or "",
                text=f"#{task.id} {task.subject}{owner}",
                detail=_capped({"file": path, **task.to_json()}),
                path=path,
            )
        )
    return rows


def _capped(record: dict[str, object]) -> str:
    text = dumps_json(record)
    return text if len(text) <= DETAIL_CHARS else text[:DETAIL_CHARS] + f"… ({len(text):,} characters)"
