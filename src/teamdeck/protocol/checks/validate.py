"""``teamdeck validate``: every file of a workspace checked against its model or schema.

The check is a list of per-area checkers (:data:`CHECKERS`); each takes the workspace
and yields :class:`ValidationProblem` s. To check another area, write one function and add it
to the tuple. A checker never stops at the first bad file, and a checker that cannot
run at all (an unlistable directory) becomes one problem instead of a crash.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ValidationError

from teamdeck.errors import InvalidFile, TeamdeckError
from teamdeck.formats.claude_code import teamfiles
from teamdeck.formats.claude_code.json_files import read_json_retrying
from teamdeck.formats.registry import CLAUDE_CODE, task_dir_kind, team_format, team_names
from teamdeck.model.event import Event
from teamdeck.model.forge import ForgeIssue
from teamdeck.model.guardian import GuardianAssignment, GuardianVerdictSnapshot
from teamdeck.model.plan import Plan
from teamdeck.model.report import JoinedSummary
from teamdeck.model.settings import Settings
from teamdeck.model.task import Task
from teamdeck.model.team import ClaudeTask, InboxMessage, TeamConfig, Unknown
from teamdeck.protocol.checks.hygiene import find_leftovers, name_collisions
from teamdeck.protocol.common.problems import clean_message, pydantic_problems
from teamdeck.protocol.guardians.verdict_history import edited_verdicts
from teamdeck.protocol.task.join import REPORT_JSON
from teamdeck.protocol.task.worker_outputs import read_worker_outputs
from teamdeck.protocol.team.task_list_checks import dependency_problems
from teamdeck.protocol.team.teamlog import read_log
from teamdeck.store.files import list_entries, read_optional
from teamdeck.store.jsonl import decode_line, read_records
from teamdeck.store.loaders import parse_json
from teamdeck.store.paths import ID_RE, MEMBER_RE, shown
from teamdeck.store.workspace import SETTINGS_FILE, Workspace
from teamdeck.store.yaml_text import parse_yaml


@dataclass(frozen=True)
class ValidationProblem:
    """One thing wrong in the workspace.

    Attributes:
        path: the file, relative to the workspace (``tasks/t1/task.yaml``).
        where: the place in it (``line 7``, ``$.gates[0].id``) or ``""``.
        message: what is wrong, one sanitised line.
    """

    path: str
    where: str
    message: str

    def __str__(self) -> str:
        place = f" {self.where}" if self.where else ""
        return f"{self.path}{place}: {self.message}"

    def as_dict(self) -> dict[str, str]:
        """The problem as JSON (``--json``)."""
        return asdict(self)

    @classmethod
    def of(cls, err: TeamdeckError, path: str) -> ValidationProblem:
        """An error as a problem of ``path`` (an :class:`InvalidFile` keeps its place)."""
        if isinstance(err, InvalidFile):
            return cls(path, err.where, clean_message(err.why))
        return cls(path, "", clean_message(str(err)))


Checker = Callable[[Workspace], Iterable[ValidationProblem]]
"""Checks one area of the workspace."""


def validate_workspace(ws: Workspace) -> list[ValidationProblem]:
    """Every problem :data:`CHECKERS` find, in checker order (file order within one).

    Args:
        ws: the workspace (only read).

    Returns:
        The problems; empty when the workspace is valid.
    """
    problems: list[ValidationProblem] = []
    for checker in CHECKERS:
        try:
            problems.extend(checker(ws))
        except TeamdeckError as err:
            problems.append(ValidationProblem.of(err, str(getattr(err, "path", "") or ".")))
    return _once_per_link(problems)


def check_leftovers(ws: Workspace) -> Iterator[ValidationProblem]:
    """Links out of the workspace, temp files and locks left by a crash (protocol/checks/hygiene.py),
    and teamdeck tasks named like a team."""
    for leftover in find_leftovers(ws):
        yield ValidationProblem(leftover.path, "", clean_message(leftover.message))
    for path, message in name_collisions(ws):
        yield ValidationProblem(path, "", message)


def _once_per_link(problems: list[ValidationProblem]) -> list[ValidationProblem]:
    """Each link out named once: :func:`check_leftovers` names it, so the reads it made
    fail are left out, and where a worker output's own line already names it (S9,
    "resolves outside the workspace; ignored") that line stands instead."""

    def is_link(problem: ValidationProblem) -> bool:
        return problem.message.startswith("symbolic link to ")

    links = {problem.path for problem in problems if is_link(problem)}
    named = {problem.path for problem in problems if problem.message.startswith("resolves outside")}
    return [
        problem
        for problem in problems
        if (
            problem.path not in named
            if is_link(problem)
            else not any(f"{link} is a symbolic link to " in problem.message for link in links)
        )
    ]


def check_settings(ws: Workspace) -> Iterator[ValidationProblem]:
    """``.teamdeck.yaml`` against the settings model (absent is fine)."""
    yield from _check_model_file(ws.root / SETTINGS_FILE, SETTINGS_FILE, Settings, parse_yaml)


def check_tasks(ws: Workspace) -> Iterator[ValidationProblem]:
    """Every teamdeck task under ``tasks/``: task.yaml, events.jsonl, each worker's
    final.json and joined-summary.json. Claude Code task lists are left to their own checker."""
    for entry in list_entries(ws.tasks_dir):
        if not entry.is_dir or task_dir_kind(entry.path) != "teamdeck":
            continue
        rel = f"tasks/{shown(entry.name)}"
        if not ID_RE.fullmatch(entry.name):
            yield ValidationProblem(rel, "", f"'{shown(entry.name)}' is not a valid task id; its files were not read")
            continue
        yield from check_task(ws, entry.name)


def check_task(ws: Workspace, task_id: str) -> Iterator[ValidationProblem]:
    """The files of one task (see :func:`check_tasks`)."""
    base = f"tasks/{task_id}"
    yield from _check_model_file(
        ws.task_file(task_id),
        f"{base}/task.yaml",
        Task,
        parse_yaml,
        check=_task_consistency(task_id),
        missing="missing; the next command rebuilds it from events.jsonl",
    )
    yield from _check_events(ws.events_file(task_id), f"{base}/events.jsonl")
    for directory, model in (
        (ws.assignments_dir(task_id), GuardianAssignment),
        (ws.verdicts_dir(task_id), GuardianVerdictSnapshot),
    ):
        for entry in list_entries(directory):
            if entry.name.endswith(".json") and not entry.name.startswith("."):
                rel = f"{base}/{entry.path.relative_to(ws.task_dir(task_id)).as_posix()}"
                yield from _check_model_file(entry.path, rel, model, parse_json, check=_record_named(entry.name))
    yield from (ValidationProblem(problem.path, "", problem.message) for problem in edited_verdicts(ws, task_id))
    for result in read_worker_outputs(ws, task_id):
        for problem in result.problems:
            yield ValidationProblem(f"{base}/{problem.file}", problem.path, problem.message)
        hidden = result.problem_count - len(result.problems)
        if hidden > 0:
            yield ValidationProblem(f"{base}/{result.file}", "", f"and {hidden} more problems")
    report = ws.reports_dir(task_id) / REPORT_JSON
    yield from _check_model_file(report, f"{base}/shared/reports/{REPORT_JSON}", JoinedSummary, parse_json)


def _task_consistency(task_id: str) -> Callable[[Task], Iterator[tuple[str, str]]]:
    def check(task: Task) -> Iterator[tuple[str, str]]:
        if task.id != task_id:
            yield "$.id", f"'{shown(task.id)}' does not match the directory name '{task_id}'"
        seen: set[str] = set()
        for index, gate in enumerate(task.gates):
            if gate.id in seen:
                yield f"$.gates[{index}].id", f"gate id '{gate.id}' is used twice"
            seen.add(gate.id)

    return check


def _record_named(file_name: str) -> Callable[[Any], Iterator[tuple[str, str]]]:
    """A guardian record's ``id`` must be its file name (``<id>.json``)."""

    def check(record: Any) -> Iterator[tuple[str, str]]:
        if f"{record.id}.json" != file_name:
            yield "$.id", f"'{shown(record.id)}' does not match the file name '{shown(file_name)}'"

    return check


