"""What was read of one Claude Code team, kept between refreshes as a :class:`TeamFiles`:
config.json, every inbox, the MCP heartbeats and the team's handshake ledger.

A change to one inbox re-reads that inbox alone (taking over its unchanged entries),
a change to config.json re-reads it alone; then :func:`with_ledger` builds the ledger
(protocol/team/ledger/) again from the ledger state the files keep, which folds only the
inbox that changed and the log records appended since - a member's status depends on
what it sent to others as much as on what it received. What the roster makes of the
files is team_roster.py; the decisions the team waits for, team_decisions.py.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from datetime import timedelta
from pathlib import Path

from teamdeck.errors import NotFound, TeamdeckError
from teamdeck.formats.inboxes import Inbox, UnreadableInbox
from teamdeck.formats.registry import team_format
from teamdeck.model.connection import Connection
from teamdeck.model.team import TeamConfig
from teamdeck.protocol.team.archive import archived_roster, keep_roster
from teamdeck.protocol.team.inboxes import TeamInboxes, read_inboxes
from teamdeck.protocol.team.ledger.build import build_ledger
from teamdeck.protocol.team.ledger.fold import LedgerFold
from teamdeck.protocol.team.ledger.results import DEFAULT_SHUTDOWN_TIMEOUT, Ledger
from teamdeck.protocol.team.observed import Observed
from teamdeck.store.connections import read_connections
from teamdeck.store.paths import InvalidId
from teamdeck.store.workspace import Workspace
from teamdeck.view.readers.frames import frame_problems
from teamdeck.view.readers.inbox_fold import InboxRows
from teamdeck.view.snapshot.workspace import Problem


@dataclass(frozen=True)
class TeamFiles:
    """What was read of one team.

    Attributes:
        name: the team (its directory name).
        config: config.json, or None when it could not be read (``problem`` says why).
        problem: why config.json could not be read (the previous roster is kept).
        inboxes: every inbox as protocol/team/inboxes.py reads them (readable ones, the
            unreadable ones with their problem, ignored file names).
        ledger: the team's handshake ledger (protocol/team/ledger/build.py), or None when
            config.json cannot be read.
        fold: the team's ledger state (protocol/team/ledger/fold.py), shared by every later
            version of these files: the next ledger folds only the inboxes read
            since and the log records appended since.
        rows: recipient → the inbox it was made from, its rows (:func:`fold_inbox`)
            and when each name last sent or received in it; shared like ``fold``,
            so an inbox is turned into rows once per read.
        observed: the team's record of every inbox message seen (protocol/team/observed.py),
            shared like ``fold``: inboxes are read through it, so what Claude Code
            drained stays.
        connections: member name → the heartbeat of an MCP server acting as it
            (``connections/<member>.json``), and the heartbeat files that could not be read.
        shutdown_timeout: how long a shutdown request waits before the ledger calls
            it overdue (the workspace setting).
        ended: the team's directory is gone (Claude Code removes a session's team
            when the session ends): ``config`` is its archived roster and the inboxes
            are what was recorded of them (protocol/team/archive.py).
    """

    name: str
    config: TeamConfig | None
    problem: Problem | None = None
    inboxes: TeamInboxes = field(default_factory=TeamInboxes)
    ledger: Ledger | None = None
    fold: LedgerFold | None = field(default=None, compare=False, repr=False)
    rows: dict[str, InboxRows] = field(default_factory=dict, compare=False, repr=False)
    observed: Observed | None = field(default=None, compare=False, repr=False)
    connections: dict[str, Connection] = field(default_factory=dict)
    connection_problems: tuple[str, ...] = ()
    shutdown_timeout: timedelta = DEFAULT_SHUTDOWN_TIMEOUT
    ended: bool = False

    def inbox_of(self, name: str) -> Inbox | str | None:
        """A member's inbox, or the line saying why it is unreadable (any case)."""
        for recipient, inbox in self.inboxes.inboxes.items():
            if recipient.lower() == name.lower():
                return inbox
        for recipient, problem in self.inboxes.unreadable.items():
            if recipient.lower() == name.lower():
                return problem
        return None


