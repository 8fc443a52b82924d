"""What each page of ``teamdeck web`` shows, declared once per page: its address, its
parameters, and its regions, read from the hosts' links (remote/) and, for what a state
does not hold (an inbox, a conversation, a run's log), asked of the host as a query.

A page is a list of :class:`Region` s. A live region is drawn again whenever a host's
state changes and pushed to the open page (web/app.py's event stream), so the same code
draws the first page and every update; a form is a region that is not live, so what a
person is typing is never redrawn under them.

To add a page: one :func:`page` here and its templates.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from teamdeck.errors import NotFound, Refused
from teamdeck.remote.link import Link
from teamdeck.remote.merged import HostDecision, count_of, host_now, members_of, overview_count, queue_of
from teamdeck.view.figures.overview import age
from teamdeck.web.render import render

QUERY_WAIT_S = 10.0
"""How long a page waits for a host's answer to a query before it says there is none."""


@dataclass(frozen=True)
class Region:
    """One part of a page: its name (the element it fills), its template and what it is
    given, and whether it is redrawn live."""

    name: str
    template: str
    context: Mapping[str, Any] = field(default_factory=dict)
    live: bool = True

    def html(self, common: Mapping[str, Any]) -> str:
        return render(self.template, **common, **self.context)


@dataclass(frozen=True)
class Page:
    """A page: its title and its regions, in order."""

    title: str
    regions: tuple[Region, ...]


class Hosts:
    """The links a page reads, by the host's name (the order given)."""

    def __init__(self, links: list[Link], *, read_only: bool) -> None:
        self.links = links
        self.read_only = read_only
        """The server was started ``--read-only``: no form is shown, no write is taken."""
        self._by_name = {link.host.name: link for link in links}

    def link(self, name: str) -> Link:
        """The link to host ``name``.

        Raises:
            NotFound: no host of that name is served.
        """
        found = self._by_name.get(name)
        if found is None:
            raise NotFound(f"no host {name!r} on this page")
        return found

    def writable(self, link: Link) -> bool:
        """Whether forms that write on ``link``'s host are shown."""
        return not (self.read_only or link.host.read_only or link.server.get("readOnly"))


PageBuilder = Callable[[Hosts, Mapping[str, str]], Page]

PAGES: dict[str, PageBuilder] = {}
"""Every page, by its path."""


def page(*, path: str) -> Callable[[PageBuilder], PageBuilder]:
    """Declare the page at ``path``, built by the decorated function from the hosts and
    the page's query parameters."""

    def register(build: PageBuilder) -> PageBuilder:
        PAGES[path] = build
        return build

    return register


def build_page(hosts: Hosts, path: str, params: Mapping[str, str]) -> Page:
    """The page at ``path`` with ``params``.

    Raises:
        NotFound: no such page, host, decision, member or run.
        Refused: a parameter the page needs is missing.
    """
    builder = PAGES.get(path)
    if builder is None:
        raise NotFound(f"no page {path}")
    return builder(hosts, params)


def _param(params: Mapping[str, str], name: str) -> str:
    value = params.get(name, "")
    if not value or len(value) > 300:
        raise Refused(f"this page needs its {name!r} (at most 300 characters)")
    return value


# --- the pages -------------------------------------------------------------------------


@page(path="/")
def _queue(hosts: Hosts, params: Mapping[str, str]) -> Page:
    """Every decision waiting on every host, oldest first, then every member."""
    queue = queue_of(hosts.links)
    return Page(
        "Decisions",
        (
            Region("hosts", "regions/hosts.html", {"hosts": [_host(link) for link in hosts.links]}),
            Region("queue", "regions/queue.html", {"queue": [_decision(item, hosts) for item in queue]}),
            Region("roster", "regions/roster.html", {"teams": _teams(hosts)}),
        ),
    )


@page(path="/answer")
def _answer(hosts: Hosts, params: Mapping[str, str]) -> Page:
    """The confirm step of one answer: the question, what it does, the note it asks for."""
    link = hosts.link(_param(params, "host"))
    key, word = _param(params, "key"), _param(params, "word")
    if word not in ("approve", "reject"):
        raise Refused("an answer is approve or reject")
    found = next((item for item in queue_of([link]) if item.gate.get("key") == key), None)
    decision = _decision(found, hosts) if found is not None else None
    answer = found.gate.get("answers", {}).get(word) if found is not None else None
    regions = [Region("decision", "regions/decision.html", {"decision": decision, "host": link.host.name, "key": key})]
    if decision is not None and isinstance(answer, dict) and decision["writable"]:
        regions.append(
            Region(
                "confirm",
                "regions/confirm.html",
                {"decision": decision, "answer": answer, "word": word, "danger": word == "reject"},
                live=False,
            )
        )
    return Page("Confirm", tuple(regions))


