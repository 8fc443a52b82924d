"""``tasks/<task-id>/shared/human-notes.md``: where people answer the workers' questions.

Every gate points here (``instructionsRef: ./shared/human-notes.md``). People edit the
file freely; teamdeck only ever *adds* to it, under the lock, by re-reading it and
inserting text at marked places:

- a section per gate, opened by ``<!-- teamdeck:gate <id> -->`` and running to the next
  such marker (or the end of the file);
- in it, the gate's questions, marked ``<!-- teamdeck:questions <id> <hash> -->``, added
  again (below the earlier ones) only when the questions change;
- and the decision, marked ``<!-- teamdeck:decision <id> -->``, added once.

:func:`sync_human_notes` derives what must be there from task.yaml, so running it
again adds nothing, and text lost to a crash between an event and this file is added
by the next join or decision.
"""

from __future__ import annotations

import hashlib
from datetime import UTC

from teamdeck.clock import parse_iso
from teamdeck.model.task import Gate, Task
from teamdeck.protocol.common.markdown import code_span, numbered
from teamdeck.store.atomic import remove_stale_temps
from teamdeck.store.files import ensure_dir, read_optional, replace_if_changed
from teamdeck.store.locks import locked
from teamdeck.store.workspace import Workspace

GATE_MARK = "<!-- teamdeck:gate {gate} -->"
QUESTIONS_MARK = "<!-- teamdeck:questions {gate} {digest} -->"
DECISION_MARK = "<!-- teamdeck:decision {gate} -->"
_ANY_GATE_MARK = "<!-- teamdeck:gate "


def sync_human_notes(ws: Workspace, task: Task, *, record: frozenset[str] = frozenset()) -> bool:
    """Make human-notes.md hold a section with the current questions of every open gate,
    and the decision of every decided gate that has a section (or is in ``record``).

    Creates the file when a gate needs it. Never removes or changes what is there.

    Args:
        ws: the workspace.
        task: the task as it is now on disk.
        record: ids of decided gates whose decision must be written even if they
            have no section yet (the gate just decided).

    Returns:
        Whether the file was written.

    Raises:
        WriteFailed, Busy, InvalidFile: the file could not be read or replaced.
    """
    path = ws.human_notes(task.id)
    wanted = [gate for gate in task.gates if gate.state == "blocked" or gate.id in record]
    if not wanted and read_optional(path) is None:
        return False
    ensure_dir(path.parent)
    with locked(path, what=str(ws.rel(path))):
        remove_stale_temps(path.parent, path.name)  # a writer killed mid-replace (F1)
        data = read_optional(path)
        text = data.decode("utf-8", "surrogateescape") if data is not None else _header(task)
        for gate in task.gates:
            if gate.state == "blocked" or gate.id in record:
                text = _ensure_section(text, gate)
                text = _ensure_questions(text, gate)
            if gate.state != "blocked" and GATE_MARK.format(gate=gate.id) in text:
                text = _ensure_decision(text, gate)
        return replace_if_changed(path, text.encode("utf-8", "surrogateescape"), crash_prefix="notes")


def _header(task: Task) -> str:
    return (
        f"# Human notes: task {code_span(task.id)}\n\n"
        "Answers and instructions for this task's workers, who read this file. teamdeck adds a\n"
        "section for each gate that waits for a person, with the worker's questions, and records\n"
        "each decision under it; it never changes what you write. Write your answers under the\n"
        "questions, then approve or reject the gate (`teamdeck gate approve|reject`).\n"
    )


def _ensure_section(text: str, gate: Gate) -> str:
    mark = GATE_MARK.format(gate=gate.id)
    if mark in text:
        return text
    worker = f" (worker {code_span(gate.agentInstance)})" if gate.agentInstance else ""
    reason = f"\nReason: {code_span(gate.reason)}\n" if gate.reason else ""
    return text.rstrip("\n") + f"\n\n{mark}\n## Gate {code_span(gate.id)}{worker}\n{reason}"


def _ensure_questions(text: str, gate: Gate) -> str:
    digest = hashlib.sha256("\n".join([gate.reason, *gate.questions]).encode("utf-8", "surrogateescape")).hexdigest()[
        :12
    ]
    mark = QUESTIONS_MARK.format(gate=gate.id, digest=digest)
    if mark in text:
        return text
    block = f"{mark}\nQuestions ({when(gate.createdAt)}):\n\n{numbered(gate.questions)}\n\nAnswer:\n\n"
    return _append_to_section(text, gate.id, block)


def _ensure_decision(text: str, gate: Gate) -> str:
    mark = DECISION_MARK.format(gate=gate.id)
    if mark in text:
        return text
    by = code_span(gate.decidedBy or "someone")
    moment = when(gate.decidedAt) if gate.decidedAt else "an unknown time"
    note = f" Note: {code_span(gate.note)}" if gate.note else ""
    block = f"{mark}\nDecision: **{gate.state}** by {by} at {moment}.{note}\n"
    return _append_to_section(text, gate.id, block)


def _append_to_section(text: str, gate_id: str, block: str) -> str:
    """``text`` with ``block`` added at the end of the gate's section (before the next
    gate's marker), separated by one blank line."""
    start = text.index(GATE_MARK.format(gate=gate_id))
    end = text.find(_ANY_GATE_MARK, start + 1)
    end = len(text) if end < 0 else end
    before, after = text[:end].rstrip("\n"), text[end:]
    joined = f"{before}\n\n{block.rstrip(chr(10))}\n"
    return joined + (f"\n{after}" if after else "")


def when(timestamp: str) -> str:
    """``2026-03-01 10:42:03 UTC`` from an ISO timestamp (as written when unparseable)."""
    try:
        return parse_iso(timestamp).astimezone(UTC).strftime("%Y-%m-%d %H:%M:%S UTC")
    except ValueError:
        return timestamp
