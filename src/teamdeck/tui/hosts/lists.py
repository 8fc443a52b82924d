"""The rows of the hosts screen, from the hosts' states (``teamdeck status --json``'s
sections, as each host's stream sent them): decisions and teams, each with its host,
dimmed while that host's link is down (what it showed last)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from teamdeck.clock import parse_iso
from teamdeck.remote.link import Link
from teamdeck.tui.render import cell
from teamdeck.tui.widgets.line_list import Cell, LineList, Row
from teamdeck.view.figures.overview import age

STATUS_MARK = {"live": "●", "connecting": "…", "unreachable": "✗", "incompatible": "✗"}


@dataclass(frozen=True)
class HostDecision:
    """One decision waiting on one host."""

    link: Link
    gate: dict[str, Any]

    @property
    def row_key(self) -> str:
        """Unique over every host: the host's name and the decision's key."""
        return f"{self.link.host.name}\x1f{self.gate.get('key')}"


def queue_of(links: list[Link]) -> list[HostDecision]:
    """Every decision of every host, oldest first (one queue)."""
    waiting = [HostDecision(link, gate) for link in links for gate in link.state.get("gates") or []]
    return sorted(waiting, key=lambda item: str(item.gate.get("createdAt") or ""))


def host_now(link: Link) -> datetime | None:
    """The host's own now: when its newest state was taken (ages use the host's clock)."""
    try:
        return parse_iso(str(link.state.get("takenAt")))
    except ValueError:
        return None


class HostDecisionList(LineList):
    """One row per decision, over every host."""

    def show(self, links: list[Link]) -> list[HostDecision]:
        """Show every host's decisions; returns them in the order shown."""
        queue = queue_of(links)
        self.set_rows([_decision_row(item) for item in queue])
        return queue


def _decision_row(item: HostDecision) -> Row:
    gate, link = item.gate, item.link
    now = host_now(link)
    style = "" if link.status == "live" else "line-list--dim"
    waited = (age(str(gate.get("createdAt") or ""), now) if now else "") or "?"
    return Row(
        item.row_key,
        (
            Cell(cell(link.host.name, 16), 16, "line-list--accent" if not style else style),
            Cell(waited, 5, style),
            Cell(cell(str(gate.get("label") or ""), 10), 10, style or "line-list--bold"),
            Cell(cell(str(gate.get("agent") or "-"), 24), 24, style),
            Cell(cell(str(gate.get("title") or ""), 300), None, style),
        ),
    )


@dataclass(frozen=True)
class HostMember:
    """One member of one team on one host."""

    link: Link
    team: str
    member: dict[str, Any]

    @property
    def row_key(self) -> str:
        return f"{self.link.host.name}\x1f{self.team}\x1f{self.member.get('name')}"

    @property
    def name(self) -> str:
        return str(self.member.get("name") or "")


def members_of(links: list[Link]) -> list[HostMember]:
    """Every member of every team of every host, host by host, team by team."""
    return [
        HostMember(link, str(team.get("name")), member)
        for link in links
        for team in link.state.get("teams") or []
        for member in team.get("members") or []
    ]


class HostMemberList(LineList):
    """One row per member, over every host: its team, state and unread messages."""

    def show(self, links: list[Link]) -> list[HostMember]:
        """Show every host's members; returns them in the order shown."""
        members = members_of(links)
        self.set_rows([_member_row(item) for item in members])
        return members


def _member_row(item: HostMember) -> Row:
    style = "" if item.link.status == "live" else "line-list--dim"
    member = item.member
    lead = " (lead)" if member.get("lead") else ""
    return Row(
        item.row_key,
        (
            Cell(cell(item.link.host.name, 16), 16, style or "line-list--accent"),
            Cell(cell(item.team, 32), 32, style),
            Cell(cell(f"{item.name}{lead}", 40), 40, style or "line-list--bold"),
            Cell(cell(str(member.get("status") or ""), 20), 20, style),
            Cell(f"{count_of(member.get('unread'))} unread", 10, style),
            Cell(cell(str(member.get("detail") or ""), 200), None, style or "line-list--dim"),
        ),
    )


class HostTaskList(LineList):
    """One row per teamdeck task, over every host: its state, team, workers and title."""

    def show(self, links: list[Link]) -> None:
        rows = []
        for link in links:
            style = "" if link.status == "live" else "line-list--dim"
            for task in link.state.get("tasks") or []:
                workers = ", ".join(
                    f"{count_of(count)} {cell(str(status), 20)}"
                    for status, count in (task.get("workersByStatus") or {}).items()
                )
                rows.append(
                    Row(
                        f"{link.host.name}\x1f{task.get('id')}",
                        (
                            Cell(cell(link.host.name, 16), 16, style or "line-list--accent"),
                            Cell(cell(str(task.get("id")), 40), 40, style or "line-list--bold"),
                            Cell(cell(str(task.get("state")), 16), 16, style),
                            Cell(cell(str(task.get("team") or "-"), 24), 24, style),
                            Cell(cell(workers or "no workers", 40), 40, style),
                            Cell(cell(str(task.get("title") or ""), 200), None, style),
                        ),
                    )
                )
        self.set_rows(rows)


def total_line(links: list[Link]) -> str:
    """Every host at once: how many are live, and what waits over all of them (decisions,
    and messages no member has read)."""
    live = [link for link in links if link.status == "live"]
    waiting = sum(_count(link, "gatesWaiting") for link in links)
    unread = sum(_count(link, "unread") for link in links)
    down = len(links) - len(live)
    return (
        f"{len(links)} hosts, {len(live)} live{f', {down} not' if down else ''} · "
        f"{waiting} decisions waiting · {unread} unread in all"
    )


def _count(link: Link, name: str) -> int:
    """One of the host's overview counts (0 before its first state, or when the host
    sent something that is no count: its text is untrusted)."""
    overview = link.state.get("overview")
    return count_of(overview.get(name) if isinstance(overview, dict) else None)


def count_of(value: object) -> int:
    """A count a host sent, or 0 when it is none (text, a negative number, a list):
    what a host sends is untrusted, and a bad count must not stop the screen."""
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else 0


def host_line(link: Link) -> str:
    """One host's link and overview, for the top of the screen (sanitised)."""
    mark = STATUS_MARK.get(link.status, "?")
    name = cell(link.host.name, 16)
    if link.status == "live":
        read_only = " · read-only" if link.host.read_only or link.server.get("readOnly") else ""
        return (
            f"{mark} {name}: {_count(link, 'gatesWaiting')} waiting · {_count(link, 'teams')} teams · "
            f"{_count(link, 'members')} members · {_count(link, 'unread')} unread{read_only}"
        )
    if link.status == "connecting":
        return f"{mark} {name}: connecting"
    return f"{mark} {name}: {link.status} since {link.since:%H:%M:%S}: {cell(link.why, 160)}"
