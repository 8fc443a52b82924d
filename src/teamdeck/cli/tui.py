"""``teamdeck tui``: open the live supervisor on a workspace."""

from __future__ import annotations

import argparse

from teamdeck.cli.commands import summary
from teamdeck.cli.common import Output, refuse_outside_a_workspace
from teamdeck.cli.hosts import add_host_options, hosts_asked
from teamdeck.store.workspace import Workspace


def register_tui(
    subparsers: argparse._SubParsersAction[argparse.ArgumentParser], common: argparse.ArgumentParser
) -> None:
    tui = subparsers.add_parser("tui", parents=[common], help=summary("tui"))
    tui.add_argument("--no-watch", action="store_true", help="do not watch the files (refresh only after own actions)")
    tui.add_argument("--poll", action="store_true", help="poll for changes instead of inotify (network filesystems)")
    add_host_options(tui)
    tui.set_defaults(handler=_tui, several_workspaces=True)


def _tui(args: argparse.Namespace, ws: Workspace) -> Output:
    hosts = hosts_asked(args)
    if hosts is not None:
        from teamdeck.tui.hosts.app import HostsApp  # Textual is imported only for the TUI

        over_hosts = HostsApp(hosts)
        over_hosts.run()
        return _ended(over_hosts.return_code)
    refuse_outside_a_workspace(args, ws, "tui")
    from teamdeck.tui import open_app  # Textual is imported only for the TUI

    app = open_app(ws, watch=not args.no_watch, force_polling=True if args.poll else None)
    app.run()
    return _ended(app.return_code)


def _ended(return_code: int | None) -> Output:
    if return_code:  # Textual printed what stopped it; a shell must not read success
        return Output(data={"ok": False}, exit_code=70, warnings=["the TUI stopped on an internal error (above)"])
    return Output(data={"ok": True})
