"""Which Gitea logins are agents: a login is a known agent when a teammate has that name
(case-insensitively; teams in name order, the first wins; the team lead is the
supervising session, not a Gitea user, so it only counts when mapped), or when
``.teamdeck.yaml`` maps it under ``forge.agents`` (``login: team/member``). Everyone
else is a human: humans get no inbox messages, they decide in the queue.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from teamdeck.errors import TeamdeckError
from teamdeck.model.team import Member, TeamConfig
from teamdeck.protocol.team.teams import list_teams, read_team
from teamdeck.store.settings import load_settings
from teamdeck.store.workspace import Workspace

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Agent:
    """A known agent: its Gitea login and where its inbox is."""

    login: str
    team: str
    member: str
    role: str
    """What the roster says it does (the member's ``agentType``), for the discussion prompt."""
    capabilities: str
    """The first line of the member's ``prompt`` on the roster, if any."""
    team_role: str = "none"
    """Its role in the roster (protocol/coordination/roles.py): a ``gate`` reviews pull requests."""


@dataclass(frozen=True)
class Agents:
    """The known agents of a workspace, by lowercase login."""

    by_login: dict[str, Agent]

    def get(self, login: str | None) -> Agent | None:
        return self.by_login.get(login.lower()) if login else None

    def all(self) -> list[Agent]:
        """Every known agent, in login order."""
        return [self.by_login[login] for login in sorted(self.by_login)]


def _agent(login: str, team: str, config: TeamConfig, member: Member) -> Agent:
    prompt = (member.prompt or "").strip().splitlines()
    return Agent(
        login=login.lower(),
        team=team,
        member=member.name,
        role=member.agentType or ("team lead" if config.is_lead(member.name) else "teammate"),
        capabilities=prompt[0][:200] if prompt else "",
        team_role=member.role or "none",
    )


def known_agents(ws: Workspace) -> Agents:
    """The agents of the workspace's teams and ``forge.agents`` (an unreadable team or a
    mapping to a member that does not exist is skipped with a warning)."""
    configs: dict[str, TeamConfig] = {}
    for team in list_teams(ws):
        try:
            configs[team] = read_team(ws, team)
        except TeamdeckError as err:
            log.warning("forge: team %s skipped: %s", team, err)
    found: dict[str, Agent] = {}
    for team, config in configs.items():
        for member in config.members:
            if config.is_lead(member.name):
                continue
            found.setdefault(member.name.lower(), _agent(member.name, team, config, member))
    for login, target in load_settings(ws.root).forge.agents.items():
        team, _, name = target.partition("/")
        mapped = configs.get(team)
        found_member = mapped.member(name) if mapped is not None else None
        if mapped is None or found_member is None:
            log.warning("forge: .teamdeck.yaml forge.agents %s: no member '%s'; ignored", login, target)
            continue
        found[login.lower()] = _agent(login, team, mapped, found_member)
    return Agents(found)