def check_plans(ws: Workspace) -> Iterator[ValidationProblem]:
    """Every coordinator plan under ``plans/``: plan.yaml and its events.jsonl."""
    for entry in list_entries(ws.plans_dir):
        if not entry.is_dir:
            continue
        rel = f"plans/{shown(entry.name)}"
        if not ID_RE.fullmatch(entry.name):
            yield ValidationProblem(rel, "", f"'{shown(entry.name)}' is not a valid plan id; its files were not read")
            continue
        yield from _check_model_file(
            ws.plan_file(entry.name),
            f"{rel}/plan.yaml",
            Plan,
            parse_yaml,
            missing="missing; the next command rebuilds it from events.jsonl",
        )
        yield from _check_events(ws.plan_events_file(entry.name), f"{rel}/events.jsonl")


def _check_model_file(
    path: Path,
    rel: str,
    model: type[BaseModel],
    parse: Callable[[bytes, Any], Any],
    *,
    check: Callable[[Any], Iterable[tuple[str, str]]] | None = None,
    missing: str = "",
) -> Iterator[ValidationProblem]:
    """Parse ``path`` and validate it against ``model``.

    Args:
        path: the file.
        rel: its name in problems.
        model: the model it must fit.
        parse: ``parse_yaml`` or ``parse_json``.
        check: rules the model cannot express: yields ``(where, message)``.
        missing: the problem when the file is absent ("": absent is fine).
    """
    try:
        data = read_optional(path, shown=rel)
        if data is None:
            if missing:
                yield ValidationProblem(rel, "", missing)
            return
        raw = parse(data, rel)
    except InvalidFile as err:
        yield ValidationProblem.of(err, rel)
        return
    if not isinstance(raw, dict):
        yield ValidationProblem(rel, "", f"expected a mapping at the top, got {type(raw).__name__}")
        return
    try:
        value = model.model_validate(raw)
    except ValidationError as err:
        yield from (ValidationProblem(rel, where, message) for where, message in pydantic_problems(err))
        return
    if check is not None:
        yield from (ValidationProblem(rel, where, clean_message(message)) for where, message in check(value))


