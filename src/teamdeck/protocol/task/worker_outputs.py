"""Reading and checking every worker's ``agents/<id>/artifacts/final.json`` of a task.

Each output is validated against schemas/worker-output.schema.json with jsonschema's
Draft 2020-12 validator and a real format checker (R8, B12), then against the model.
Nothing here stops at a bad file: an unreadable or invalid output becomes a result
with problems (file, JSON path, message; the most relevant first, B11), and an agent
directory whose name fails the id allow-list or that is a symlink is reported and not
followed (S8, S9, B17). The join, ``teamdeck validate`` and the TUI all read outputs
through :func:`read_worker_outputs`.
"""

from __future__ import annotations

import functools
import hashlib
import sys
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from teamdeck.errors import InvalidFile
from teamdeck.model.report import OutputProblem, ReportStatus, WorkerEntry
from teamdeck.model.worker_output import WorkerOutput
from teamdeck.protocol.common.problems import clean_message, pydantic_problems
from teamdeck.resources import data_dir
from teamdeck.store.files import Entry, list_entries, read_optional
from teamdeck.store.loaders import parse_json
from teamdeck.store.paths import InvalidId, check_id, inside, shown
from teamdeck.store.workspace import Workspace

if TYPE_CHECKING:
    from jsonschema import Draft202012Validator

SCHEMA_FILE = "worker-output.schema.json"
MAX_PROBLEMS = 20
"""Problems kept per file (the count says how many there were)."""


@dataclass(frozen=True)
class WorkerResult:
    """What one agent directory of a task holds.

    Attributes:
        agent_id: the directory name (escaped for display when it is not a valid id).
        file: the final.json path relative to the task directory (or the agent directory
            when it was ignored).
        status: the output's status, ``invalid`` or ``pending`` (no final.json yet).
        output: the parsed output when valid, else None.
        problems: what is wrong (most relevant first, at most :data:`MAX_PROBLEMS`).
        problem_count: how many problems there were in all.
        digest: ``sha256:<16 hex>`` of final.json's bytes (None when absent/unreadable).
        ignored: the directory was not followed (bad name or symlink).
    """

    agent_id: str
    file: str
    status: ReportStatus
    output: WorkerOutput | None = None
    problems: tuple[OutputProblem, ...] = ()
    problem_count: int = 0
    digest: str | None = None
    ignored: bool = False

    @property
    def valid(self) -> bool:
        """Whether the status and fields come from a conforming output (or none yet)."""
        return self.status != "invalid"

    def headline(self) -> str:
        """One line: ``agents/w1/artifacts/final.json $.status: 'DONE' is not one of [...] (+2 more)``."""
        if not self.problems:
            return f"{self.file}: {self.status}"
        first = self.problems[0]
        place = f" {first.path}" if first.path else ""
        more = f" (+{self.problem_count - 1} more)" if self.problem_count > 1 else ""
        return f"{first.file}{place}: {first.message}{more}"

    def entry(self, gate_id: str | None = None) -> WorkerEntry:
        """This result as a joined-summary worker entry (fields only from valid output)."""
        output = self.output
        return WorkerEntry(
            agentId=self.agent_id,
            status=self.status,
            summary=output.summary if output else "",
            questions=list(output.questions) if output else [],
            nextActions=list(output.nextActions) if output else [],
            valid=self.valid,
            problems=list(self.problems),
            gateId=gate_id,
        )


def read_worker_outputs(ws: Workspace, task_id: str) -> list[WorkerResult]:
    """Every agent directory of the task, read and checked, sorted by directory name.

    Args:
        ws: the workspace.
        task_id: the task (its id is checked; a task without agents/ has no results).

    Returns:
        One :class:`WorkerResult` per entry of ``agents/``.

    Raises:
        InvalidId: ``task_id`` is not a valid id.
        InvalidFile: ``agents/`` exists but cannot be listed.
    """
    return [_read_entry(ws, task_id, entry) for entry in list_entries(ws.agents_dir(task_id))]


def _read_entry(ws: Workspace, task_id: str, entry: Entry) -> WorkerResult:
    display = shown(entry.name)
    where = f"agents/{display}"
    try:
        check_id(entry.name, "worker id")
    except InvalidId as err:
        return _ignored(display, where, f"{err}; ignored")
    if entry.is_symlink:
        try:
            inside(ws.root, entry.path)
        except InvalidFile:
            return _ignored(display, where, "resolves outside the workspace; ignored")
        return _ignored(display, where, "is a symbolic link; not followed")
    if not entry.is_dir:
        return _ignored(display, where, "is not a directory; ignored")
    file = f"{where}/artifacts/final.json"
    try:
        data = read_optional(ws.final_output(task_id, entry.name), shown=file)
    except InvalidFile as err:
        return _invalid(entry.name, file, [(err.where, clean_message(err.why))])
    if data is None:
        return WorkerResult(entry.name, file, "pending")
    return check_output(entry.name, file, data)


