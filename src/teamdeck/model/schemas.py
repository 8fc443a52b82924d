"""The JSON Schemas of our on-disk formats, generated from the models.

``schemas/*.schema.json`` are written by ``python scripts/generate_schemas.py`` from
:func:`all_schemas`, and a test fails when a committed file drifts from its model. To
publish a new format, add one line to :data:`SCHEMA_MODELS`.
"""

from __future__ import annotations

import json
from typing import Any

from pydantic import BaseModel

from teamdeck.model.event import Event
from teamdeck.model.forge import ForgeIssue
from teamdeck.model.guardian import GuardianAssignment, GuardianVerdictSnapshot
from teamdeck.model.hosts import HostsFile
from teamdeck.model.plan import Plan
from teamdeck.model.report import JoinedSummary
from teamdeck.model.settings import Settings
from teamdeck.model.shape import Shape
from teamdeck.model.task import Task
from teamdeck.model.team import ClaudeTask, InboxMessage, TeamConfig
from teamdeck.model.team_log import TeamLogRecord
from teamdeck.model.worker_output import WorkerOutput

DRAFT = "https://json-schema.org/draft/2020-12/schema"
ID_BASE = "urn:teamdeck:schemas:"
"""Schema ids are URNs (``urn:teamdeck:schemas:task.schema.json``): stable names that
do not pretend to be downloadable."""

SCHEMA_MODELS: dict[str, type[BaseModel] | type[Shape]] = {
    "task.schema.json": Task,
    "event.schema.json": Event,
    "worker-output.schema.json": WorkerOutput,
    "joined-summary.schema.json": JoinedSummary,
    "settings.schema.json": Settings,
    "guardian-assignment.schema.json": GuardianAssignment,
    "guardian-verdict.schema.json": GuardianVerdictSnapshot,
    "plan.schema.json": Plan,
    "claude-team-config.schema.json": TeamConfig,
    "claude-inbox-message.schema.json": InboxMessage,
    "claude-task.schema.json": ClaudeTask,
    "team-log-record.schema.json": TeamLogRecord,
    "forge-issue.schema.json": ForgeIssue,
    "hosts.schema.json": HostsFile,
}
"""File name under schemas/ → the model it describes."""

REGENERATE = "python scripts/generate_schemas.py"
"""The command that rewrites schemas/ from the models (printed by the drift test)."""


def schema_of(filename: str, model: type[BaseModel] | type[Shape]) -> dict[str, Any]:
    """The Draft 2020-12 schema of ``model``, with ``$schema`` and ``$id`` first."""
    body = model.model_json_schema(mode="validation")
    return {"$schema": DRAFT, "$id": ID_BASE + filename, **body}


def all_schemas() -> dict[str, dict[str, Any]]:
    """Every published schema: file name → schema."""
    return {filename: schema_of(filename, model) for filename, model in SCHEMA_MODELS.items()}


def schema_bytes(schema: dict[str, Any]) -> bytes:
    """A schema as it is committed: 2-space indented UTF-8 JSON with a final newline."""
    return (json.dumps(schema, indent=2, ensure_ascii=False) + "\n").encode()
