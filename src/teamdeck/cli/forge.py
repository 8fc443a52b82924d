"""``teamdeck forge serve | replay | comment | deliver | catch-up | issues``: issue-driven teams (seed 001)."""

from __future__ import annotations

import argparse
import logging
import os
from pathlib import Path

from teamdeck.adapters.catchup_loop import CATCH_UP_EVERY_S, CatchUpLoop
from teamdeck.adapters.forge_outbox import deliver_outbox
from teamdeck.adapters.gitea_api import ENV_TOKEN, ENV_URL, api_from_env, require_api
from teamdeck.cli.commands import summary
from teamdeck.cli.common import Output, command_group
from teamdeck.errors import Refused
from teamdeck.listen import bind
from teamdeck.protocol.checks.hygiene import sweep_temp_files
from teamdeck.protocol.forge.catchup import catch_up
from teamdeck.protocol.forge.outbox import pending, read_outbox
from teamdeck.store.workspace import Workspace
from teamdeck.text import one_line
from teamdeck.view.readers.issues import read_issue_tree
from teamdeck.view.snapshot.issues import IssueView

ENV_SECRET = "TEAMDECK_FORGE_SECRET"
DEFAULT_LISTEN = "127.0.0.1:8787"


def register_forge(
    subparsers: argparse._SubParsersAction[argparse.ArgumentParser], common: argparse.ArgumentParser
) -> None:
    actions = command_group(subparsers, "forge", common, help=summary("forge"))
    serve = actions.add_parser("serve", help=f"receive Gitea webhooks (secret from ${ENV_SECRET})", parents=[common])
    serve.add_argument("--listen", default=DEFAULT_LISTEN, metavar="HOST:PORT", help=f"default {DEFAULT_LISTEN}")
    serve.add_argument("--max-body", type=int, default=None, metavar="BYTES", help="largest delivery accepted")
    serve.add_argument(
        "--catch-up-every",
        type=float,
        default=CATCH_UP_EVERY_S,
        metavar="SECONDS",
        help=f"with $TEAMDECK_FORGE_URL and $TEAMDECK_FORGE_TOKEN set, catch up at start and this often (default {CATCH_UP_EVERY_S:g}; 0: never)",
    )
    serve.set_defaults(handler=_serve)

    replay = actions.add_parser(
        "replay", help="post recorded deliveries (folders of headers.json + body.json) to a server", parents=[common]
    )
    replay.add_argument("folders", nargs="+", metavar="DIR")
    replay.add_argument("--url", default=f"http://{DEFAULT_LISTEN}/hook", help="the server's hook URL")
    replay.set_defaults(handler=_replay)

    comment = actions.add_parser(
        "comment", help="post a comment on a Gitea issue ($TEAMDECK_FORGE_URL, $TEAMDECK_FORGE_TOKEN)", parents=[common]
    )
    comment.add_argument("repo", metavar="OWNER/REPO")
    comment.add_argument("number", type=int, metavar="N")
    comment.add_argument("text", metavar="TEXT")
    comment.set_defaults(handler=_comment)

    deliver = actions.add_parser(
        "deliver", help="post what waits in forge/outbox.jsonl on Gitea (round-review outcomes)", parents=[common]
    )
    deliver.set_defaults(handler=_deliver)

    catchup = actions.add_parser(
        "catch-up",
        help="read what changed on Gitea since the last catch-up and apply it as its webhooks would ($TEAMDECK_FORGE_URL, $TEAMDECK_FORGE_TOKEN)",
        parents=[common],
    )
    catchup.set_defaults(handler=_catch_up)

    issues = actions.add_parser("issues", help="the issues as a tree: parent, subs, who is on what", parents=[common])
    issues.set_defaults(handler=_issues)


def _serve(args: argparse.Namespace, ws: Workspace) -> Output:
    import uvicorn

    from teamdeck.listen import server_config
    from teamdeck.webhook.app import create_app, limits, parse_listen

    secret = os.environ.get(ENV_SECRET, "")
    if not secret.strip():
        raise Refused(
            f"Could not start: set ${ENV_SECRET} to the webhook's secret (Gitea signs every delivery with it)"
        )
    try:
        host, port = parse_listen(args.listen)
    except ValueError as err:
        raise Refused(f"Could not start: --listen {err}") from None
    ws.require_writable("serve Gitea webhooks")
    sweep_temp_files(ws)  # what a crash left (F1), each removal logged
    logging.getLogger("teamdeck.forge").setLevel(logging.INFO)
    app = create_app(ws, secret)
    listening = bind(host, port, "the forge webhook server")
    print(f"teamdeck: forge webhooks for {ws.root} on http://{args.listen}/hook", flush=True)
    api = api_from_env(ws)
    catching = CatchUpLoop(ws, api, args.catch_up_every) if api is not None and args.catch_up_every > 0 else None
    if catching is None:
        print(f"teamdeck: no catch-up (set ${ENV_URL} and ${ENV_TOKEN} to read missed changes from Gitea)", flush=True)
    with listening:
        if catching is not None:
            catching.start()
        try:
            config = server_config(app, limits(args.max_body), log_level="warning")
            uvicorn.Server(config).run(sockets=[listening])
        finally:
            if catching is not None:
                catching.stop()
    return Output(data={"ok": True}, text="teamdeck: forge server stopped")


