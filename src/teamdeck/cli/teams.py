"""Claude Code team commands: ``team``, ``send``, ``broadcast``, ``shutdown``, ``plan``,
``permission``, ``inbox`` and ``member`` (seed 004; ``doctor`` is cli/doctor.py).

Everything a team member wrote (names, summaries, message bodies, reasons) reaches
the terminal only through :func:`teamdeck.text.sanitize` / :func:`one_line` (S1).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from teamdeck.cli.commands import summary
from teamdeck.cli.common import Output, command_group
from teamdeck.cli.team_tasks import register_team_task
from teamdeck.errors import NotFound, Refused
from teamdeck.formats.registry import log_file
from teamdeck.model.team import COLORS, MEMBER_ROLES
from teamdeck.protocol.team import teams
from teamdeck.protocol.team.messaging.names import resolve_member
from teamdeck.store.workspace import Workspace
from teamdeck.text import one_line, sanitize

if TYPE_CHECKING:
    from teamdeck.formats.inboxes import InboxEntry
    from teamdeck.protocol.team.messaging.sending import Sent


class _IntermixedParser(argparse.ArgumentParser):
    """A parser that lets options sit between positionals even when the last one is
    optional (``send TEAM TO --summary S TEXT``): plain argparse would give the
    optional TEXT an empty match before ``--summary`` and then reject the real TEXT."""

    _inside = False

    def parse_known_args(  # the namespace is argparse's, or the caller's of any class
        self, args: Iterable[str] | None = None, namespace: Any = None
    ) -> tuple[Any, list[str]]:
        if self._inside:  # parse_known_intermixed_args calls back into this method
            return super().parse_known_args(args, namespace)
        self._inside = True
        try:
            return self.parse_known_intermixed_args(args, namespace)
        finally:
            self._inside = False


def _add_intermixed(
    subparsers: argparse._SubParsersAction[argparse.ArgumentParser], name: str, **options: Any
) -> argparse.ArgumentParser:
    """``subparsers.add_parser`` building an :class:`_IntermixedParser`."""
    default_class = subparsers._parser_class
    subparsers._parser_class = _IntermixedParser
    try:
        return subparsers.add_parser(name, **options)
    finally:
        subparsers._parser_class = default_class


def register_team(
    subparsers: argparse._SubParsersAction[argparse.ArgumentParser], common: argparse.ArgumentParser
) -> None:
    team = subparsers.add_parser("team", help=summary("team"), parents=[common])
    actions = team.add_subparsers(dest="team_command", metavar="ACTION", required=True)
    create = actions.add_parser("create", help="create a team with its lead (TeamCreate)", parents=[common])
    create.add_argument("team", metavar="TEAM")
    create.add_argument("--description", default="")
    create.add_argument("--model", help="the lead's model, if any")
    create.set_defaults(handler=_team_create, creates_workspace=True)
    add = actions.add_parser("add", help="add a teammate (or bring back an inactive one)", parents=[common])
    add.add_argument("team", metavar="TEAM")
    add.add_argument("name", metavar="NAME")
    add.add_argument(
        "--type", dest="agent_type", default=teams.DEFAULT_AGENT_TYPE, help="agentType (default: %(default)s)"
    )
    add.add_argument("--model")
    add.add_argument("--color", choices=COLORS)
    add.add_argument("--plan-mode", action="store_true", help="the teammate must have its plan approved first")
    add.add_argument("--prompt", default="", help="the teammate's instructions")
    add.add_argument(
        "--role",
        choices=MEMBER_ROLES,
        default=None,
        help="its role (seed 002): what it may do over MCP and the protocol",
    )
    add.set_defaults(handler=_team_add)
    delete = actions.add_parser(
        "delete", help="delete a team (TeamDelete); refused while teammates are active", parents=[common]
    )
    delete.add_argument("team", metavar="TEAM")
    delete.set_defaults(handler=_team_delete)
    listing = actions.add_parser("list", help="the teams of the workspace", parents=[common])
    listing.set_defaults(handler=_team_list)
    register_team_task(actions, common)


def register_send(
    subparsers: argparse._SubParsersAction[argparse.ArgumentParser], common: argparse.ArgumentParser
) -> None:
    send = _add_intermixed(subparsers, "send", help=summary("send"), parents=[common])
    send.add_argument("team", metavar="TEAM")
    send.add_argument("to", metavar="TO", help="name, NAME, name@team or team-lead")
    send.add_argument("text", metavar="TEXT", nargs="?", default="", help="the message ('-': read stdin)")
    send.add_argument("--summary", default="", help="a short summary (required for messages)")
    send.add_argument(
        "--from",
        dest="sender",
        metavar="NAME",
        help="the sender (default: the team lead; shutdown_response: required, the teammate answering)",
    )
    send.add_argument("--type", dest="send_type", choices=("message", "shutdown_response"), default="message")
    send.add_argument("--request-id", metavar="ID", help="shutdown_response: the request answered")
    verdict = send.add_mutually_exclusive_group()
    verdict.add_argument("--approve", action="store_true", help="shutdown_response: shut down")
    verdict.add_argument("--reject", action="store_true", help="shutdown_response: keep working (needs --reason)")
    send.add_argument("--reason", help="shutdown_response: why")
    send.set_defaults(handler=_send)


def register_broadcast(
    subparsers: argparse._SubParsersAction[argparse.ArgumentParser], common: argparse.ArgumentParser
) -> None:
    cast = subparsers.add_parser("broadcast", help=summary("broadcast"), parents=[common])
    cast.add_argument("team", metavar="TEAM")
    cast.add_argument("text", metavar="TEXT", help="the message ('-': read stdin)")
    cast.add_argument("--summary", default="", help="a short summary (required)")
    cast.add_argument("--from", dest="sender", metavar="NAME", help="the sender (default: the team lead)")
    cast.set_defaults(handler=_broadcast)


def register_shutdown(
    subparsers: argparse._SubParsersAction[argparse.ArgumentParser], common: argparse.ArgumentParser
) -> None:
    shutdown = subparsers.add_parser("shutdown", help=summary("shutdown"), parents=[common])
    shutdown.add_argument("team", metavar="TEAM")
    shutdown.add_argument("member", metavar="MEMBER")
    shutdown.add_argument("--reason", help="default with --resend: the unanswered request's reason")
    shutdown.add_argument(
        "--resend",
        action="store_true",
        help="ask again under a new request id; the unanswered request is recorded as superseded",
    )
    shutdown.set_defaults(handler=_shutdown)


def register_plan(
    subparsers: argparse._SubParsersAction[argparse.ArgumentParser], common: argparse.ArgumentParser
) -> None:
    plan_actions = command_group(subparsers, "plan", common, help=summary("plan"))
    for action in ("approve", "reject"):
        answer = plan_actions.add_parser(
            action, help=f"{action} the member's plan (default: its latest unanswered request)", parents=[common]
        )
        answer.add_argument("team", metavar="TEAM")
        answer.add_argument("member", metavar="MEMBER")
        answer.add_argument("--request-id", metavar="ID")
        answer.add_argument("--feedback", help="required to reject")
        answer.set_defaults(handler=_plan, approve=action == "approve")


def register_permission(
    subparsers: argparse._SubParsersAction[argparse.ArgumentParser], common: argparse.ArgumentParser
) -> None:
    permission_actions = command_group(subparsers, "permission", common, help=summary("permission"))
    for action, verb in (("approve", "allow"), ("deny", "deny")):
        permit = permission_actions.add_parser(
            action, help=f"{verb} the tool use (writes permission_response to the member's inbox)", parents=[common]
        )
        permit.add_argument("team", metavar="TEAM")
        permit.add_argument("member", metavar="MEMBER", help="the teammate that asked")
        permit.add_argument("request_id", metavar="REQUEST_ID", help="its request_id (`teamdeck status` lists them)")
        permit.add_argument(
            "--note", help="deny: what the teammate is told (default: Permission denied); approve: logged only"
        )
        permit.set_defaults(handler=_permission, approve=action == "approve")


def register_inbox(
    subparsers: argparse._SubParsersAction[argparse.ArgumentParser], common: argparse.ArgumentParser
) -> None:
    inbox = subparsers.add_parser("inbox", help=summary("inbox"), parents=[common])
    inbox.add_argument("team", metavar="TEAM")
    inbox.add_argument("member", metavar="MEMBER")
    inbox.add_argument("--unread", action="store_true", help="only unread messages")
    inbox.add_argument(
        "--inject", action="store_true", help="print unread messages as <teammate-message> blocks and mark them read"
    )
    inbox.set_defaults(handler=_inbox)


def register_member(
    subparsers: argparse._SubParsersAction[argparse.ArgumentParser], common: argparse.ArgumentParser
) -> None:
    member = subparsers.add_parser("member", help=summary("member"), parents=[common])
    member_actions = member.add_subparsers(dest="member_command", metavar="ACTION", required=True)
    deactivate = member_actions.add_parser(
        "deactivate", help="mark a member that approved shutdown but stays active as inactive", parents=[common]
    )
    deactivate.add_argument("team", metavar="TEAM")
    deactivate.add_argument("member", metavar="MEMBER")
    deactivate.add_argument(
        "--force", action="store_true", help="even without an approved shutdown (the agent is gone)"
    )
    deactivate.add_argument("--reason")
    deactivate.set_defaults(handler=_deactivate)
    role = member_actions.add_parser(
        "role", help="give a member its role (seed 002): what its MCP server offers and it may do", parents=[common]
    )
    role.add_argument("team", metavar="TEAM")
    role.add_argument("member", metavar="MEMBER")
    role.add_argument("role", choices=MEMBER_ROLES, metavar="ROLE", help=", ".join(MEMBER_ROLES))
    role.set_defaults(handler=_role)


def _usage(message: str) -> Refused:
    """A refusal of a command line that lacks what an option needs (exit 2, like argparse)."""
    error = Refused(message)
    error.exit_code = 2
    return error


def _text(value: str) -> str:
    """A TEXT argument; ``-`` reads it from stdin."""
    return sys.stdin.read() if value == "-" else value


def _sent(sent: Sent, what: str) -> Output:
    state = "delivered" if sent.confirmed else "NOT YET DELIVERED (logged; retry or check `teamdeck doctor`)"
    text = f"{what} {sent.id} to {', '.join(one_line(name) for name in sent.recipients)}: {state}"
    return Output(
        {"ok": True, "sent": sent.to_json()},
        text,
        exit_code=0 if sent.confirmed else 3,
        warnings=[one_line(warning) for warning in sent.warnings],
    )


# --- team ---------------------------------------------------------------------------


def _team_create(args: argparse.Namespace, ws: Workspace) -> Output:
    config = teams.create_team(ws, args.team, description=args.description, cwd=os.getcwd(), lead_model=args.model)
    return Output(
        {"ok": True, "team": config.to_json()},
        f"created team {config.name} (lead: {config.lead_name}) in {ws.rel(ws.team_dir(config.name))}",
    )


def _team_add(args: argparse.Namespace, ws: Workspace) -> Output:
    member = teams.add_member(
        ws,
        args.team,
        args.name,
        agent_type=args.agent_type,
        model=args.model,
        color=args.color,
        plan_mode=args.plan_mode,
        prompt=args.prompt,
        cwd=os.getcwd(),
        role=args.role,
    )
    return Output(
        {"ok": True, "member": member.to_json()},
        f"{member.name} is a member of {args.team} ({member.agentType}, {member.color})",
    )


def _team_delete(args: argparse.Namespace, ws: Workspace) -> Output:
    removed = teams.delete_team(ws, args.team)
    return Output({"ok": True, "removed": removed}, f"deleted team {args.team}: removed {', '.join(removed)}")


def _team_list(_args: argparse.Namespace, ws: Workspace) -> Output:
    names, ignored = teams.team_listing(ws)
    rows: list[dict[str, Any]] = []
    for name in names:
        try:
            config = teams.read_team(ws, name)
        except Exception as err:  # noqa: BLE001 - a broken team is listed with its problem, others still shown
            rows.append({"team": name, "problem": str(err)})
            continue
        rows.append(
            {
                "team": name,
                "description": config.description,
                "members": len(config.members),
                "active": len(config.active_teammates()),
            }
        )
    lines = [
        f"{row['team']}: {row['problem']}"
        if "problem" in row
        else f"{row['team']}  {row['members']} members, {row['active']} active teammates  {one_line(row['description'] or '', 80)}"
        for row in rows
    ] or [f"no teams in {ws.root / 'teams'}"]
    return Output({"ok": True, "teams": rows, "ignored": ignored}, "\n".join(lines), warnings=ignored)


# --- messages -----------------------------------------------------------------------


def _send(args: argparse.Namespace, ws: Workspace) -> Output:
    if args.send_type == "shutdown_response":
        from teamdeck.protocol.team.messaging import (
            handshake_writes as handshakes,  # a plain send does not load the handshakes
        )

        if not args.sender or not args.request_id or not (args.approve or args.reject):
            # The teammate asked to shut down answers: the lead is never the sender, so
            # there is no default (without --from it said "Unknown sender ''").
            raise _usage(
                "send --type shutdown_response needs --from NAME (the teammate answering), "
                "--request-id ID and --approve or --reject"
            )
        sent = handshakes.respond_shutdown(
            ws,
            args.team,
            args.request_id,
            approve=args.approve,
            sender=args.sender or "",
            reason=args.reason,
            to=args.to,
        )
        return _sent(sent, "shutdown approved:" if args.approve else "shutdown rejected:")
    from teamdeck.protocol.team.messaging.sending import send_message  # `inbox --inject` does not send

    sent = send_message(ws, args.team, args.to, _text(args.text), summary=args.summary, sender=args.sender)
    return _sent(sent, "sent message")


def _broadcast(args: argparse.Namespace, ws: Workspace) -> Output:
    from teamdeck.protocol.team.messaging.sending import broadcast

    sent = broadcast(ws, args.team, _text(args.text), summary=args.summary, sender=args.sender)
    return _sent(sent, "broadcast")


def _shutdown(args: argparse.Namespace, ws: Workspace) -> Output:
    from teamdeck.protocol.team.messaging import handshake_writes as handshakes  # imported by the command that uses it

    superseded: tuple[str, ...] = ()
    if args.resend:
        from teamdeck.protocol.team.shutdown_resend import resend_shutdown

        resent = resend_shutdown(ws, args.team, args.member, reason=args.reason)
        sent, superseded = resent.sent, resent.superseded
    else:
        sent = handshakes.request_shutdown(ws, args.team, args.member, reason=args.reason)
    output = _sent(sent, "shutdown_request")
    output.text = f"{sent.request_id}\n{output.text}; awaiting shutdown_response"
    if superseded:
        output.text += f"\nsuperseded: {', '.join(one_line(old, 100) for old in superseded)}"
    output.data["requestId"] = sent.request_id
    output.data["superseded"] = list(superseded)
    return output


def _plan(args: argparse.Namespace, ws: Workspace) -> Output:
    from teamdeck.protocol.team.messaging import handshake_writes as handshakes  # imported by the command that uses it

    sent = handshakes.answer_plan(
        ws, args.team, args.member, approve=args.approve, feedback=args.feedback, request_id=args.request_id
    )
    return _sent(sent, f"plan {'approved' if args.approve else 'rejected'} ({sent.request_id}):")


def _permission(args: argparse.Namespace, ws: Workspace) -> Output:
    from teamdeck.protocol.team.permissions import answer_permission

    sent = answer_permission(ws, args.team, args.member, args.request_id, approve=args.approve, note=args.note)
    return _sent(sent, f"permission {'allowed' if args.approve else 'denied'} ({one_line(args.request_id, 100)}):")


def _entry_json(entry: InboxEntry, recipient: str) -> dict[str, Any]:
    message, kind = entry.message, entry.kind
    assert message is not None and kind is not None
    return {
        "index": entry.index,
        "to": recipient,
        "type": kind.KIND,
        "requestId": kind.correlation_id,
        "decoded": kind.to_payload() if kind.KIND != "plain" else None,
        "message": message.to_json(),
        "drained": entry.drained,
    }


def _entry_lines(entry: InboxEntry, recipient: str) -> list[str]:
    message, kind = entry.message, entry.kind
    assert message is not None and kind is not None
    flag = "read  " if message.read or entry.drained else "UNREAD"
    head = f"{flag} {one_line(message.timestamp, 40)}  {one_line(message.from_, 64)} -> {one_line(recipient, 64)}  {kind.KIND}"
    if kind.correlation_id:
        head += f"  {one_line(kind.correlation_id, 100)}"
    if message.summary:
        head += f'  "{one_line(message.summary, 120)}"'
    body = message.text if kind.KIND == "plain" else kind.to_text()
    return [head, *(f"    {line}" for line in sanitize(body, 2000).splitlines())]


def _inbox(args: argparse.Namespace, ws: Workspace) -> Output:
    from teamdeck.protocol.team.messaging import (
        injection,
        reading,  # imported by the command that uses it
    )

    if args.inject:
        try:
            injected = injection.inject(ws, args.team, args.member)
        except NotFound as missing:
            _refuse_ended(ws, args.team, missing)
            raise
        text = "\n".join(sanitize(item.block, 0) for item in injected)
        return Output({"ok": True, "messages": [item.to_json() for item in injected]}, text)
    try:
        config = teams.read_team(ws, args.team)
    except NotFound as missing:
        return _ended_inbox(args, ws, missing)
    recipient = resolve_member(config, args.team, args.member, role="member")
    entries = reading.list_inbox(ws, args.team, recipient, unread_only=args.unread)
    return _inbox_output(args, recipient, entries)


def _inbox_output(args: argparse.Namespace, recipient: str, entries: list[InboxEntry], note: str = "") -> Output:
    lines = [line for entry in entries for line in _entry_lines(entry, recipient)]
    data = {
        "ok": True,
        "team": args.team,
        "member": recipient,
        "messages": [_entry_json(e, recipient) for e in entries],
    }
    text = "\n".join(lines) or f"no {'unread ' if args.unread else ''}messages for {recipient}"
    return Output({**data, "ended": True} if note else data, f"{note}\n{text}" if note else text)


def _ended_inbox(args: argparse.Namespace, ws: Workspace, missing: NotFound) -> Output:
    """A member's messages in a team that ended (Claude Code removed its directory when
    its session ended): what teamdeck recorded of them, as the TUI shows them
    (view/readers/team_files.py); ``missing`` again when nothing of the team was kept."""
    from teamdeck.view.readers.team_files import read_ended_team

    files = read_ended_team(ws, args.team)
    if files is None or files.config is None:
        raise missing
    recipient = resolve_member(files.config, args.team, args.member, role="member")
    inbox = files.inbox_of(recipient)
    entries = []
    if inbox is not None and not isinstance(inbox, str):  # a str says why it could not be read
        entries = inbox.unread if args.unread else inbox.messages
    note = f"team {args.team} has ended: its last known roster and the messages teamdeck recorded of its inboxes"
    return _inbox_output(args, recipient, entries, note)


def _refuse_ended(ws: Workspace, team: str, missing: NotFound) -> None:
    """Refuse ``inbox --inject`` on a team that ended, in one line (nobody reads its
    inboxes any more); nothing when the team was never seen (``missing`` stands)."""
    from teamdeck.view.readers.team_files import read_ended_team

    if read_ended_team(ws, team) is not None:
        raise Refused(
            f"Could not inject the inbox: team {team} has ended (its directory is gone) and nobody reads its "
            f"inboxes; `teamdeck inbox {team} MEMBER` lists what was said"
        ) from missing


def _role(args: argparse.Namespace, ws: Workspace) -> Output:
    member = teams.set_role(ws, args.team, args.member, args.role)
    return Output(
        {"ok": True, "team": args.team, "member": member.name, "role": args.role},
        f"{member.name} is now the {args.role} of {args.team}" if args.role != "none" else f"{member.name} has no role",
    )


def _deactivate(args: argparse.Namespace, ws: Workspace) -> Output:
    from teamdeck.protocol.team.messaging import handshake_writes as handshakes  # imported by the command that uses it

    name = handshakes.deactivate_member(ws, args.team, args.member, force=args.force, reason=args.reason)
    return Output(
        {"ok": True, "team": args.team, "member": name, "isActive": False},
        f"{name} is now inactive in {args.team} (logged in {ws.rel(log_file(ws, args.team))})",
    )