def _check_events(path: Path, rel: str) -> Iterator[ValidationProblem]:
    """Each line of an events.jsonl is an event; a last line without its newline is torn."""
    try:
        data = read_optional(path, None, shown=rel)
    except InvalidFile as err:
        yield ValidationProblem.of(err, rel)
        return
    if not data:
        return
    lines = data.split(b"\n")
    torn = lines.pop()  # b"" when the file ends with a newline
    for number, raw in enumerate(lines, 1):
        if not raw.strip():
            continue
        try:
            record = decode_line(raw, rel, number)
            Event.model_validate(record)
        except InvalidFile as err:
            yield ValidationProblem(rel, f"line {number}", clean_message(err.why))
        except ValidationError as err:
            for where, message in pydantic_problems(err):
                yield ValidationProblem(rel, f"line {number} {where}", message)
    if torn.strip():
        yield ValidationProblem(
            rel,
            f"line {len(lines) + 1}",
            f"incomplete last record ({len(torn):,} bytes): a writer crashed or is still writing; "
            "the next command moves it aside",
        )


def check_teams(ws: Workspace) -> Iterator[ValidationProblem]:
    """Every team under ``teams/``: its roster, each inbox, teamdeck's log of it (a
    Claude Code team at each raw JSON path, a team of another format as its format
    reads it)."""
    names, ignored = team_names(ws)
    yield from (ValidationProblem("teams", "", clean_message(line)) for line in ignored)
    for team in names:
        if team_format(ws, team) is CLAUDE_CODE:
            yield from check_team(ws, team)
        else:
            yield from check_team_of_format(ws, team)


def check_team_of_format(ws: Workspace, team: str) -> Iterator[ValidationProblem]:
    """A team of a format other than Claude Code's, through that format: the roster's
    first problem, each inbox's unreadable file or bad entries, bad log lines."""
    files = team_format(ws, team)
    try:
        files.read_roster(ws, team)
    except InvalidFile as err:
        yield ValidationProblem.of(err, str(ws.rel(files.roster_file(ws, team))))
    paths, ignored = files.inbox_paths(ws, team)
    inboxes = str(ws.rel(files.inboxes_dir(ws, team)))
    yield from (ValidationProblem(inboxes, "", clean_message(line)) for line in ignored)
    for path in paths:
        rel = str(ws.rel(path))
        try:
            inbox = files.read_inbox(path)
        except InvalidFile as err:
            yield ValidationProblem(rel, "", clean_message(err.why))
            continue
        for entry in inbox.entries:
            if entry.problem:
                yield ValidationProblem(rel, f"$[{entry.index}]", clean_message(entry.problem))
            elif isinstance(entry.kind, Unknown) and entry.kind.problem:
                yield ValidationProblem(
                    rel, f"$[{entry.index}]", clean_message(f"{entry.kind.type} message: {entry.kind.problem}")
                )
    _records, bad = read_log(ws, team)
    yield from (ValidationProblem(str(ws.rel(files.log_file(ws, team))), "", clean_message(line)) for line in bad)


def check_team(ws: Workspace, team: str) -> Iterator[ValidationProblem]:
    """One team's files (see :func:`check_teams`). Unknown fields and unknown message
    types are fine (B13); a known message type whose fields do not fit is a problem."""
    rel = f"teams/{team}/config.json"
    try:
        raw = read_json_retrying(CLAUDE_CODE.roster_file(ws, team), dict, shown=rel)
        config = TeamConfig.model_validate(raw)
    except InvalidFile as err:
        yield ValidationProblem.of(err, rel)
    except ValidationError as err:
        yield from (ValidationProblem(rel, where, message) for where, message in pydantic_problems(err))
    else:
        seen: set[str] = set()
        for index, member in enumerate(config.members):
            if not MEMBER_RE.fullmatch(member.name):
                yield ValidationProblem(
                    rel, f"$.members[{index}].name", f"'{shown(member.name)}' cannot be an inbox file name"
                )
            if member.name.lower() in seen:
                yield ValidationProblem(
                    rel, f"$.members[{index}].name", f"member '{shown(member.name)}' is listed twice"
                )
            seen.add(member.name.lower())
    paths, ignored = CLAUDE_CODE.inbox_paths(ws, team)
    yield from (ValidationProblem(f"teams/{team}/inboxes", "", clean_message(line)) for line in ignored)
    for path in paths:
        yield from _check_inbox(path, f"teams/{team}/inboxes/{path.name}")
    _records, bad = read_log(ws, team)
    yield from (ValidationProblem(f"teams/{team}/messages.jsonl", "", clean_message(line)) for line in bad)


