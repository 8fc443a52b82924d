"""The fixture format (see the package): ``teams/<team>/crew.json`` and ``teams/<team>/mail/``.

- ``crew.json``: ``{"title", "about", "lead", "people": [{"handle", "kind", "active",
  "role", "hue", ...}], ...}`` - the roster.
- ``mail/<member>.mail``: a JSON array of letters ``{"sender", "at", "seen", "gist"?,
  "hue"?}`` holding either ``"body"`` (plain text) or ``"kind"`` and ``"fields"`` (a
  protocol message, its fields apart from its type).
- ``todo.json``: ``{"items": [{"id", "title", "state", "who", ...}]}`` - the task list.

Every write takes ``crew.lock`` (an ``flock`` on one file for the whole team) and
replaces the file atomically. Fields this module does not map are kept as they are.
"""

from __future__ import annotations

import copy
import fcntl
import json
import os
import shutil
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar

from teamdeck.errors import InvalidFile, NotFound, Refused
from teamdeck.formats.format import TeamFile
from teamdeck.formats.inboxes import Delivery, Inbox, UnreadableInbox, parse_entries
from teamdeck.formats.task_lists import TaskList, TaskListing
from teamdeck.model.team import KINDS, ClaudeTask, TeamConfig, decode_text, encode_text
from teamdeck.store.atomic import atomic_replace
from teamdeck.store.loaders import validate_raw
from teamdeck.store.paths import InvalidId, check_id, check_member
from teamdeck.store.workspace import Workspace

T = TypeVar("T")

ROSTER = "crew.json"
MAIL = "mail"
SUFFIX = ".mail"
LOCK = "crew.lock"
TODO = "todo.json"

MEMBER_FIELDS = {"name": "handle", "agentType": "kind", "isActive": "active", "role": "role", "color": "hue"}
TEAM_FIELDS = {"name": "title", "description": "about"}
TASK_FIELDS = {"id": "id", "subject": "title", "status": "state", "owner": "who"}


def _renamed(raw: Mapping[str, Any], names: Mapping[str, str]) -> dict[str, Any]:
    """``raw`` with its keys renamed by ``names`` (the others kept)."""
    return {names.get(key, key): value for key, value in raw.items()}


def _back(names: Mapping[str, str]) -> dict[str, str]:
    return {theirs: ours for ours, theirs in names.items()}


def roster_in(crew: Mapping[str, Any]) -> dict[str, Any]:
    """``crew.json`` in teamdeck's roster shape."""
    raw = _renamed({k: v for k, v in crew.items() if k not in ("people", "lead")}, _back(TEAM_FIELDS))
    raw["leadAgentId"] = f"{crew.get('lead', 'team-lead')}@{crew.get('title', '')}"
    raw["members"] = [_renamed(person, _back(MEMBER_FIELDS)) for person in crew.get("people", [])]
    return raw


def roster_out(raw: Mapping[str, Any]) -> dict[str, Any]:
    """A roster in teamdeck's shape as ``crew.json``."""
    crew = _renamed({k: v for k, v in raw.items() if k not in ("members", "leadAgentId")}, TEAM_FIELDS)
    crew["lead"] = str(raw.get("leadAgentId", "team-lead@")).rsplit("@", 1)[0]
    crew["people"] = [_renamed(member, MEMBER_FIELDS) for member in raw.get("members", [])]
    return crew


def letter_in(letter: Any) -> Any:
    """A letter in teamdeck's message shape (what is not a letter is handed on as it is)."""
    if not isinstance(letter, dict):
        return letter
    message = {
        k: v for k, v in letter.items() if k not in ("sender", "body", "kind", "fields", "at", "seen", "gist", "hue")
    }
    message["from"] = letter.get("sender")
    if "kind" in letter:
        message["text"] = encode_text({"type": letter["kind"], **letter.get("fields", {})})
    else:
        message["text"] = letter.get("body")
    message["timestamp"] = letter.get("at")
    message["read"] = letter.get("seen", False)
    for ours, theirs in (("summary", "gist"), ("color", "hue")):
        if theirs in letter:
            message[ours] = letter[theirs]
    return message


def letter_out(message: Mapping[str, Any]) -> dict[str, Any]:
    """A message in teamdeck's shape as a letter: a protocol message's fields apart."""
    letter: dict[str, Any] = {"sender": message["from"], "at": message["timestamp"], "seen": message.get("read", False)}
    kind = decode_text(message["text"])
    if kind.KIND in KINDS:
        payload = kind.to_payload()
        letter["kind"] = payload.pop("type")
        letter["fields"] = payload
    else:
        letter["body"] = message["text"]
    for ours, theirs in (("summary", "gist"), ("color", "hue")):
        if message.get(ours) is not None:
            letter[theirs] = message[ours]
    return letter


