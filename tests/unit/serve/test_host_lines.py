"""The hosts screen's top lines from what hosts sent: the counts add up over hosts, and
a host's overview that holds no counts (its data is untrusted) counts as nothing
instead of stopping the screen."""

from __future__ import annotations

from teamdeck.model.hosts import Host
from teamdeck.remote.link import Link
from teamdeck.tui.hosts.lists import host_line, total_line


def _link(name: str, overview: object) -> Link:
    link = Link(Host(name=name, workspace="/w"))
    link.state = {"overview": overview}
    link.status = "live"
    return link


def test_the_total_line_adds_every_host_s_decisions_and_unread_messages() -> None:
    links = [
        _link("a", {"gatesWaiting": 3, "unread": 5, "teams": 1, "members": 4}),
        _link("b", {"gatesWaiting": 1, "unread": 2}),
    ]
    assert total_line(links) == "2 hosts, 2 live · 4 decisions waiting · 7 unread in all"
    assert host_line(links[0]) == "● a: 3 waiting · 1 teams · 4 members · 5 unread"


def test_b27_counts_a_host_sent_as_text_or_negative_count_as_none() -> None:
    links = [
        _link("a", {"gatesWaiting": "lots", "unread": -4, "teams": True, "members": [1]}),
        _link("b", "not an overview"),
    ]
    assert total_line(links) == "2 hosts, 2 live · 0 decisions waiting · 0 unread in all"
    assert host_line(links[0]) == "● a: 0 waiting · 0 teams · 0 members · 0 unread"
