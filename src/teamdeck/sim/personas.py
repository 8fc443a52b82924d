"""How each demo agent behaves, and the words it uses.

Every teammate is cooperative unless the table below says otherwise: it answers a
shutdown request by approving it (and its run ends: it is offline). The demo's cast
deliberately includes the cases a supervisor must make visible (seed 004 §8): a member
that reads a shutdown request and never answers it ("not consumed"), one that refuses,
one whose process crashes at every start (the runner retries it, then asks a person),
one whose shutdown is stuck until the person resends it, one that asks permission to
run a tool, one that plans first, and a worker that blocks on questions.

A persona is looked up by member name, so on another workspace every teammate
cooperates and every worker completes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

ShutdownAnswer = Literal["approve", "reject", "ignore", "approve-when-resent"]
"""``approve-when-resent``: the first request it ever received goes unanswered (stuck,
offered for resend in the queue); a request after it is approved."""


@dataclass(frozen=True)
class Persona:
    """One teammate's behaviour.

    Attributes:
        shutdown: how it answers a shutdown request.
        reject_reason: its reason when it refuses.
        crashed: its process dies at once, before it reads anything (a failed run).
        plan: a plan it submits for approval when it is assigned a task (plan mode).
        permission: a tool it asks permission to use when it is assigned a task:
            (tool, what for, the tool's input); the run waits a while for the answer.
        report: how its first final.json as a worker of a task reads.
    """

    shutdown: ShutdownAnswer = "approve"
    reject_reason: str = "Still in the middle of my task; ask me again when it is done."
    crashed: bool = False
    plan: str | None = None
    permission: tuple[str, str, dict[str, str]] | None = None
    report: Literal["blocked", "completed"] = "completed"


DEFAULT = Persona()

DEMO_CAST: dict[str, Persona] = {
    "api-dev": Persona(shutdown="ignore"),
    "ui-dev": Persona(
        shutdown="reject",
        reject_reason="Cart summary is half-wired to the new API; shutting down now would leave main broken.",
    ),
    "log-miner": Persona(crashed=True),
    "indexer": Persona(report="blocked"),
    "test-writer": Persona(shutdown="approve-when-resent"),
    "profiler": Persona(
        permission=(
            "Bash",
            "Record a CPU profile of the search benchmark",
            {"command": "perf record -g -- ./bench/search --queries 10000"},
        )
    ),
    "bench-runner": Persona(
        plan=(
            "# Plan: benchmark the new search index\n"
            "1. Snapshot the current index and its p50/p99 query latency\n"
            "2. Build the new index on a copy (no writes to production)\n"
            "3. Replay yesterday's 10,000 queries against both\n"
            "4. Report latency and recall side by side; no switch-over without approval\n"
        )
    ),
}
"""The demo workspace's teammates that do not simply cooperate (docs/protocol.md)."""


def persona_for(name: str) -> Persona:
    """The behaviour of teammate ``name`` (cooperative unless it is in the demo's cast)."""
    return DEMO_CAST.get(name, DEFAULT)


PROGRESS = (
    "Pushed the next slice; tests green locally.",
    "Halfway through; no surprises so far.",
    "Found an edge case with empty carts; covering it with a test.",
    "Refactored the handler so the retry path is testable.",
    "Benchmarked the change: no regression on the hot path.",
    "Waiting on CI for the last commit.",
)
"""What a teammate says when it reports progress at the end of a turn."""

QUESTIONS = (
    "Which environment should this run against first: staging or a local replica?",
    "Is it acceptable to change the public response shape, or must v1 stay byte-identical?",
    "Who signs off on the rollout: the team lead or the service owner?",
    "Can I drop the legacy fallback, or do some clients still depend on it?",
)
"""What a demo worker asks when it blocks."""

RESULTS = (
    "Done: the change is in, with tests and a short note in the README.",
    "Done: numbers collected and summarised in the report.",
    "Done: cleaned up the old code path and updated the callers.",
)
"""What a demo worker reports when it completes."""

STATUS_CHECK = "Status check"
"""The summary of the lead's check-in the demo's scenario sends now and then; a teammate
answers it with a line of :data:`PROGRESS`."""
