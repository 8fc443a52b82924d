"""``teamdeck decisions``: the decision queue of the TUI, headless.

``decisions list`` prints exactly what panel 1 shows (every kind, oldest first, each
with its key); ``decisions decide KEY approve|reject [--note N]`` answers any kind
through its spec (decisions/kinds.py), so it writes what the TUI's ``a``/``r`` and the
kind's own verb (``gate approve``, ``permission deny``, ``shutdown --resend``,
``member deactivate --force``, ``plan approve``) write. ``approve``/``reject`` mean a
kind's positive/negative answer; its own words (``allow``, ``give-up``, ``force``...)
work too.
"""

from __future__ import annotations

import argparse

from teamdeck.cli.commands import summary
from teamdeck.cli.common import Output, command_group, not_done
from teamdeck.cli.hosts import add_host_options, decide_on_host, decisions_of_hosts, hosts_asked
from teamdeck.decisions.registry import answer_decision, find_decision, spec_of
from teamdeck.errors import Refused
from teamdeck.shapes.decisions import answered_json, queue_json
from teamdeck.store.workspace import Workspace
from teamdeck.text import one_line
from teamdeck.view.figures.overview import age, overview
from teamdeck.view.refresh.build import build_snapshot


def register_decisions(
    subparsers: argparse._SubParsersAction[argparse.ArgumentParser], common: argparse.ArgumentParser
) -> None:
    actions = command_group(
        subparsers,
        "decisions",
        common,
        help=summary("decisions"),
        description=(
            "The decisions waiting for a person, every kind, as the TUI's queue shows them: "
            "`list` prints them oldest first, each with its key; `decide KEY approve|reject` answers one "
            "(a kind's own words work too: allow, deny, retry, give-up...)."
        ),
    )
    listing = actions.add_parser(
        "list", parents=[common], help="every decision waiting, oldest first (the TUI's queue)"
    )
    add_host_options(listing)
    listing.set_defaults(handler=_list, several_workspaces=True)
    decide = actions.add_parser("decide", parents=[common], help="answer a decision by its key (see decisions list)")
    decide.add_argument(
        "key", metavar="KEY", help="the decision's key, e.g. task:t1:g-w1-1 or permission:team:member:id"
    )
    decide.add_argument(
        "answer", metavar="ANSWER", help="approve or reject (a kind's own words too: allow, deny, retry, give-up...)"
    )
    decide.add_argument("--note", help="the note, feedback or reason (required where the kind says so)")
    decide.add_argument(
        "--on", metavar="HOST", help="answer it on this host (of --host, -w given twice, or the hosts file)"
    )
    add_host_options(decide)
    decide.set_defaults(handler=_decide, several_workspaces=True)


def _list(args: argparse.Namespace, ws: Workspace) -> Output:
    hosts = hosts_asked(args)
    if hosts is not None:
        return decisions_of_hosts(hosts)
    snapshot = build_snapshot(ws)
    lines = []
    for decision in snapshot.decisions:
        spec = spec_of(decision)
        positive, negative = spec.answers_for(decision)
        lines.append(
            f"{age(decision.created_at, snapshot.taken_at):>4}  {spec.label_for(decision):<8}  "
            f"{one_line(decision.key, 120)}  {one_line(decision.agent or '-', 40)}  {one_line(decision.title, 120)}"
            f"  [{positive.action}|{negative.action}]"
        )
    if not lines:
        lines = [f"no decisions waiting — {overview(snapshot).scanned()}"]
    return Output(data=queue_json(snapshot), text="\n".join(lines))


def _decide(args: argparse.Namespace, ws: Workspace) -> Output:
    if args.on is not None:
        return decide_on_host(hosts_asked(args) or [], args.on, args.key, args.answer, args.note)
    if getattr(args, "host", None) or len(getattr(args, "workspaces", [])) > 1:
        raise Refused("several workspaces are named: say which one answers with --on HOST")
    decision = find_decision(build_snapshot(ws), args.key)
    answer, answered = answer_decision(ws, decision, args.answer, args.note)
    from teamdeck.adapters.forge_outbox import deliver_if_configured  # the HTTP client only when deciding

    delivered = deliver_if_configured(ws)  # what the answer queued for Gitea (a round review's outcome)
    data = {**answered_json(decision, answer, answered), "forge": delivered}
    text = "\n".join([one_line(answered.summary, 2000), *delivered, *not_done(answered.owed)])
    return Output(data=data, text=text, exit_code=3 if answered.owed else 0)  # recorded, not done (F24)