def read_team_files(
    ws: Workspace,
    team: str,
    previous: TeamFiles | None = None,
    shutdown_timeout: timedelta | None = None,
    *,
    record: bool = False,
) -> TeamFiles | None:
    """Read a team's config.json, every inbox and its ledger.

    Args:
        ws: the workspace.
        team: a valid team name.
        previous: what was read before; a config.json that is now unreadable keeps the
            previous roster (and carries the problem).
        shutdown_timeout: the shutdown timeout (default: the previous one's, else 2 min).
        record: record every inbox message read (the live view; protocol/team/observed.py).

    Returns:
        The files, or None when the team is gone.
    """
    if not team_format(ws, team).has_team(ws, team):  # ended (or being removed: no archive, so gone)
        return _ended(ws, team, previous, shutdown_timeout)
    if previous is not None and previous.ended:
        previous = None  # the team is back (a session resumed): read it afresh
    fold = previous.fold if previous is not None and previous.fold is not None else LedgerFold(ws, team)
    rows = previous.rows if previous is not None else {}
    observed = previous.observed if previous is not None and previous.observed is not None else None
    observed = observed or Observed(ws, team, record=record)
    if shutdown_timeout is None:
        shutdown_timeout = previous.shutdown_timeout if previous is not None else DEFAULT_SHUTDOWN_TIMEOUT
    inboxes = read_inboxes(ws, team, observed)
    files = TeamFiles(
        team, None, None, inboxes, fold=fold, rows=rows, observed=observed, shutdown_timeout=shutdown_timeout
    )
    files = reread_connections(ws, with_ledger(ws, files))
    if files.ledger is not None:
        _archive(ws, files)
        return files
    config, problem = _read_config(ws, team, previous)  # the ledger could not read it: say why
    if config is None and problem is None:
        return None
    return replace(files, config=config, problem=problem)


def reread_config(ws: Workspace, files: TeamFiles) -> TeamFiles | None:
    """``files`` with config.json read again (None when the team is gone); call
    :func:`with_ledger` once every changed part is read."""
    config, problem = _read_config(ws, files.name, files)
    if config is None and problem is None:
        return _ended(ws, files.name, files, files.shutdown_timeout)
    files = replace(files, config=config, problem=problem)
    _archive(ws, files)
    return files


def reread_inbox(ws: Workspace, files: TeamFiles, path: Path) -> TeamFiles:
    """``files`` with the inbox at ``path`` read again (dropped when it is gone); call
    :func:`with_ledger` once every changed part is read."""
    if files.ended:  # its inboxes are what was recorded; the files are gone
        return files
    recipient = team_format(ws, files.name).recipient_of(path)
    inboxes = TeamInboxes(dict(files.inboxes.inboxes), dict(files.inboxes.unreadable), list(files.inboxes.ignored))
    inboxes.inboxes.pop(recipient, None)
    inboxes.unreadable.pop(recipient, None)
    observed = files.observed if files.observed is not None else Observed(ws, files.name)
    try:
        inboxes.inboxes[recipient] = observed.read(path)
    except FileNotFoundError:
        pass
    except UnreadableInbox as err:
        inboxes.unreadable[recipient] = str(err)
    else:
        if not path.exists():  # a missing file reads as an empty inbox: it was removed
            del inboxes.inboxes[recipient]
    inboxes.inboxes = dict(sorted(inboxes.inboxes.items()))
    inboxes.unreadable = dict(sorted(inboxes.unreadable.items()))  # in file order, as a full read has them
    return replace(files, inboxes=inboxes)


def reread_connections(ws: Workspace, files: TeamFiles) -> TeamFiles:
    """``files`` with the team's MCP heartbeats read again."""
    connections, problems = read_connections(ws, files.name)
    return replace(files, connections=connections, connection_problems=tuple(problems))