def output_digest(data: bytes) -> str:
    """``sha256:<16 hex>`` of a final.json's bytes: what a gate remembers as the output
    that raised it (``outputDigest``), so a join opens a new gate only when it changes."""
    return "sha256:" + hashlib.sha256(data).hexdigest()[:16]


def check_output(agent_id: str, file: str, data: bytes) -> WorkerResult:
    """Parse and validate the bytes of one final.json.

    Args:
        agent_id: the (valid) agent id.
        file: the file as it is named in problems.
        data: its bytes.
    """
    digest = output_digest(data)
    try:
        raw = parse_json(data, file)
    except InvalidFile as err:
        return _invalid(agent_id, file, [(err.where, clean_message(err.why))], digest)
    problems = schema_problems(raw)
    if not problems:
        try:
            output = WorkerOutput.model_validate(raw)
        except ValidationError as err:
            problems = pydantic_problems(err)
        else:
            return WorkerResult(agent_id, file, output.status, output=output, digest=digest)
    return _invalid(agent_id, file, problems, digest)


def schema_problems(instance: Any) -> list[tuple[str, str]]:
    """Where ``instance`` breaks the worker-output schema: ``($.path, message)``, the
    best match (jsonschema's ``best_match``) first, then the rest by path. An error
    with alternatives (``anyOf``) is shown by its most relevant cause, so a bad
    ``finishedAt`` reads "'yesterday' is not a 'date-time'"."""
    validator = _validator()
    from jsonschema.exceptions import best_match

    errors = list(validator.iter_errors(instance))
    if not errors:
        return []
    root = best_match(errors)
    while root.parent is not None:
        root = root.parent
    rest = sorted((error for error in errors if error is not root), key=lambda error: (error.json_path, error.message))
    shown_errors = [best_match([error]) for error in [root, *rest]]
    return [(clean_message(error.json_path), clean_message(error.message)) for error in shown_errors]


def import_jsonschema() -> None:
    """Import jsonschema without rfc3987-syntax, which builds an Earley parser at import
    (measured: 1.1-1.4 s of the 1.6 s jsonschema import here) only to check the ``iri``
    formats, which none of our schemas use. A ``None`` entry in ``sys.modules`` makes
    jsonschema's ``from rfc3987_syntax import ...`` fail, and jsonschema then simply
    registers no ``iri`` checker; the entry is removed again so nothing else is
    affected. Every format our schemas do use is checked (see the tests)."""
    if "jsonschema" in sys.modules or "rfc3987_syntax" in sys.modules:
        return
    sys.modules["rfc3987_syntax"] = None  # type: ignore[assignment]  # None in sys.modules blocks an import: documented, not typed
    try:
        import jsonschema  # noqa: F401 - imported for its side effect: the format checkers register now
    finally:
        del sys.modules["rfc3987_syntax"]


@functools.cache
def _validator() -> Draft202012Validator:
    """The worker-output validator, built once (jsonschema is imported only here, at
    the first output checked: most commands never need it)."""
    import_jsonschema()
    from jsonschema import Draft202012Validator

    path = data_dir("schemas") / SCHEMA_FILE
    data = read_optional(path)
    if data is None:
        raise InvalidFile(path, "", "the worker-output schema is missing from this installation")
    schema = parse_json(data, path)
    Draft202012Validator.check_schema(schema)
    return Draft202012Validator(schema, format_checker=Draft202012Validator.FORMAT_CHECKER)


def _invalid(agent_id: str, file: str, problems: list[tuple[str, str]], digest: str | None = None) -> WorkerResult:
    kept = tuple(OutputProblem(file=file, path=path, message=message) for path, message in problems[:MAX_PROBLEMS])
    return WorkerResult(agent_id, file, "invalid", problems=kept, problem_count=len(problems), digest=digest)


def _ignored(agent_id: str, where: str, why: str) -> WorkerResult:
    problem = OutputProblem(file=where, path="", message=clean_message(why))
    return WorkerResult(agent_id, where, "invalid", problems=(problem,), problem_count=1, ignored=True)


def tasks_with_final_output(ws: Workspace, paths: Iterable[Path]) -> set[str]:
    """The tasks one of whose workers' ``final.json`` is among ``paths`` (changed files
    the watcher reported): the ones a live front joins again (autoJoin)."""
    found = set()
    for path in paths:
        if path.name != "final.json" or path.parent.name != "artifacts":
            continue
        agent_dir = path.parent.parent
        task_dir = agent_dir.parent.parent
        if agent_dir.parent.name != "agents" or task_dir.parent != ws.tasks_dir:
            continue
        try:
            if ws.final_output(task_dir.name, agent_dir.name) == path:
                found.add(task_dir.name)
        except (InvalidId, InvalidFile):  # a name that is no id, or a path that leads out
            continue
    return found
