"""``teamdeck serve``: the live workspace as a stream of JSON lines, and the actions a
client asks for (docs/serve.md). ``--stdio`` is what another machine's teamdeck starts
over SSH: the command is fixed, and the workspace is named in the client's hello, so
no shell text is ever built from configuration. ``--listen`` serves it over WebSocket
to any number of clients, behind a bearer token (``--no-token`` on loopback: none)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from teamdeck.cli.commands import summary
from teamdeck.cli.common import NotAWorkspace, Output, is_workspace, workspace_from
from teamdeck.store.workspace import Workspace

STREAM_CONNECTIONS = 512
"""Readers of the stream at once (each a TUI or a web page; every one shares one state)."""


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
    where = serve.add_mutually_exclusive_group(required=True)
    where.add_argument(
        "--stdio",
        action="store_true",
        help="on standard input and output (what `teamdeck tui --host` starts over SSH)",
    )
    where.add_argument(
        "--listen",
        metavar="HOST:PORT",
        help="over WebSocket at ws://HOST:PORT/stream (e.g. 127.0.0.1:8790; needs --token-env, or --no-token on loopback)",
    )
    token = serve.add_mutually_exclusive_group()
    token.add_argument(
        "--token-env",
        metavar="VAR",
        help="with --listen: require 'Authorization: Bearer <token>' with the token in $VAR (required unless --no-token)",
    )
    token.add_argument(
        "--no-token",
        action="store_true",
        help="with --listen on loopback: ask no token (every process and user of this machine may read and act)",
    )
    serve.add_argument("--no-watch", action="store_true", help=argparse.SUPPRESS)  # tests push changes themselves
    serve.set_defaults(handler=_serve, finish_interrupted=False)


def _serve(args: argparse.Namespace, ws: Workspace) -> Output:
    if args.listen is not None:
        return _listen(args, ws)
    from teamdeck.serve.session import Session

    def open_workspace(named: str | None) -> Workspace:
        if named is None:
            return _served(ws)
        if not Path(named).is_absolute():
            raise NotAWorkspace(f"{named} is not an absolute path; a client names the workspace by its full path")
        return _served(workspace_from(argparse.Namespace(workspace=named, read_only=getattr(args, "read_only", False))))

    code = Session(open_workspace, sys.stdin.buffer, sys.stdout.buffer, watch=not args.no_watch).run()
    return Output(data={"ok": code == 0}, exit_code=code)


def _listen(args: argparse.Namespace, ws: Workspace) -> Output:
    import uvicorn

    from teamdeck.listen import BearerAuth, Limits, bind, parse_address, server_config, token_from
    from teamdeck.serve.websocket import PATH, create_app

    address = parse_address(args.listen, "--listen")
    token = token_from(args.token_env, address, "--listen", no_token=args.no_token)
    app: Any = create_app(_served(ws), watch=not args.no_watch)
    if token is not None:
        app = BearerAuth(app, token)
    listening = bind(address.host, address.port, "the stream")
    with listening:
        print(f"teamdeck: the stream of {ws.root} on {address.url('ws', PATH)}", file=sys.stderr, flush=True)
        config = server_config(app, Limits(max_connections=STREAM_CONNECTIONS), log_level="warning", lifespan="on")
        uvicorn.Server(config).run(sockets=[listening])
    return Output(data={"ok": True})


def _served(ws: Workspace) -> Workspace:
    """``ws``, checked to be a workspace, with what a crash interrupted finished first
    (unless writes are off), as every command does before it shows one.

    Raises:
        NotAWorkspace: nothing teamdeck shows is there.
    """
    if not is_workspace(ws.root):
        raise NotAWorkspace(f"{ws.root} is not a teamdeck workspace (no tasks/, teams/ or settings)")
    if not ws.read_only:
        from teamdeck.protocol.effects.interrupted import complete_pending

        complete_pending(ws)
    return ws