def with_ledger(ws: Workspace, files: TeamFiles) -> TeamFiles:
    """``files`` with the team's ledger built again from the inboxes already read
    (None when config.json is unreadable; ``config`` and ``problem`` then stay).

    A config.json read without a problem is used as it is: the watcher reports every
    change of it, and :func:`reread_config` reads it then (reading it again for each
    inbox change was a quarter of the refresh). One that could not be read is tried
    again here."""
    config = files.config if files.problem is None else None
    try:
        ledger = build_ledger(
            ws,
            files.name,
            config=config,
            inboxes=files.inboxes,
            fold=files.fold,
            shutdown_timeout=files.shutdown_timeout,
        )
    except TeamdeckError:
        return replace(files, ledger=None)
    return replace(files, ledger=ledger, config=ledger.config, problem=None)


def _archive(ws: Workspace, files: TeamFiles) -> None:
    """Keep the roster just read as the team's last known one (the live view only:
    the reader that records; protocol/team/archive.py)."""
    if files.config is not None and files.problem is None and files.observed is not None and files.observed.recording:
        keep_roster(ws, files.name, files.config)


def read_ended_team(ws: Workspace, team: str, shutdown_timeout: timedelta | None = None) -> TeamFiles | None:
    """An ended team as the live view shows it (its archived roster, the messages
    recorded of its inboxes, its ledger), for the commands that name one (``inbox``,
    ``doctor``); None when its directory is still there or nothing of it was archived.
    Reads only: a command records nothing."""
    if team_format(ws, team).has_team(ws, team):
        return None
    return _ended(ws, team, None, shutdown_timeout)


def _ended(
    ws: Workspace, team: str, previous: TeamFiles | None, shutdown_timeout: timedelta | None
) -> TeamFiles | None:
    """The team whose directory is gone, from its archived roster and the record of
    its inboxes (None without an archive: the team is gone for teamdeck too)."""
    if previous is not None and previous.ended:
        return previous
    config = archived_roster(ws, team)
    if config is None:
        return None
    observed = Observed(ws, team)
    inboxes = TeamInboxes()
    for recipient in observed.recipients():
        try:
            inboxes.inboxes[recipient] = observed.read(team_format(ws, team).inbox(ws, team, recipient))
        except (InvalidId, UnreadableInbox):
            continue
    timeout = shutdown_timeout or (previous.shutdown_timeout if previous is not None else DEFAULT_SHUTDOWN_TIMEOUT)
    files = TeamFiles(
        team, config, None, inboxes, fold=LedgerFold(ws, team), observed=observed, shutdown_timeout=timeout, ended=True
    )
    return with_ledger(ws, files)


def _read_config(ws: Workspace, team: str, previous: TeamFiles | None) -> tuple[TeamConfig | None, Problem | None]:
    files_format = team_format(ws, team)
    try:
        return files_format.read_roster(ws, team), None
    except NotFound:
        return None, None
    except TeamdeckError as err:
        kept = previous.config if previous is not None else None
        return kept, Problem.of(err, str(ws.rel(files_format.roster_file(ws, team))))


def inbox_problems(ws: Workspace, files: TeamFiles) -> list[Problem]:
    """The team's unreadable inboxes, ignored inbox files and unreadable MCP heartbeats,
    as problems."""
    problems: list[Problem] = []
    if files.inboxes.unreadable or files.inboxes.ignored:  # rare: the format is looked up only then
        files_format = team_format(ws, files.name)
        problems += [
            Problem(str(ws.rel(files_format.inbox(ws, files.name, recipient))), "", why)
            for recipient, why in files.inboxes.unreadable.items()
        ]
        inboxes_dir = ws.rel(files_format.inboxes_dir(ws, files.name))
        problems += [Problem(str(inboxes_dir), "", line) for line in files.inboxes.ignored]
    problems += frame_problems(ws, files.name, files.ledger)
    return problems + [
        Problem(str(ws.rel(ws.connections_dir(files.name))), "", line) for line in files.connection_problems
    ]
