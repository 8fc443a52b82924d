"""``teamdeck hook``: the one command for Claude Code's hooks, and ``hook install``.

``teamdeck hook`` reads a hook's payload on stdin, records it as an event of the team's
session log (protocol/team/hooks.py says what each event does), prints what the client
should take (nothing, unless ``--gate`` got a person's answer in time) and exits: it
never blocks the session unless ``--gate`` asks it to. It imports little, so a session
that fires it on every tool call does not wait for it (bench/: ``hook`` vs
``python -c pass``).

``teamdeck hook install --project|--user`` merges its entries into Claude Code's
settings.json (protocol/team/hook_settings.py).
"""

from __future__ import annotations

import argparse
import shlex
import sys
from pathlib import Path

from teamdeck.cli.commands import summary
from teamdeck.cli.common import Output
from teamdeck.store.workspace import Workspace

GATE_SLACK_S = 30
"""How much longer than ``--gate`` the client lets the hook run."""


def register_hook(
    subparsers: argparse._SubParsersAction[argparse.ArgumentParser], common: argparse.ArgumentParser
) -> None:
    hook = subparsers.add_parser(
        "hook",
        help=summary("hook"),
        description=(
            "Run by Claude Code as a hook command: read the hook's JSON payload on stdin and record it as an "
            "event of the team's session log (sessions/TEAM.jsonl): idle teammates, tasks created and completed, "
            "notifications, elicitations; a PermissionRequest waits in the decision queue, and the tool running "
            "(or being denied) in the session closes it there. `teamdeck hook install` adds the hooks to "
            "Claude Code's settings.json."
        ),
        parents=[common],
    )
    hook.add_argument("action", nargs="?", choices=("install",), help="install: add teamdeck's hooks to settings.json")
    hook.add_argument("--team", metavar="TEAM", help="the team (default: the payload's team_name, else session-<id>)")
    hook.add_argument(
        "--as", dest="member", metavar="MEMBER", help="the member (default: teammate_name, else team-lead)"
    )
    hook.add_argument(
        "--gate",
        type=float,
        default=0.0,
        metavar="SECONDS",
        help="PermissionRequest and Elicitation: wait up to SECONDS for a person's answer in teamdeck and give it "
        "to the client (default 0: never block; the client asks in its terminal)",
    )
    where = hook.add_mutually_exclusive_group()
    where.add_argument("--project", action="store_true", help="install: the project's .claude/settings.json (default)")
    where.add_argument("--user", action="store_true", help="install: ~/.claude/settings.json")
    hook.add_argument(
        "--project-dir", metavar="DIR", help="install --project: the project (default: the current directory)"
    )
    hook.set_defaults(handler=_run, finish_interrupted=False)


def _run(args: argparse.Namespace, ws: Workspace) -> Output:
    if args.action == "install":
        return _install(args, ws)
    from teamdeck.protocol.team.hooks import handle, parse_payload

    result = handle(ws, parse_payload(sys.stdin.read()), team=args.team, member=args.member, gate_s=args.gate)
    if result.output:
        import json

        return Output(result.output, text=json.dumps(result.output))
    return Output({"ok": True, "team": result.team, "member": result.member, "event": result.event})


def hook_command(ws: Workspace, extra: list[str]) -> str:
    """The command line the settings run: this installation's ``teamdeck`` (the venv's
    script when there is one, else this Python with ``-m teamdeck``) on this workspace."""
    script = Path(sys.executable).with_name("teamdeck")
    words = [str(script)] if script.exists() else [sys.executable, "-m", "teamdeck"]
    return shlex.join([*words, "hook", "--workspace", str(ws.root), *extra])


def _install(args: argparse.Namespace, ws: Workspace) -> Output:
    from teamdeck.clock import utc_now
    from teamdeck.protocol.team.hook_settings import install

    if args.user:
        path = Path.home() / ".claude" / "settings.json"
    else:
        path = Path(args.project_dir or ".").resolve() / ".claude" / "settings.json"
    extra = [*(["--team", args.team] if args.team else []), *(["--as", args.member] if args.member else [])]
    extra += ["--gate", f"{args.gate:g}"] if args.gate else []
    timeout = int(args.gate) + GATE_SLACK_S if args.gate else None  # the client must not kill a waiting hook
    done = install(path, hook_command(ws, extra), utc_now().strftime("%Y%m%dT%H%M%SZ"), timeout)
    if not done.added:
        text = f"{path}: teamdeck's hooks are there already; nothing was written"
    else:
        kept = f" (the earlier file is {done.backup.name})" if done.backup else ""
        text = f"{path}: added the {', '.join(done.added)} hooks{kept}"
    data = {"settings": str(path), "added": list(done.added), "backup": str(done.backup) if done.backup else None}
    return Output(data, text=text)
