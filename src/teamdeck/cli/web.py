"""``teamdeck web``: the decision queue, the roster, inboxes and runs in a browser or on
a phone (docs/web.md), over the same links as ``teamdeck tui --host``: the workspace
here (``-w``), the hosts named (``--host``) or the hosts file.

Its first line of output is the address with a fresh token, printed once; the page is
served on loopback unless told otherwise, and beyond it only over TLS or when the
person says, by name, that the network is private (``--insecure-bind``)."""

from __future__ import annotations

import argparse
import getpass
import re
import secrets
import sys
from pathlib import Path

from teamdeck.cli.commands import summary
from teamdeck.cli.common import NotAWorkspace, Output, is_workspace
from teamdeck.cli.hosts import add_host_options, hosts_asked
from teamdeck.errors import Refused
from teamdeck.store.workspace import Workspace

DEFAULT_LISTEN = "127.0.0.1:8765"
WHO_RE = re.compile(r"[A-Za-z0-9._@-]{1,40}")
"""Who the page acts for, as ``human:web:<who>`` (the stream's rule for a person)."""
MIN_TOKEN_CHARS = 16
STOP_S = 1
"""On Ctrl+C, how long the pages' open event streams (which never end by themselves) are
given before they are closed: a form being answered has its reply by then."""


def register_web(
    subparsers: argparse._SubParsersAction[argparse.ArgumentParser], common: argparse.ArgumentParser
) -> None:
    web = subparsers.add_parser(
        "web",
        parents=[common],
        help=summary("web"),
        description=(
            "Serve the decision queue, the teams, inboxes, conversations and run logs as a web page that "
            "updates live, with the forms that answer a decision and message a member. Prints the address "
            "with its token first. Reach it from a phone through `ssh -L 8765:127.0.0.1:8765 box` or a "
            "tailnet, not by opening a port. See docs/web.md."
        ),
    )
    web.add_argument("--listen", metavar="HOST:PORT", default=DEFAULT_LISTEN, help=f"where (default {DEFAULT_LISTEN})")
    web.add_argument(
        "--token-file", metavar="FILE", type=Path, help="read the token from FILE instead of a fresh random one"
    )
    web.add_argument("--who", metavar="NAME", help="who answers, recorded as human:web:NAME (default: your login)")
    web.add_argument("--tls-cert", metavar="FILE", help="serve over HTTPS with this certificate (with --tls-key)")
    web.add_argument("--tls-key", metavar="FILE", help="the certificate's private key")
    web.add_argument(
        "--insecure-bind",
        action="store_true",
        help="allow an address beyond loopback without TLS: the token and every answer travel in clear text",
    )
    add_host_options(web)
    web.set_defaults(handler=_web, finish_interrupted=False, several_workspaces=True)


def _web(args: argparse.Namespace, ws: Workspace) -> Output:
    import uvicorn

    from teamdeck.listen import Limits, bind, parse_address, server_config
    from teamdeck.remote.hosts import local_host
    from teamdeck.web.access import Access
    from teamdeck.web.app import create_app

    address = parse_address(args.listen, "--listen")
    if (args.tls_cert is None) != (args.tls_key is None):
        raise Refused("--tls-cert and --tls-key go together")
    secure = args.tls_cert is not None
    if not address.loopback and not secure and not args.insecure_bind:
        raise Refused(
            f"--listen {args.listen} is reachable from other machines, and without TLS the token, the session "
            "and every answer would cross the network in clear text: give --tls-cert and --tls-key, or "
            "--insecure-bind if the network is private by itself (a tailnet, a VPN). Better: keep 127.0.0.1 "
            "and reach it with `ssh -L 8765:127.0.0.1:8765 THIS-HOST`"
        )
    hosts = hosts_asked(args)
    if hosts is None:
        if not is_workspace(ws.root):
            raise NotAWorkspace(f"{ws.root} is not a teamdeck workspace (no tasks/, teams/ or settings)")
        hosts = [local_host(ws.root, taken=set())]
    who = args.who or _login()
    if not WHO_RE.fullmatch(who):
        raise Refused(f"--who {who[:60]!r}: 1 to 40 of A-Z a-z 0-9 . _ @ -")
    token = _token(args.token_file)
    app = create_app(hosts, Access(token, secure=secure), who=who, read_only=ws.read_only)
    listening = bind(address.host, address.port, "the web page")
    with listening:
        print(address.url("https" if secure else "http", f"/?token={token}"), flush=True)
        names = ", ".join(host.name for host in hosts)
        print(f"teamdeck: the web page of {names}, answering as human:web:{who}", file=sys.stderr, flush=True)
        config = server_config(  # every listener's limits (B30): heads and bodies timed, connections capped
            app,
            Limits(),  # a form over web/app.py's 64 KiB is its own 413, whole; this caps the rest
            log_level="warning",
            lifespan="on",
            ssl_certfile=args.tls_cert,
            ssl_keyfile=args.tls_key,
            timeout_graceful_shutdown=STOP_S,
        )
        uvicorn.Server(config).run(sockets=[listening])
    return Output(data={"ok": True})


def _token(path: Path | None) -> str:
    """A fresh random token, or the one in ``path`` (for scripts that open the page).

    Raises:
        Refused: the file cannot be read, or holds a token too short to guess hard.
    """
    if path is None:
        return secrets.token_urlsafe(24)
    try:
        token = path.expanduser().read_text(encoding="utf-8").strip()
    except (OSError, UnicodeDecodeError) as err:
        raise Refused(f"--token-file {path}: cannot be read ({err})") from None
    if len(token) < MIN_TOKEN_CHARS or not re.fullmatch(r"[A-Za-z0-9._~-]+", token):
        raise Refused(
            f"--token-file {path}: the token must be at least {MIN_TOKEN_CHARS} of A-Z a-z 0-9 . _ ~ - (one line)"
        )
    return token


def _login() -> str:
    try:
        return re.sub(r"[^A-Za-z0-9._@-]", "-", getpass.getuser())[:40] or "person"
    except (KeyError, OSError):
        return "person"
