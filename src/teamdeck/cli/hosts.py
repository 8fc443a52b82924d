"""Several workspaces at once: ``--host NAME=ssh://[user@]box[:port]/path`` (repeatable),
``-w DIR`` given more than once, or the hosts file (remote/hosts.py), for ``teamdeck
status``, ``decisions list`` and ``decisions decide``, and ``teamdeck hosts``, which lists
them with how each link is.

Each workspace is read through ``teamdeck serve --stdio`` (remote/link.py): over ssh
for a remote host, as a child process here for a local one, so every host is read and
answered the same way. Remote text is printed through the same sanitising as local
text: it is agent text, from further away.
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from teamdeck.cli.commands import summary
from teamdeck.cli.common import Output
from teamdeck.clock import parse_iso
from teamdeck.errors import NotFound, Refused, TeamdeckError
from teamdeck.text import one_line
from teamdeck.view.figures.overview import age

if TYPE_CHECKING:
    from teamdeck.model.hosts import Host
    from teamdeck.remote.link import Link
    from teamdeck.store.workspace import Workspace

FIRST_STATE_S = 20.0
"""How long a command waits for every host's first state (ssh's ConnectTimeout is 10 s)."""


def register_hosts(
    subparsers: argparse._SubParsersAction[argparse.ArgumentParser], common: argparse.ArgumentParser
) -> None:
    hosts = subparsers.add_parser(
        "hosts",
        parents=[common],
        help=summary("hosts"),
        description=(
            "The hosts teamdeck watches (--host options, -w given more than once, or the hosts file: "
            "$TEAMDECK_HOSTS, else ~/.config/teamdeck/hosts.yaml) and how each one is: live, unreachable "
            "(since when and why) or incompatible."
        ),
    )
    add_host_options(hosts)
    hosts.set_defaults(handler=_hosts, finish_interrupted=False, several_workspaces=True)


def add_host_options(parser: argparse.ArgumentParser) -> None:
    """``--host NAME=ssh://[user@]box[:port]/path/to/workspace``, repeatable."""
    parser.add_argument(
        "--host",
        action="append",
        default=[],
        metavar="NAME=ssh://[user@]box[:port]/PATH",
        help="a workspace on another machine, read over ssh (repeatable; -w DIR may be given beside it)",
    )


def hosts_asked(args: argparse.Namespace) -> list[Host] | None:
    """The hosts a command works on, or None for the one workspace it always did.

    ``--host`` or ``-w`` given twice: those (the ``-w`` ones first). Neither, and no
    workspace named (``-w`` or ``$TEAMDECK_WORKSPACE``): the hosts file's, when it
    exists. Else None.

    Raises:
        Refused: a ``--host`` that is not valid (which part, and why).
        InvalidFile: the hosts file is broken (file, place, problem).
    """
    from teamdeck.remote.hosts import hosts_file_path, load_hosts_file, local_host, parse_host_option

    remote = [parse_host_option(text) for text in getattr(args, "host", [])]
    workspaces = list(getattr(args, "workspaces", []))
    if remote or len(workspaces) > 1:
        chosen: list[Host] = []
        for path in workspaces:
            chosen.append(local_host(Path(path).expanduser().resolve(), taken={host.name for host in chosen}))
        for host in remote:
            if host.name in {other.name for other in chosen}:
                raise Refused(f"--host {host.name}: that name is taken by another workspace")
            chosen.append(host)
        return chosen
    if workspaces or os.environ.get("TEAMDECK_WORKSPACE"):
        return None
    listed = load_hosts_file(hosts_file_path())
    return list(listed) or None


@contextmanager
def connected(hosts: Iterable[Host], *, timeout: float = FIRST_STATE_S) -> Iterator[list[Link]]:
    """A live link to each host, once each has sent its first state or failed (all at
    once: the slowest host sets the wait); every link is closed on the way out."""
    from teamdeck.remote.link import Link

    links = [Link(host).start() for host in hosts]
    try:
        for link in links:
            link.wait_first(timeout)
        yield links
    finally:
        for link in links:
            link.stop()


def _exit_code(links: list[Link]) -> int:
    """1 when a host is not live (the output says which, and why)."""
    return 1 if any(link.status != "live" for link in links) else 0


def link_line(link: Link) -> str:
    """How one host's link is, in one line: ``B  127.0.0.1:/ws  live (teamdeck 0.1.0)``."""
    host = link.host
    head = f"{host.name}  {one_line(host.where, 120)}"
    if link.status == "live":
        version = one_line(str(link.server.get("teamdeck", "?")), 20)
        return f"{head}  live (teamdeck {version}){'  read-only' if host.read_only else ''}"
    since = link.since.strftime("%H:%M:%S")
    return f"{head}  {link.status} since {since}: {one_line(link.why, 200)}"


def link_json(link: Link) -> dict[str, Any]:
    """One host's link as JSON (``teamdeck hosts --json`` and each host of ``status --json``)."""
    return {
        "host": link.host.name,
        "where": link.host.where,
        "status": link.status,
        "since": link.since.isoformat(),
        "why": link.why,
        "teamdeck": link.server.get("teamdeck"),
        "protocol": link.server.get("protocol"),
        "readOnly": link.host.read_only or bool(link.server.get("readOnly")),
    }