def _check_inbox(path: Path, rel: str) -> Iterator[ValidationProblem]:
    try:
        inbox = CLAUDE_CODE.read_inbox(path)
    except InvalidFile as err:
        yield ValidationProblem(rel, "", clean_message(err.why))
        return
    for entry in inbox.entries:
        if entry.message is None:
            try:
                InboxMessage.model_validate(entry.raw)
            except ValidationError as err:
                for where, message in pydantic_problems(err):
                    yield ValidationProblem(rel, f"$[{entry.index}]{where[1:]}", message)
        elif isinstance(entry.kind, Unknown) and entry.kind.problem:
            yield ValidationProblem(
                rel, f"$[{entry.index}].text", clean_message(f"{entry.kind.type} message: {entry.kind.problem}")
            )


def check_claude_task_lists(ws: Workspace) -> Iterator[ValidationProblem]:
    """Every Claude Code task list ``tasks/<team>/<n>.json``: each file a task whose id
    is its file name, with ``blocks``/``blockedBy`` naming tasks of the list and kept in
    both directions."""
    for entry in list_entries(ws.tasks_dir):
        if entry.is_dir and teamfiles.task_dir_kind(entry.path) == "claude" and ID_RE.fullmatch(entry.name):
            yield from check_claude_task_list(ws, entry.name)


def check_claude_task_list(ws: Workspace, team: str) -> Iterator[ValidationProblem]:
    """One Claude Code task list (see :func:`check_claude_task_lists`)."""
    tasks: dict[str, tuple[str, ClaudeTask]] = {}
    for entry in list_entries(CLAUDE_CODE.task_list_dir(ws, team)):
        if not teamfiles.TASK_FILE_RE.match(entry.name):
            continue
        rel = f"tasks/{team}/{entry.name}"
        try:
            task = ClaudeTask.model_validate(read_json_retrying(entry.path, dict, shown=rel))
        except InvalidFile as err:
            yield ValidationProblem.of(err, rel)
            continue
        except ValidationError as err:
            yield from (ValidationProblem(rel, where, message) for where, message in pydantic_problems(err))
            continue
        if task.id != entry.name[: -len(".json")]:
            yield ValidationProblem(rel, "$.id", f"'{shown(task.id)}' does not match the file name")
        tasks[task.id] = (rel, task)
    for problem in dependency_problems(task for _, task in tasks.values()):
        yield ValidationProblem(tasks[problem.task_id][0], f"$.{problem.field}", problem.why)


def check_forge(ws: Workspace) -> Iterator[ValidationProblem]:
    """Every issue of an issue-driven team under ``forge/``: issue.yaml and its
    events.jsonl, and the delivery log."""
    for repo in list_entries(ws.forge_dir):
        if not repo.is_dir:
            continue
        rel = f"forge/{shown(repo.name)}"
        if not ID_RE.fullmatch(repo.name):
            yield ValidationProblem(
                rel, "", f"'{shown(repo.name)}' is not a valid repository key; its files were not read"
            )
            continue
        for entry in list_entries(repo.path / "issues"):
            if not entry.is_dir:
                continue
            if not (entry.name.isdigit() and ID_RE.fullmatch(entry.name)):
                yield ValidationProblem(
                    f"{rel}/issues/{shown(entry.name)}", "", "not an issue number; its files were not read"
                )
                continue
            key = f"{repo.name}/{entry.name}"
            base = f"{rel}/issues/{entry.name}"
            yield from _check_model_file(
                ws.forge_issue_file(key),
                f"{base}/issue.yaml",
                ForgeIssue,
                parse_yaml,
                missing="missing; the next delivery rebuilds it from events.jsonl",
            )
            yield from _check_events(ws.forge_issue_log(key), f"{base}/events.jsonl")
    _records, problems = read_records(ws.deliveries_log)
    for problem in problems:
        yield ValidationProblem.of(problem, "forge/deliveries.jsonl")


CHECKERS: tuple[Checker, ...] = (
    check_leftovers,
    check_settings,
    check_tasks,
    check_teams,
    check_claude_task_lists,
    check_plans,
    check_forge,
)
"""Every area ``teamdeck validate`` checks, in order; add a checker here."""
