"""Runs as JSON: ``teamdeck runs --json`` and ``teamdeck runs show RUN --json``: each run
as its run.yaml has it (docs/protocol.md, "Running the agents"), plus its live state."""

from __future__ import annotations

from typing import Any

from teamdeck.model.run import RunRecord
from teamdeck.view.readers.runs import process_alive


def run_json(run: RunRecord) -> dict[str, Any]:
    """One run: every field of its run.yaml, and ``processAlive`` (its recorded process
    runs now: pid and start time match), which says whether a ``running`` record is
    believed."""
    return {**run.model_dump(mode="json", by_alias=True), "processAlive": run.live and process_alive(run)}


def runs_json(runs: list[RunRecord]) -> dict[str, Any]:
    return {"runs": [run_json(run) for run in runs]}


def run_detail_json(run: RunRecord, events: list[dict[str, Any]], tails: dict[str, str]) -> dict[str, Any]:
    return {"run": run_json(run), "events": events, "tails": tails}