@page(path="/member")
def _member(hosts: Hosts, params: Mapping[str, str]) -> Page:
    """One member: its state and runs, its inbox, its conversation, and the forms that
    message it or its whole team."""
    link = hosts.link(_param(params, "host"))
    team, name = _param(params, "team"), _param(params, "member")
    item = next((m for m in members_of([link]) if m.team == team and m.name == name), None)
    if item is None:
        raise NotFound(f"no member {name} in team {team} on {link.host.name}")
    args = {"team": team, "member": name}
    where = {"host": link.host.name, "team": team, "member": name}
    regions = [
        Region("member", "regions/member.html", {**where, "member": item.member, "link": _host(link)}),
        Region("inbox", "regions/inbox.html", {**where, "inbox": _ask(link, "inbox", args)}),
        Region("runs", "regions/runs.html", {**where, "runs": _ask(link, "runs", args)}),
        Region("conversation", "regions/conversation.html", {**where, "talk": _ask(link, "conversation", args)}),
    ]
    if hosts.writable(link):
        regions.insert(1, Region("message", "regions/message.html", where, live=False))
    return Page(f"{name} · {team}", tuple(regions))


@page(path="/run")
def _run(hosts: Hosts, params: Mapping[str, str]) -> Page:
    """One run: its record, its events, and the ends of its output and stderr."""
    link = hosts.link(_param(params, "host"))
    run = _param(params, "run")
    return Page(
        f"run {run}",
        (
            Region(
                "run",
                "regions/run.html",
                {"host": link.host.name, "run": run, "log": _ask(link, "run-log", {"run": run})},
            ),
        ),
    )


# --- what the templates are given ---------------------------------------------------------


def _host(link: Link) -> dict[str, Any]:
    """One host's link and counts (the hosts TUI's host line, as fields)."""
    return {
        "name": link.host.name,
        "status": link.status,
        "since": f"{link.since:%H:%M:%S}",
        "why": link.why,
        "waiting": overview_count(link, "gatesWaiting"),
        "teams": overview_count(link, "teams"),
        "members": overview_count(link, "members"),
        "unread": overview_count(link, "unread"),
        "readOnly": bool(link.host.read_only or link.server.get("readOnly")),
    }


def _decision(item: HostDecision, hosts: Hosts) -> dict[str, Any]:
    """One decision of the queue, with how long it waited by its host's clock."""
    now = host_now(item.link)
    created = str(item.gate.get("createdAt") or "")
    return {
        "host": item.link.host.name,
        "live": item.link.status == "live",
        "writable": hosts.writable(item.link) and item.link.status == "live",
        "waited": (age(created, now) if now else "") or "?",
        "gate": item.gate,
        "answers": [
            (word, answer)
            for word in ("approve", "reject")
            if isinstance(answer := (item.gate.get("answers") or {}).get(word), dict)
        ],
    }


def _teams(hosts: Hosts) -> list[dict[str, Any]]:
    """Every team of every host with its members (host by host, as sent)."""
    teams = []
    for link in hosts.links:
        for team in link.state.get("teams") or []:
            if not isinstance(team, dict):
                continue
            members = [
                {**member, "unreadCount": count_of(member.get("unread"))}
                for member in team.get("members") or []
                if isinstance(member, dict)
            ]
            teams.append({"host": link.host.name, "live": link.status == "live", "team": team, "members": members})
    return teams


def _ask(link: Link, what: str, args: dict[str, Any]) -> dict[str, Any]:
    """A query's answer for a template: ``{"ok": True, "data": ...}`` or ``{"ok": False, "text": why}``."""
    if link.status != "live":
        return {"ok": False, "text": f"{link.host.name} is {link.status}: nothing to read now"}
    answer = link.query(what, args, timeout=QUERY_WAIT_S)
    return {"ok": answer.ok, "data": answer.data, "text": answer.text}
