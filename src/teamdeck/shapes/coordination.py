"""Seed 002's coordination results as JSON: ``teamdeck delegate|report --json`` and the
MCP tools ``delegate`` and ``report_to_parent`` return these very objects."""

from __future__ import annotations

from typing import Any

from teamdeck.protocol.coordination.delegation import Delegation, Report


def delegation_json(done: Delegation) -> dict[str, Any]:
    """A delegation: the task, the worker it added, the task_assignment message and
    whether its delivery is confirmed, the events, and what the person should know."""
    return {
        "task": done.task.model_dump(mode="json"),
        "worker": done.worker.model_dump(mode="json"),
        "messageId": done.message_id,
        "confirmed": done.confirmed,
        "events": [event.model_dump(mode="json") for event in done.events],
        "warnings": list(done.warnings),
    }


def report_json(done: Report) -> dict[str, Any]:
    """A report: the task, the final.json written (path and content), who was told,
    the events, and what did not work out (notices)."""
    return {
        "task": done.task.model_dump(mode="json"),
        "path": done.path,
        "output": done.output.model_dump(mode="json"),
        "notified": list(done.notified),
        "events": [event.model_dump(mode="json") for event in done.events],
        "notices": list(done.notices),
    }
