"""How events change a task: the one reducer behind task.yaml (F12, C14).

``apply_event`` is pure. Writers append an event and then apply it to task.yaml;
readers that find events newer than task.yaml's ``lastEventId`` apply them the same
way, and a full replay of events.jsonl from ``task.created`` rebuilds task.yaml.
Every event type that changes a task has its reducer in this module, so a replay
never depends on which other modules happen to be imported.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from teamdeck.model.event import Event

Reducer = Callable[[dict[str, Any], Event], bool]
"""Changes the task dict in place for an event; returns whether anything changed."""

_REDUCERS: dict[str, Reducer] = {}


def reducer(event_type: str) -> Callable[[Reducer], Reducer]:
    """Register the function that applies ``event_type`` to a task dict."""

    def register(function: Reducer) -> Reducer:
        _REDUCERS[event_type] = function
        return function

    return register


def apply_event(task: dict[str, Any] | None, event: Event) -> dict[str, Any]:
    """The task after ``event`` (a new dict; the input is not modified).

    Event types without a reducer (``join.completed``, messages...) leave the task as
    it is except for ``lastEventId``. A change bumps ``revision`` and ``updatedAt``.
    """
    if event.type == "task.created":
        result = dict(event.payload["task"])
        result.update(createdAt=event.ts, updatedAt=event.ts, revision=1, lastEventId=event.id)
        return result
    if task is None:
        raise ValueError(f"event {event.id} ({event.type}) before task.created")
    result = _copy(task)
    function = _REDUCERS.get(event.type)
    if function is not None and function(result, event):
        result["revision"] = int(result.get("revision", 0)) + 1
        result["updatedAt"] = event.ts
    result["lastEventId"] = event.id
    return result


def replay(events: Iterable[Event], task: dict[str, Any] | None = None) -> dict[str, Any] | None:
    """Fold ``events`` into ``task`` (from nothing when ``task`` is None)."""
    for event in events:
        task = apply_event(task, event)
    return task


def _copy(task: dict[str, Any]) -> dict[str, Any]:
    result = dict(task)
    result["gates"] = [dict(gate) for gate in task.get("gates", [])]
    result["workers"] = [dict(worker) for worker in task.get("workers", [])]
    return result


def _gate(task: dict[str, Any], gate_id: str) -> dict[str, Any] | None:
    return next((gate for gate in task["gates"] if gate.get("id") == gate_id), None)


@reducer("task.state_changed")
def _state_changed(task: dict[str, Any], event: Event) -> bool:
    task["state"] = event.payload["to"]
    return True


@reducer("gate.blocked")
def _gate_blocked(task: dict[str, Any], event: Event) -> bool:
    payload = event.payload
    fields = {
        "id": payload["gateId"],
        "kind": payload.get("kind", "worker-blocked"),
        "state": "blocked",
        "reason": payload.get("reason", ""),
        "agentInstance": payload.get("agentInstance"),
        "questions": list(payload.get("questions", [])),
        "instructionsRef": payload.get("instructionsRef", "./shared/human-notes.md"),
    }
    gate = _gate(task, payload["gateId"])
    if gate is None:
        task["gates"].append({**fields, "createdAt": event.ts})
    else:
        gate.update(fields)
    return True


def _decide(state: str) -> Reducer:
    def decide(task: dict[str, Any], event: Event) -> bool:
        gate = _gate(task, event.payload["gateId"])
        if gate is None:
            return False
        gate.update(state=state, decidedBy=event.payload.get("by", event.actor), decidedAt=event.ts, note=event.payload.get("note"))
        return True

    return decide


reducer("gate.approved")(_decide("approved"))
reducer("gate.rejected")(_decide("rejected"))
