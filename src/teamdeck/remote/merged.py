"""What several hosts show as one, from their links' states (``teamdeck status --json``'s
sections, as each host's stream sent them): one decision queue, oldest first over every
host, and every member of every team, each item with the link it came from. Every front
over hosts (the hosts TUI, the web page) lists these; what a host sent is untrusted, so
a count that is none reads as 0."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from teamdeck.clock import parse_iso
from teamdeck.remote.link import Link


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


def count_of(value: object) -> int:
    """A count a host sent, or 0 when it is none (text, a negative number, a list):
    what a host sends is untrusted, and a bad count must not stop the screen."""
    return value if isinstance(value, int) and not isinstance(value, bool) and value >= 0 else 0


def overview_count(link: Link, name: str) -> int:
    """One of the host's overview counts (0 before its first state, or when the host
    sent something that is no count)."""
    overview = link.state.get("overview")
    return count_of(overview.get(name) if isinstance(overview, dict) else None)
