"""The rows of the hosts screen, from what the hosts show as one (remote/merged.py):
decisions and teams, each with its host, dimmed while that host's link is down (what
it showed last)."""

from __future__ import annotations

from teamdeck.remote.link import Link
from teamdeck.remote.merged import HostDecision, HostMember, count_of, host_now, members_of, overview_count, queue_of
from teamdeck.tui.render import cell
from teamdeck.tui.widgets.line_list import Cell, LineList, Row
from teamdeck.view.figures.overview import age

STATUS_MARK = {"live": "●", "connecting": "…", "unreachable": "✗", "incompatible": "✗"}


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
    waiting = sum(overview_count(link, "gatesWaiting") for link in links)
    unread = sum(overview_count(link, "unread") for link in links)
    down = len(links) - len(live)
    return (
        f"{len(links)} hosts, {len(live)} live{f', {down} not' if down else ''} · "
        f"{waiting} decisions waiting · {unread} unread in all"
    )


def host_line(link: Link) -> str:
    """One host's link and overview, for the top of the screen (sanitised)."""
    mark = STATUS_MARK.get(link.status, "?")
    name = cell(link.host.name, 16)
    if link.status == "live":
        read_only = " · read-only" if link.host.read_only or link.server.get("readOnly") else ""
        return (
            f"{mark} {name}: {overview_count(link, 'gatesWaiting')} waiting · {overview_count(link, 'teams')} teams · "
            f"{overview_count(link, 'members')} members · {overview_count(link, 'unread')} unread{read_only}"
        )
    if link.status == "connecting":
        return f"{mark} {name}: connecting"
    return f"{mark} {name}: {link.status} since {link.since:%H:%M:%S}: {cell(link.why, 160)}"
