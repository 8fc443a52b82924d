"""Building and rendering the joined summary (pure: no file is read or written here
except the template, through the store).

``templates/JoinedSummary.md`` is the real rendering source, in a tiny scheme:

- ``$name`` / ``${name}`` are placeholders (:class:`string.Template`); ``$$`` is a ``$``.
- The lines between ``<!-- for each worker -->`` and ``<!-- end for each worker -->``
  are rendered once per worker, in agent id order, with the worker placeholders.
- Notes for the reader of the template run from a line starting with ``<!--#`` to a
  line ending with ``#-->`` and are dropped from the output; ordinary HTML comments
  are kept.
- Runs of blank lines left by empty placeholders are folded to one.

Every placeholder holding agent text is already quoted for Markdown
(:mod:`teamdeck.protocol.common.markdown`), so a template author cannot forget to.
"""

from __future__ import annotations

import re
from string import Template

from teamdeck.errors import InvalidFile
from teamdeck.model.report import JoinedSummary, WorkerEntry
from teamdeck.protocol.common.markdown import code_span, fenced, numbered
from teamdeck.protocol.task.worker_outputs import WorkerResult
from teamdeck.resources import data_dir
from teamdeck.store.files import read_optional
from teamdeck.store.loaders import dumps_json

TEMPLATE_FILE = "JoinedSummary.md"
BLOCK_START = "<!-- for each worker -->"
BLOCK_END = "<!-- end for each worker -->"
_TEMPLATE_NOTE = re.compile(r"^[ \t]*<!--#.*?#-->[ \t]*$\n?", re.DOTALL | re.MULTILINE)
_BLANK_RUNS = re.compile(r"\n{3,}")


def build_summary(task_id: str, results: list[WorkerResult], gate_ids: dict[str, str]) -> JoinedSummary:
    """The joined summary of ``results``.

    Args:
        task_id: the task.
        results: every worker result (see :func:`read_worker_outputs`).
        gate_ids: agent id → the gate a blocked worker waits on.
    """
    return JoinedSummary.of(task_id, [result.entry(gate_ids.get(result.agent_id)) for result in results])


def summary_json(summary: JoinedSummary) -> bytes:
    """joined-summary.json bytes: stable key order, 2-space indent, final newline.

    Lone surrogates an agent smuggled in through ``\\ud800`` escapes are written back
    as the same JSON escapes instead of failing the encode (B9).
    """
    text = dumps_json(summary.model_dump(mode="json"), indent=2) + "\n"
    return text.encode("utf-8", "backslashreplace")


def load_template() -> str:
    """The text of templates/JoinedSummary.md as shipped with teamdeck (read each time,
    so an edited template takes effect at the next join).

    Raises:
        InvalidFile: the template is missing or unreadable.
    """
    path = data_dir("templates") / TEMPLATE_FILE
    data = read_optional(path)
    if data is None:
        raise InvalidFile(path, "", "the joined-summary template is missing from this installation")
    return data.decode("utf-8", "replace")


def render_markdown(summary: JoinedSummary, template: str) -> str:
    """joined-summary.md from ``template`` (see the module docstring for the scheme).

    Raises:
        InvalidFile: the template names an unknown placeholder or lacks the worker block.
    """
    text = _TEMPLATE_NOTE.sub("", template)
    start, end = text.find(BLOCK_START), text.find(BLOCK_END)
    if start < 0 or end < start:
        raise InvalidFile(TEMPLATE_FILE, "", f"needs a worker block between '{BLOCK_START}' and '{BLOCK_END}'")
    head, block, tail = text[:start], text[start + len(BLOCK_START) : end], text[end + len(BLOCK_END) :]
    values = _summary_values(summary)
    parts = [_fill(head, values)]
    parts += [_fill(block, {**values, **_worker_values(summary.taskId, worker)}) for worker in summary.workers]
    parts.append(_fill(tail, values))
    rendered = _BLANK_RUNS.sub("\n\n", "".join(parts)).strip("\n") + "\n"
    return rendered


def _fill(text: str, values: dict[str, str]) -> str:
    try:
        return Template(text).substitute(values)
    except KeyError as err:
        raise InvalidFile(TEMPLATE_FILE, "", f"unknown placeholder ${err.args[0]}") from None
    except ValueError as err:
        raise InvalidFile(TEMPLATE_FILE, "", f"bad placeholder ({err}); write $$ for a literal $") from None


def _summary_values(summary: JoinedSummary) -> dict[str, str]:
    totals = summary.totals
    return {
        "task_id": summary.taskId,
        "completed": str(totals.completed),
        "blocked": str(totals.blocked),
        "failed": str(totals.failed),
        "invalid": str(totals.invalid),
        "pending": str(totals.pending),
        "total": str(totals.total),
    }


def _worker_values(task_id: str, worker: WorkerEntry) -> dict[str, str]:
    if worker.gateId:
        gate = (
            f"Gate `{worker.gateId}` asks a person about this (its state is in task.yaml): answer in "
            f"`shared/human-notes.md`, then `teamdeck gate approve {task_id} {worker.gateId}` (or `reject ... --note`)."
        )
    else:
        gate = ""
    if worker.summary:
        summary = fenced(worker.summary)
    elif worker.status == "pending":
        summary = "(no final.json yet)"
    else:
        summary = "(none: the output could not be used)"
    problems = [
        " ".join(filter(None, (problem.file, problem.path))) + f": {problem.message}" for problem in worker.problems
    ]
    return {
        "agent_id": code_span(worker.agentId),
        "status": worker.status,
        "gate": gate,
        "summary": summary,
        "questions": numbered(worker.questions),
        "next_actions": numbered(worker.nextActions),
        "problems": numbered(problems),
    }