def _catch_up(_args: argparse.Namespace, ws: Workspace) -> Output:
    ws.require_writable("catch up with Gitea")
    done = catch_up(ws, require_api(ws, "catch up with Gitea"))
    return Output(
        data={"ok": True, "effects": done.lines, "deliveries": [o.to_json() for o in done.outcomes]},
        text="\n".join(done.lines) or "nothing was missed: every change on Gitea had its effect",
    )


def _replay(args: argparse.Namespace, ws: Workspace) -> Output:
    from teamdeck.webhook.replay import replay

    done = replay(args.url, [Path(folder) for folder in args.folders])
    lines = [f"{item.status} {item.answer.get('outcome', '?')} {item.folder}" for item in done]
    failed = [item for item in done if item.status >= 400]
    return Output(
        data={
            "ok": not failed,
            "deliveries": [{"folder": str(item.folder), "status": item.status, "answer": item.answer} for item in done],
        },
        text="\n".join(lines),
        exit_code=1 if failed else 0,
    )


def _comment(args: argparse.Namespace, ws: Workspace) -> Output:
    api = require_api(ws, f"comment on {args.repo}#{args.number}")
    comment_id = api.comment(args.repo, args.number, args.text)
    return Output(
        data={"ok": True, "repo": args.repo, "number": args.number, "commentId": comment_id},
        text=f"commented on {args.repo}#{args.number}" + (f" (comment {comment_id})" if comment_id else ""),
    )


def _deliver(_args: argparse.Namespace, ws: Workspace) -> Output:
    waiting = pending(ws)
    lines = deliver_outbox(ws, require_api(ws, "deliver forge/outbox.jsonl")) if waiting else []
    failed = [entry for entry in read_outbox(ws) if entry.state == "failed"]
    return Output(
        data={"ok": not failed, "delivered": lines, "failed": [entry.id for entry in failed]},
        text="\n".join(lines) or "nothing waits in forge/outbox.jsonl",
        exit_code=1 if failed else 0,
    )


def issue_line(row: IssueView) -> str:
    """One line of ``forge issues``: the tree, state, assignee, depends, PR and review."""
    indent = "  └ " if row.depth else ""
    parts = [f"{indent}#{row.number}", row.shown_status]
    parts.append(", ".join(row.assignees) or "unassigned")
    if row.depends:
        waits = f" (waits for {', '.join(f'#{n}' for n in row.waiting_on)})" if row.waiting_on else ""
        parts.append("depends " + ", ".join(f"#{n}" for n in row.depends) + waits)
    if row.pull:
        parts.append(f"PR {row.pull}" + (f" {row.branch}" if row.branch else ""))
    if row.review:
        parts.append(
            f"review {row.review}"
            + (f" ({row.retries} {'retry' if row.retries == 1 else 'retries'})" if row.retries else "")
        )
    if row.work:
        parts.append(f"asked {row.work}")
    if row.reported:
        parts.append(f"reported by {row.reported}")
    if row.rounds:
        parts.append(f"round {row.rounds}" + (f" {row.outcome}" if row.outcome else f" waits ({row.round_task})"))
    if row.silent:
        parts.append(f"not commented yet: {', '.join(row.silent)}")
    if row.problem:
        parts.append(f"PROBLEM: {row.problem}")
    return f"{' · '.join(parts)} · {one_line(row.title, 60)}"


def _issues(args: argparse.Namespace, ws: Workspace) -> Output:
    rows, problems = read_issue_tree(ws)
    lines: list[str] = []
    repo = None
    for row in rows:
        if row.repo != repo:
            repo = row.repo
            lines.append(one_line(repo, 100))
        lines.append("  " + issue_line(row))
    if not rows:
        lines.append("no issues yet (teamdeck forge serve records them as Gitea's webhooks arrive)")
    return Output(
        data={"ok": not problems, "issues": [row.to_json() for row in rows], "problems": list(problems)},
        text="\n".join(lines),
        warnings=list(problems),
    )
