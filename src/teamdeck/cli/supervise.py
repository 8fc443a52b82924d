"""``teamdeck supervise [--once] [--interval S]``: the automatic step by hand or in a loop
(protocol/autowork/step.py, the same call the runner makes after each change): plans
advance, tasks under review are verified, stalled members nudged or asked about.
"""

from __future__ import annotations

import argparse
import json
import time
from typing import Any

from teamdeck.cli.commands import summary
from teamdeck.cli.common import Output
from teamdeck.protocol.autowork.step import Supervision, supervise
from teamdeck.store.workspace import Workspace


def register_supervise(
    subparsers: argparse._SubParsersAction[argparse.ArgumentParser], common: argparse.ArgumentParser
) -> None:
    parser = subparsers.add_parser("supervise", help=summary("supervise"), parents=[common])
    parser.add_argument("--once", action="store_true", help="take the steps due now, then exit")
    parser.add_argument(
        "--interval",
        type=float,
        default=30.0,
        metavar="SECONDS",
        help="without --once: look again this often (default 30; stalls are due by the clock, not by a change)",
    )
    parser.set_defaults(handler=_supervise)


def _data(result: Supervision) -> dict[str, Any]:
    return {
        "ok": not result.problems,
        "enabled": result.enabled,
        "steps": [
            {"kind": step.kind, "subject": step.subject, "cause": step.cause, "summary": step.summary}
            for step in result.steps
        ],
        "problems": result.problems,
        "nextInSeconds": result.next_in_s,
    }


def _lines(result: Supervision) -> list[str]:
    if not result.enabled:
        return ["autowork is off (.teamdeck.yaml autowork.enabled: false): nothing was done"]
    return [step.line for step in result.steps]


def _supervise(args: argparse.Namespace, ws: Workspace) -> Output:
    ws.require_writable("take the automatic steps")  # every step writes: say so once, not at each look
    if args.once:
        result = supervise(ws)
        return Output(
            data=_data(result),
            text="\n".join(_lines(result) or ["nothing is due"]),
            warnings=result.problems,
            exit_code=1 if result.problems else 0,
        )
    as_json = getattr(args, "json", False)
    while True:  # until Ctrl-C / SIGTERM (the CLI exits 130)
        result = supervise(ws)
        if as_json and (result.steps or result.problems):
            print(json.dumps(_data(result), ensure_ascii=False), flush=True)
        elif not as_json:
            for line in [*_lines(result), *(f"problem: {line}" for line in result.problems)]:
                print(line, flush=True)
        due = result.next_in_s if result.next_in_s is not None else args.interval
        time.sleep(max(0.5, min(args.interval, due + 0.05)))  # a nudge due sooner is not late
