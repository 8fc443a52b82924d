"""A coordinator plan of six tasks in three waves, taken phase by phase with the protocol
functions (seed 002 + seed 003), for the read-model and TUI tests.

Waves: Schema, Fixtures, Build | Store (Schema, Fixtures), Package (Build) | Release
notes (Store, Package). Package is checked by the ``command`` guardian ``test -f dist-ok``
(run in the workspace root), so it fails verification until that file exists.

Everything is deterministic: the clock ticks one second per reading from
:data:`START`, and every ULID's random part comes from a counter
(:func:`deterministic_ids`), so ids, ages and snapshots are the same on every run.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime, timedelta
from pathlib import Path

from teamdeck import ids
from teamdeck.protocol.coordination.delegation import report
from teamdeck.protocol.effects.gate_decisions import decide_gate
from teamdeck.protocol.guardians.verification import configure_guardian
from teamdeck.protocol.plans.importer import import_plan
from teamdeck.protocol.plans.machine import Advance, advance
from teamdeck.protocol.task.taskfile import load_task
from teamdeck.protocol.team.teams import add_member, create_team
from teamdeck.store.loaders import dumps_json
from teamdeck.store.workspace import Workspace

START = datetime(2026, 3, 1, 9, 0, 0, tzinfo=UTC)
PLAN_ID = "release"
MEMBERS = ["alice", "bob"]
IDS = {
    "Schema": "release.01-schema",
    "Fixtures": "release.02-fixtures",
    "Build": "release.03-build",
    "Store": "release.04-store",
    "Package": "release.05-package",
    "Release notes": "release.06-release-notes",
}
PHASES = ("imported", "executing", "failed", "completed")

PLAN = "# Release 1.0\n\nThe coordinator's notes: three waves.\n\n" + "".join(
    "@@@task\n# {title}\n## Objective\n{objective}\n## Definition of Done\n- {done}\n## Verification\n- {check}\n{depends}@@@\n\n".format(
        title=title, objective=objective, done=done, check=check, depends=f"Depends: {depends}\n" if depends else ""
    )
    for title, objective, done, check, depends in [
        ("Schema", "Define the data schema.", "schema committed", "schema lint", ""),
        ("Fixtures", "Sample data.", "fixtures exist", "load them", ""),
        ("Build", "A build script.", "make works", "make", ""),
        ("Store", "Persist records.", "round trip", "pytest tests/store", "Schema, Fixtures"),
        ("Package", "A wheel.", "wheel builds", "pip install dist/*.whl", "Build"),
        ("Release notes", "Write them.", "notes published", "read them", "Store, #5"),
    ]
)


@contextmanager
def deterministic_ids() -> Iterator[None]:
    """Every ULID made inside gets its random part from a counter (random again after)."""
    counter = itertools.count(1)
    ids.reproducible(lambda size: next(counter).to_bytes(size, "big"))
    try:
        yield
    finally:
        ids.reproducible(None)


def ticking_workspace(root: Path) -> Workspace:
    """A workspace at ``root`` whose clock moves one second per reading from :data:`START`."""
    seconds = itertools.count()
    return Workspace.at(root, clock=lambda: START + timedelta(seconds=next(seconds)), actor="human:tester")


def build(root: Path, phase: str) -> Workspace:
    """The plan in ``phase`` (one of :data:`PHASES`) in a new workspace at ``root``.

    - ``imported``: PLANNING, its approval gate waits in the queue;
    - ``executing``: approved and started; wave 1 delegated, Schema reported;
    - ``failed``: wave 2 verified: Package FAILed, its gate waits (NEEDS_FIX);
    - ``completed``: retried, fixed, wave 3 done: COMPLETED.
    """
    root.mkdir(parents=True, exist_ok=True)
    ws = ticking_workspace(root)
    with deterministic_ids():
        _imported(ws)
        if phase == "imported":
            return ws
        _executing(ws)
        if phase == "executing":
            return ws
        _failed(ws)
        if phase == "failed":
            return ws
        _completed(ws)
    return ws


def run(ws: Workspace) -> Advance:
    """``teamdeck plan run release --to alice --to bob`` (guardians in threads)."""
    return advance(ws, PLAN_ID, members=MEMBERS, isolation="thread")


def done(ws: Workspace, title: str, agent: str, summary: str) -> None:
    """The worker reports the task completed (report_to_parent)."""
    report(ws, IDS[title], agent, status="completed", summary=summary)


def fail_gate(ws: Workspace) -> str:
    """The id of Package's open verification-failed gate."""
    gate = next(gate for gate in load_task(ws, IDS["Package"]).open_gates if gate.kind == "verification-failed")
    return gate.id


def _imported(ws: Workspace) -> None:
    create_team(ws, "crew", description="release crew")
    for member in MEMBERS:
        add_member(ws, "crew", member)
    import_plan(ws, PLAN, source="release.md", team="crew")
    configure_guardian(ws, IDS["Package"], code="command", command="test -f dist-ok", cwd=".")


def _executing(ws: Workspace) -> None:
    decide_gate(ws, PLAN_ID, "plan-approval", "approve", "go")
    assert run(ws).plan.state == "EXECUTING"
    done(ws, "Schema", "alice", "schema committed")


def _failed(ws: Workspace) -> None:
    done(ws, "Fixtures", "bob", "fixtures written")
    done(ws, "Build", "alice", "make works")
    assert run(ws).plan.currentWave == 2
    done(ws, "Store", "alice", "store round-trips")
    done(ws, "Package", "bob", "wheel built")
    assert run(ws).plan.state == "NEEDS_FIX"


def _completed(ws: Workspace) -> None:
    decide_gate(ws, IDS["Package"], fail_gate(ws), "approve", "fix the wheel")
    (ws.root / "dist-ok").write_text("")
    done(ws, "Package", "bob", "wheel fixed")
    assert run(ws).plan.currentWave == 3
    done(ws, "Release notes", "alice", "notes out")
    assert run(ws).plan.state == "COMPLETED"


def steady_verdicts(ws: Workspace) -> None:
    """Rewrite the verdicts' wall-clock parts (``durationS``) and the workspace's
    temporary path in their evidence with fixed values, so a screen showing them is the
    same on every run (snapshots only: the records are otherwise write-once). Both copies
    change alike, the file and its ``guardian.verdict_recorded`` event, or the verdict
    would rightly be reported as edited by hand (S18)."""
    import json

    def steady(record: dict) -> dict:
        record["durationS"] = 0.25
        evidence = record.get("evidence", {})
        if "durationS" in evidence:
            evidence["durationS"] = 0.01
        if isinstance(evidence.get("cwd"), str):
            evidence["cwd"] = evidence["cwd"].replace(str(ws.root), "<workspace>")
        return record

    for path in sorted(ws.tasks_dir.glob("*/guardian/verdicts/gv-*.json")):
        path.write_text(json.dumps(steady(json.loads(path.read_text())), indent=2) + "\n")
    for log in sorted(ws.tasks_dir.glob("*/events.jsonl")):
        lines = []
        for line in log.read_text().splitlines():
            event = json.loads(line)
            if event.get("type") == "guardian.verdict_recorded":
                steady(event["payload"]["verdict"])
                line = dumps_json(event)
            lines.append(line)
        log.write_text("\n".join(lines) + "\n")