def _hosts(args: argparse.Namespace, ws: Workspace) -> Output:
    hosts = hosts_asked(args)
    if not hosts:
        from teamdeck.remote.hosts import hosts_file_path

        raise NotFound(f"no hosts: give --host NAME=ssh://box/path, or list them in {hosts_file_path()}")
    with connected(hosts) as links:
        items = [{**link_json(link), "decisionsWaiting": len(link.state.get("gates") or [])} for link in links]
        lines = [
            link_line(link) + (f"  {item['decisionsWaiting']} decision(s) waiting" if link.status == "live" else "")
            for link, item in zip(links, items, strict=True)
        ]
    code = _exit_code(links)
    return Output(data={"ok": code == 0, "hosts": items}, text="\n".join(lines), exit_code=code)


# --- what status and decisions print for several hosts -------------------------------


def status_of_hosts(hosts: list[Host]) -> Output:
    """``teamdeck status`` over several hosts: each host's overview, decisions and teams."""
    with connected(hosts) as links:
        blocks = [_status_block(link) for link in links]
        data = {"ok": True, "hosts": [{**link_json(link), "state": dict(link.state)} for link in links]}
    return Output(data=data, text="\n\n".join(blocks), exit_code=_exit_code(links))


def _status_block(link: Link) -> str:
    lines = [f"== {link_line(link)}"]
    state = link.state
    if not state:
        return lines[0]
    if link.status != "live":
        lines.append("   (what it showed last)")
    now = _moment(state.get("takenAt"))
    counts = state.get("overview") or {}
    lines.append(
        f"   {counts.get('teams', 0)} team(s), {counts.get('members', 0)} member(s) "
        f"({counts.get('active', 0)} active), {counts.get('tasks', 0)} task(s), "
        f"{counts.get('gatesWaiting', 0)} decision(s) waiting, {counts.get('problems', 0)} problem(s)"
    )
    for gate in state.get("gates") or []:
        lines.append(f"   {_gate_line(gate, now)}")
    for team in state.get("teams") or []:
        members = ", ".join(
            f"{one_line(str(member.get('name')), 64)} ({one_line(str(member.get('status')), 20)})"
            for member in team.get("members") or []
        )
        ended = " (ENDED)" if team.get("ended") else ""
        lines.append(f"   team {one_line(str(team.get('name')), 64)}{ended}: {members or 'no members'}")
    return "\n".join(lines)


def decisions_of_hosts(hosts: list[Host]) -> Output:
    """``teamdeck decisions list`` over several hosts: one queue, oldest first, each
    decision with its host."""
    with connected(hosts) as links:
        queue = sorted(
            (
                (str(gate.get("createdAt") or ""), link, gate)
                for link in links
                for gate in link.state.get("gates") or []
            ),
            key=lambda item: item[0],
        )
        lines = [
            f"{link.host.name:<12} {_gate_line(gate, _moment(link.state.get('takenAt')))}" for _, link, gate in queue
        ]
        lines += [
            f"{link.host.name:<12} {link.status}: {one_line(link.why, 200)}" for link in links if link.status != "live"
        ]
        data = {
            "ok": True,
            "decisions": [{"host": link.host.name, **gate} for _, link, gate in queue],
            "hosts": [link_json(link) for link in links],
        }
    text = "\n".join(lines) or f"no decisions waiting on {len(links)} host(s)"
    return Output(data=data, text=text, exit_code=_exit_code(links))


def decide_on_host(hosts: list[Host], name: str, key: str, answer: str, note: str | None) -> Output:
    """``teamdeck decisions decide --on NAME KEY ANSWER``: the answer is asked of the host
    that owns the decision, as a request with an id (applied at most once)."""
    chosen = [host for host in hosts if host.name == name]
    if not chosen:
        raise NotFound(f"no host named {name!r} (the hosts: {', '.join(host.name for host in hosts)})")
    with connected(chosen) as (link,):
        if link.status != "live":
            raise TeamdeckError(f"{link_line(link)}; nothing was sent")
        reply = link.ask("answer", {"key": key, "answer": answer, "note": note})
    data = {"ok": reply.ok, "host": name, "text": reply.text, "unknown": reply.unknown, "repeated": reply.repeated}
    if reply.unknown:
        return Output(data=data, text=reply.text, exit_code=75)
    if not reply.ok:
        raise TeamdeckError(f"{name}: {reply.text}")
    return Output(data=data, text=f"{name}: {reply.text}")


def _gate_line(gate: dict[str, Any], now: datetime | None) -> str:
    waited = (age(str(gate.get("createdAt") or ""), now) if now else "") or "?"
    return (
        f"{waited:>4}  {one_line(str(gate.get('label')), 12):<8}  {one_line(str(gate.get('key')), 120)}  "
        f"{one_line(str(gate.get('agent') or '-'), 40)}  {one_line(str(gate.get('title')), 120)}"
    )


def _moment(value: object) -> datetime | None:
    try:
        return parse_iso(str(value)) if value else None
    except ValueError:
        return None
