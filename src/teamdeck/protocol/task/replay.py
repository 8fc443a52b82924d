"""How events change a task: the one reducer behind task.yaml (F12, C14).

``apply_event`` is pure. Writers append an event and then apply it to task.yaml;
readers that find events newer than task.yaml's ``lastEventId`` apply them the same
way, and a full replay of events.jsonl from ``task.created`` rebuilds task.yaml.
Every event type that changes a task has its reducer in this module, so a replay
never depends on which other modules happen to be imported.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from teamdeck.model.event import Event

Reducer = Callable[[dict[str, Any], Event], bool]
"""Changes the document dict in place for an event; returns whether anything changed."""


@dataclass(frozen=True)
class DocumentFold:
    """One kind of event-sourced document (a task, a plan): how its events fold into it.

    Attributes:
        name: the document kind; its creation event is ``<name>.created`` and carries
            the initial document in ``payload[<name>]``.
        lists: list-of-mapping fields that reducers may change in place (copied first,
            so :meth:`apply` never modifies its input).
        reducers: event type → reducer (register with :meth:`reducer`).
    """

    name: str
    lists: tuple[str, ...] = ()
    reducers: dict[str, Reducer] = field(default_factory=dict)

    @property
    def created(self) -> str:
        """The event type that creates a document of this kind."""
        return f"{self.name}.created"

    def reducer(self, event_type: str) -> Callable[[Reducer], Reducer]:
        """Register the function that applies ``event_type`` to a document dict."""

        def register(function: Reducer) -> Reducer:
            self.reducers[event_type] = function
            return function

        return register

    def apply(self, doc: dict[str, Any] | None, event: Event) -> dict[str, Any]:
        """The document after ``event`` (a new dict; the input is not modified).

        Event types without a reducer (``join.completed``, messages...) leave the
        document as it is except for ``lastEventId``. A change bumps ``revision`` and
        ``updatedAt``.
        """
        if event.type == self.created:
            result = dict(event.payload[self.name])
            result.update(createdAt=event.ts, updatedAt=event.ts, revision=1, lastEventId=event.id)
            return result
        if doc is None:
            raise ValueError(f"event {event.id} ({event.type}) before {self.created}")
        result = dict(doc)
        for name in self.lists:
            result[name] = [dict(item) for item in doc.get(name, [])]
        function = self.reducers.get(event.type)
        if function is not None and function(result, event):
            result["revision"] = int(result.get("revision", 0)) + 1
            result["updatedAt"] = event.ts
        result["lastEventId"] = event.id
        return result

    def replay(self, events: Iterable[Event], doc: dict[str, Any] | None = None) -> dict[str, Any] | None:
        """Fold ``events`` into ``doc`` (from nothing when ``doc`` is None)."""
        for event in events:
            doc = self.apply(doc, event)
        return doc


TASKS = DocumentFold("task", lists=("gates", "workers"))
"""Tasks: task.yaml is the fold of events.jsonl."""

reducer = TASKS.reducer
"""Register a task reducer (``@reducer("gate.blocked")``)."""


def apply_event(task: dict[str, Any] | None, event: Event) -> dict[str, Any]:
    """The task after ``event`` (see :meth:`DocumentFold.apply`)."""
    return TASKS.apply(task, event)


def replay(events: Iterable[Event], task: dict[str, Any] | None = None) -> dict[str, Any] | None:
    """Fold ``events`` into ``task`` (from nothing when ``task`` is None)."""
    return TASKS.replay(events, task)


def _gate(task: dict[str, Any], gate_id: str) -> dict[str, Any] | None:
    return next((gate for gate in task["gates"] if gate.get("id") == gate_id), None)


@reducer("task.state_changed")
def _state_changed(task: dict[str, Any], event: Event) -> bool:
    task["state"] = event.payload["to"]
    task["stateSince"] = event.ts
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
    if "outputDigest" in payload:  # which final.json raised it: a join opens a new gate only when it changes
        fields["outputDigest"] = payload["outputDigest"]
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
        gate.update(
            state=state,
            decidedBy=event.payload.get("by", event.actor),
            decidedAt=event.ts,
            note=event.payload.get("note"),
        )
        return True

    return decide


reducer("gate.approved")(_decide("approved"))
reducer("gate.rejected")(_decide("rejected"))


# --- seed 003: the guardian loop (protocol/guardians/verification.py) --------------------------
_VERIFICATION_STEPS = {
    "guardian.verification_started": "started",
    "guardian.verdict_recorded": "recorded",
    "guardian.verdict_applied": "applied",
}


@reducer("guardian.assigned")
def _guardian_assigned(task: dict[str, Any], event: Event) -> bool:
    assignment = event.payload["assignment"]
    task["verification"] = {"assignment": assignment["id"], "guardian": assignment["guardian"], "step": "assigned"}
    return True


def _verification_step(task: dict[str, Any], event: Event) -> bool:
    current = task.get("verification")
    if not isinstance(current, dict) or current.get("assignment") != event.payload.get("assignmentId"):
        return False
    updated = {**current, "step": _VERIFICATION_STEPS[event.type]}
    if event.type == "guardian.verdict_recorded":
        updated.update(verdict=event.payload["verdict"]["id"], status=event.payload["verdict"]["status"])
    if event.type == "guardian.verdict_applied":
        updated["appliedAt"] = event.ts
    task["verification"] = updated
    return True


for _type in _VERIFICATION_STEPS:
    reducer(_type)(_verification_step)


@reducer("guardian.configured")
def _guardian_configured(task: dict[str, Any], event: Event) -> bool:
    task["guardian"] = dict(event.payload["guardian"])
    return True


# --- seed 002: delegation (protocol/coordination/delegation.py) ----------------------------------
@reducer("task.delegated")
def _delegated(task: dict[str, Any], event: Event) -> bool:
    worker = dict(event.payload["worker"])
    for index, existing in enumerate(task["workers"]):
        if existing.get("id") == worker["id"]:
            task["workers"][index] = {**existing, **worker}
            return True
    task["workers"].append(worker)
    return True


@reducer("task.undelegated")
def _undelegated(task: dict[str, Any], event: Event) -> bool:
    """A worker taken off the task (a stalled member's work reassigned): it owes nothing more."""
    before = len(task["workers"])
    task["workers"] = [worker for worker in task["workers"] if worker.get("id") != event.payload["workerId"]]
    return len(task["workers"]) != before
