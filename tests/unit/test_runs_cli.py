"""``teamdeck runs``: one line a run, saying how long it ran and how it exited, so a
person reads a quick failure (``exit 2`` after a few seconds) from a long run that
was stopped without opening each one with ``runs show``."""

from __future__ import annotations

from datetime import timedelta

from teamdeck.cli.main import build_parser
from teamdeck.clock import iso
from teamdeck.model.run import RunRecord
from teamdeck.store.runs import write_run
from teamdeck.store.workspace import Workspace


def _run(ws: Workspace, suffix: str, started_ago_s: float, took_s: float | None, **fields: object) -> None:
    """A run of crew/dev started ``started_ago_s`` before the clock's now, ended
    ``took_s`` later (None: still running)."""
    start = ws.clock() - timedelta(seconds=started_ago_s)
    end = {"endedAt": iso(start + timedelta(seconds=took_s)), "state": "ended"} if took_s is not None else {}
    record = {
        "id": f"r-01m8cg00000000000000000{suffix}",
        "team": "crew",
        "member": "dev",
        "runtime": "command",
        "trigger": "message",
        "createdAt": iso(start),
        "startedAt": iso(start),
        **end,
        **fields,
    }
    write_run(ws, RunRecord.model_validate(record))


def test_each_run_says_how_long_it_ran_and_its_exit_status(ws: Workspace) -> None:
    _run(ws, "001", 600, 90, outcome="succeeded", exitStatus=0)
    _run(ws, "002", 300, 4, outcome="failed", exitStatus=2)
    _run(ws, "003", 200, 0, outcome="lost")  # its runner died: the end recorded is not when it ended
    _run(ws, "004", 45, None)  # going: so far
    args = build_parser("runs").parse_args(["runs"])
    lines = args.handler(args, ws).text.splitlines()
    after_created = [line.split("Z  ", 1)[1].split() for line in lines]  # createdAt ends in Z
    assert after_created == [["1m30s", "exit", "0"], ["4s", "exit", "2"], ["-", "-"], ["45s", "-"]]