def _load(path: Path, expected: type, default: Any) -> Any:
    try:
        value = json.loads(path.read_text("utf-8"))
    except FileNotFoundError:
        return copy.deepcopy(default)
    except ValueError as err:
        raise InvalidFile(path, "", f"not JSON: {err}") from None
    if not isinstance(value, expected):
        raise InvalidFile(path, "", f"expected a JSON {expected.__name__}")
    return value


def _save(path: Path, value: Any) -> None:
    atomic_replace(path, json.dumps(value, indent=1, ensure_ascii=False).encode("utf-8"), crash_prefix="fixture")


class FixtureFormat:
    """The fixture format (see the module)."""

    name = "fixture"
    areas: tuple[str, ...] = ("teams",)
    inbox_wakes_inactive = True

    def __init__(self) -> None:
        self.lock_takes = 0  # the tests check the format's own lock was taken

    @contextmanager
    def _locked(self, team_dir: Path) -> Iterator[None]:
        fd = os.open(team_dir / LOCK, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            self.lock_takes += 1
            yield
        finally:
            os.close(fd)

    # --- where things are --------------------------------------------------------

    def has_team(self, ws: Workspace, team: str) -> bool:
        return (ws.team_dir(team) / ROSTER).is_file()

    def team_names(self, ws: Workspace) -> tuple[list[str], list[str]]:
        try:
            children = sorted(os.listdir(ws.teams_dir))
        except FileNotFoundError:
            return [], []
        return [child for child in children if (ws.teams_dir / child / ROSTER).is_file()], []

    def roster_file(self, ws: Workspace, team: str) -> Path:
        return ws.team_dir(team) / ROSTER

    def inboxes_dir(self, ws: Workspace, team: str) -> Path:
        return ws.team_dir(team) / MAIL

    def inbox(self, ws: Workspace, team: str, member: str) -> Path:
        return self.inboxes_dir(ws, team) / f"{check_member(member)}{SUFFIX}"

    def inbox_paths(self, ws: Workspace, team: str) -> tuple[list[Path], list[str]]:
        directory = self.inboxes_dir(ws, team)
        try:
            names = sorted(os.listdir(directory))
        except FileNotFoundError:
            return [], []
        paths, ignored = [], []
        for name in names:
            if name.endswith(SUFFIX):
                try:
                    paths.append(self.inbox(ws, team, name[: -len(SUFFIX)]))
                except InvalidId as err:
                    ignored.append(f"{name}: ignored: {err}")
        return paths, ignored

    def recipient_of(self, path: Path) -> str:
        return path.name[: -len(SUFFIX)]

    def shutdown_request_id(self, member: str, stamp_ms: int) -> str:
        return f"shutdown-{stamp_ms}@{member}"

    def log_file(self, ws: Workspace, team: str) -> Path:
        return ws.messages_log(team)

    def task_list_dir(self, ws: Workspace, team: str) -> Path:
        return ws.team_dir(team)

    def holds_task_list(self, names: list[str]) -> bool:
        return False  # its task lists live with the team, not under tasks/

    def file_of(self, parts: tuple[str, ...]) -> TeamFile | None:
        if len(parts) < 3 or parts[0] != "teams":
            return None
        if parts[2] == ROSTER:
            return TeamFile(parts[1], "roster")
        if parts[2] == MAIL:
            if len(parts) == 3:
                return TeamFile(parts[1], "inboxes")
            name = parts[3]
            return TeamFile(parts[1], "inbox", name[: -len(SUFFIX)] if name.endswith(SUFFIX) else None)
        return None

    # --- the roster --------------------------------------------------------------

    def read_roster(self, ws: Workspace, team: str) -> TeamConfig:
        path = self.roster_file(ws, check_id(team, "team name"))
        if not path.is_file():
            raise NotFound(f"team '{team}' not found: no {ws.rel(path)}")
        config: TeamConfig = validate_raw(TeamConfig, roster_in(_load(path, dict, {})), ws.rel(path))
        return config

    def change_roster(self, ws: Workspace, team: str, change: Callable[[dict[str, Any]], tuple[T, bool]]) -> T:
        path = self.roster_file(ws, team)
        if not path.is_file():
            raise NotFound(f"team '{team}' not found: no {ws.rel(path)}")
        with self._locked(path.parent):
            raw = roster_in(_load(path, dict, {}))
            result, changed = change(raw)
            if changed:
                validate_raw(TeamConfig, raw, ws.rel(path))
                _save(path, roster_out(raw))
            return result

    def create_team(self, ws: Workspace, team: str, config: dict[str, Any]) -> None:
        team_dir = ws.team_dir(team)
        try:
            team_dir.mkdir(parents=True)
        except FileExistsError:
            raise Refused(f"Could not create team '{team}': it already exists") from None
        (team_dir / MAIL).mkdir()
        with self._locked(team_dir):
            _save(team_dir / ROSTER, roster_out(config))

    def remove_team(self, ws: Workspace, team: str, *, tombstone: str) -> list[str]:
        team_dir = ws.team_dir(team)
        if not team_dir.is_dir():
            raise NotFound(f"team '{team}' not found")
        shutil.rmtree(team_dir)
        return [str(ws.rel(team_dir))]

    # --- inboxes -------------------------------------------------------------------

    def read_inbox(self, path: Path, earlier: Inbox | None = None) -> Inbox:
        try:
            letters = _load(path, list, [])
        except InvalidFile as err:
            raise UnreadableInbox(path, err.why) from None
        known = earlier.entries if earlier is not None else ()
        return Inbox(path, self.recipient_of(path), parse_entries([letter_in(letter) for letter in letters], known))

    def append_message(self, path: Path, message: dict[str, Any]) -> Delivery:
        path.parent.mkdir(exist_ok=True)
        with self._locked(path.parent.parent):
            letters = _load(path, list, [])
            letters.append(letter_out(message))
            _save(path, letters)
        return Delivery(path, True, 1)

    def mark_read(self, path: Path, wanted: Callable[[dict[str, Any]], bool]) -> list[dict[str, Any]]:
        return self._mark(path, wanted, True)

    def take_unread(self, path: Path) -> list[dict[str, Any]]:
        return self.mark_read(path, lambda _message: True)

    def mark_unread(self, path: Path, wanted: Callable[[dict[str, Any]], bool]) -> list[dict[str, Any]]:
        return self._mark(path, wanted, False)

    def _mark(self, path: Path, wanted: Callable[[dict[str, Any]], bool], seen: bool) -> list[dict[str, Any]]:
        """Set ``seen`` on the letters not so yet that ``wanted`` selects."""
        if not path.exists():
            return []
        with self._locked(path.parent.parent):
            letters = _load(path, list, [])
            taken = []
            for letter in letters:
                message = letter_in(letter)
                if isinstance(letter, dict) and bool(letter.get("seen")) != seen and wanted(message):
                    taken.append(message)
                    letter["seen"] = seen
            if taken:
                _save(path, letters)
        return taken

    # --- the task list -------------------------------------------------------------

    def _items(self, ws: Workspace, team: str) -> list[dict[str, Any]]:
        items: list[dict[str, Any]] = _load(ws.team_dir(team) / TODO, dict, {"items": []}).get("items", [])
        return items

    def task_listing(self, ws: Workspace, team: str) -> TaskListing:
        return TaskListing(tuple(str(item.get("id")) for item in self._items(ws, team)), ())

    def read_task(self, ws: Workspace, team: str, name: str) -> ClaudeTask:
        for item in self._items(ws, team):
            if str(item.get("id")) == name:
                task: ClaudeTask = validate_raw(
                    ClaudeTask, _renamed(item, _back(TASK_FIELDS)), self.task_shown(ws, team, name)
                )
                return task
        raise FileNotFoundError(name)

    def task_shown(self, ws: Workspace, team: str, name: str) -> str:
        return f"{ws.rel(ws.team_dir(team) / TODO)}#{name}"

    def misnamed_task(self, ws: Workspace, team: str, name: str) -> InvalidFile:
        return InvalidFile(self.task_shown(ws, team, name), "", "not a task")

    def read_task_list(self, ws: Workspace, team: str) -> TaskList:
        listing = self.task_listing(ws, team)
        return TaskList(team, [self.read_task(ws, team, name) for name in listing.names])

    def check_task_id(self, task_id: str) -> None:
        if not task_id:
            raise NotFound("a task id is not empty")

    def update_task(
        self, ws: Workspace, team: str, task_id: str, changes: Mapping[str, Any]
    ) -> tuple[ClaudeTask, ClaudeTask]:
        path = ws.team_dir(team) / TODO
        with self._locked(path.parent):
            todo = _load(path, dict, {"items": []})
            for item in todo["items"]:
                if str(item.get("id")) == task_id:
                    before = validate_raw(ClaudeTask, _renamed(item, _back(TASK_FIELDS)), str(path))
                    item.update(_renamed(dict(changes), TASK_FIELDS))
                    _save(path, todo)
                    return before, validate_raw(ClaudeTask, _renamed(item, _back(TASK_FIELDS)), str(path))
        raise NotFound(f"no task {task_id} in the task list of team '{team}'")
