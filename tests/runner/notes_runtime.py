"""A throwaway runtime, added from outside teamdeck as a package would (an entry point of
the ``teamdeck.runtimes`` group, registered by tests/runner/test_runner_plugged_runtime.py):
``runtime: notes`` runs a tiny agent of its own that writes its own log format.

The agent prints ``heard|<text>`` for each message it was woken for, ``note|<text>`` for
each of its ``notes``, and ``spent|<dollars>`` last; the runtime reads that log as
``heard: ...``, ``✎ ...`` and ``spent $...`` lines, and the cost from the ``spent`` line.
"""

from __future__ import annotations

import sys
from pathlib import Path

from pydantic import Field

from teamdeck.model.agents import AgentConfig, RuntimeOptions
from teamdeck.runtime import log_text
from teamdeck.runtime.spec import Launch, Outcome, Problem, RunRequest

AGENT = """
import json, os, sys
for message in json.load(open(os.environ["TEAMDECK_RUN_MESSAGES"])):
    print("heard|" + message["text"])
for note in sys.argv[2:]:
    print("note|" + note)
print("spent|" + sys.argv[1])
"""


class NotesOptions(RuntimeOptions):
    """What a ``runtime: notes`` member says, and what its run costs."""

    notes: list[str] = Field(default_factory=list, description="what the agent writes, one line each")
    spend_usd: float = Field(default=0.0, ge=0, description="the cost each run reports")


class NotesRuntime:
    """See the module."""

    name = "notes"
    options = NotesOptions

    def check(self, config: AgentConfig) -> list[Problem]:
        return [] if NotesOptions.of(config).notes else [Problem("notes", "say at least one note")]

    def launch(self, request: RunRequest) -> Launch:
        options = NotesOptions.of(request.config)
        argv = (sys.executable, "-c", AGENT, str(options.spend_usd), *options.notes)
        return Launch(argv=argv, env=request.base_env(), cwd=request.workspace, marks_read=True)

    def outcome(self, request: RunRequest, exit_status: int | None) -> Outcome:
        spent = [line for line in _lines(request.output_log) if line.startswith("spent|")]
        return Outcome(cost_usd=float(spent[-1].partition("|")[2])) if spent else Outcome()

    def read_log(self, log: Path, limit: int) -> str:
        return log_text.readable_tail(log, limit, _readable)


def _readable(raw: str) -> list[str]:
    kind, _, said = raw.partition("|")
    shown = {"heard": f"heard: {said}", "note": f"✎ {said}", "spent": f"spent ${said}"}.get(kind, raw)
    return log_text.plain_lines(shown)


def _lines(log: Path) -> list[str]:
    try:
        return log.read_text(encoding="utf-8").splitlines()
    except OSError:
        return []


NOTES = NotesRuntime()
