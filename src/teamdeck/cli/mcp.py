"""``teamdeck mcp``: serve the coordination tools to an agent over MCP, acting as one
member of a team (stdio by default, streamable HTTP with ``--http``)."""

from __future__ import annotations

import argparse

from teamdeck.cli.commands import summary
from teamdeck.cli.common import Output
from teamdeck.mcp_server.tools import help_text
from teamdeck.store.workspace import Workspace


def register_mcp(
    subparsers: argparse._SubParsersAction[argparse.ArgumentParser], common: argparse.ArgumentParser
) -> None:
    server = subparsers.add_parser(
        "mcp",
        help=summary("mcp"),
        description=(
            "Serve teamdeck's coordination tools to an agent over MCP (Model Context Protocol), acting as "
            "MEMBER of TEAM: the member sends the messages, delegates, reports and asks for decisions. "
            "stdio by default (the agent runtime starts this command); --http serves the streamable HTTP "
            "transport at http://HOST:PORT/mcp for agents elsewhere."
        ),
        epilog=help_text(),
        formatter_class=argparse.RawDescriptionHelpFormatter,
        parents=[common],
    )
    server.add_argument("--team", required=True, metavar="TEAM", help="the team (teams/TEAM/config.json)")
    server.add_argument(
        "--as", dest="member", required=True, metavar="MEMBER", help="the member the tools act as (must be on the team)"
    )
    server.add_argument(
        "--http",
        metavar="HOST:PORT",
        help="serve streamable HTTP instead of stdio (e.g. 127.0.0.1:8765; needs --token-env, or --no-token on loopback)",
    )
    token = server.add_mutually_exclusive_group()
    token.add_argument(
        "--token-env",
        metavar="VAR",
        help="require 'Authorization: Bearer <token>' with the token in $VAR (required unless --no-token)",
    )
    token.add_argument(
        "--no-token",
        action="store_true",
        help="with --http on loopback: ask no token (every process and user of this machine may act as MEMBER)",
    )
    server.add_argument(
        "--channel",
        action="store_true",
        help=(
            "also be a Claude Code channel (stdio): push what teamdeck writes for MEMBER into its running session "
            "and bring the session's permission prompts into the decision queue (README, 'Channels')"
        ),
    )
    server.set_defaults(handler=_serve)


def _serve(args: argparse.Namespace, ws: Workspace) -> Output:
    # The MCP SDK is imported here, not at start-up: every other command stays fast.
    from teamdeck.mcp_server.seat import take_seat

    seat = take_seat(ws, args.team, args.member)
    if args.channel:
        if args.http is not None:
            raise _usage("--channel serves stdio (Claude Code takes channel notifications from stdio servers)")
        import anyio

        from teamdeck.mcp_server.channel import serve

        anyio.run(serve, seat)
        return Output({"ok": True})
    if args.http is None:
        if args.token_env is not None or args.no_token:
            given = "--token-env" if args.token_env is not None else "--no-token"
            raise _usage(f"{given} needs --http (stdio has no requests to authenticate)")
        from teamdeck.mcp_server.server import build_server

        build_server(seat).run("stdio")
        return Output({"ok": True})
    from teamdeck.listen import parse_address, token_from
    from teamdeck.mcp_server.http import PATH, serve_http

    address = parse_address(args.http, "--http")
    token = token_from(args.token_env, address, "--http", no_token=args.no_token)
    where = f"{seat.team}/{seat.member}"
    serving: list[bool] = []

    def started() -> None:
        serving.append(True)
        print(f"teamdeck: MCP tools as {where} for {ws.root} on {address.url('http', PATH)}", flush=True)

    try:
        serve_http(seat, address, token, started=started)
    finally:  # also on Ctrl-C and SIGTERM, like `forge serve`; not when it never started
        if serving:
            print(f"teamdeck: MCP server for {where} stopped", flush=True)
    return Output({"ok": True})


def _usage(message: str) -> Exception:
    from teamdeck.errors import Refused

    error = Refused(message)
    error.exit_code = 2
    return error
