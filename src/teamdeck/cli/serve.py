"""``teamdeck serve``: the live workspace as a stream of JSON lines, and the actions a
client asks for (docs/serve.md). ``--stdio`` is what another machine's teamdeck starts
over SSH: the command is fixed, and the workspace is named in the client's hello, so
no shell text is ever built from configuration."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from teamdeck.cli.commands import summary
from teamdeck.cli.common import NotAWorkspace, Output, is_workspace, workspace_from
from teamdeck.store.workspace import Workspace


def register_serve(
    subparsers: argparse._SubParsersAction[argparse.ArgumentParser], common: argparse.ArgumentParser
) -> None:
    serve = subparsers.add_parser(
        "serve",
        help=summary("serve"),
        description=(
            "Serve the live workspace as a stream of JSON lines: a first state, then what changed, and the "
            "result of each action a client asks for (the TUI's actions). The protocol: docs/serve.md."
        ),
        parents=[common],
    )
    serve.add_argument(
        "--stdio",
        action="store_true",
        required=True,
        help="on standard input and output (what `teamdeck tui --host` starts over SSH)",
    )
    serve.add_argument("--no-watch", action="store_true", help=argparse.SUPPRESS)  # tests push changes themselves
    serve.set_defaults(handler=_serve, finish_interrupted=False)


def _serve(args: argparse.Namespace, ws: Workspace) -> Output:
    from teamdeck.serve.session import Session

    def open_workspace(named: str | None) -> Workspace:
        if named is None:
            chosen = ws
        else:
            if not Path(named).is_absolute():
                raise NotAWorkspace(f"{named} is not an absolute path; a client names the workspace by its full path")
            chosen = workspace_from(argparse.Namespace(workspace=named, read_only=getattr(args, "read_only", False)))
        if not is_workspace(chosen.root):
            raise NotAWorkspace(f"{chosen.root} is not a teamdeck workspace (no tasks/, teams/ or settings)")
        if not chosen.read_only:
            from teamdeck.protocol.effects.interrupted import complete_pending

            complete_pending(chosen)  # what a crash interrupted is finished before it is shown
        return chosen

    code = Session(open_workspace, sys.stdin.buffer, sys.stdout.buffer, watch=not args.no_watch).run()
    return Output(data={"ok": code == 0}, exit_code=code)
