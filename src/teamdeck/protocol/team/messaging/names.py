"""Which member a name means in a team: ``name``, ``NAME`` and ``name@team`` match
case-insensitively, ``team-lead`` always means the lead, anything else is
``Unknown recipient 'x' in team 't'``. Shared by every send, handshake and read here
and by protocol's other team functions (delegation, permissions, connections...)."""

from __future__ import annotations

from teamdeck.errors import NotFound
from teamdeck.model.team import TeamConfig
from teamdeck.store.paths import shown


def resolve_member(config: TeamConfig, team: str, name: str, *, role: str = "recipient") -> str:
    """The canonical member name that ``name`` means in ``team``.

    ``name``, ``NAME`` and ``name@team`` match case-insensitively; ``team-lead`` always
    means the lead.

    Raises:
        NotFound: ``Unknown recipient 'x' in team 't'`` (or ``sender``).
    """
    bare = name.strip()
    if "@" in bare:
        bare, _, team_part = bare.rpartition("@")
        if team_part.lower() != team.lower():
            bare = ""
    if bare and config.is_lead(bare):
        return config.lead_name
    member = config.member(bare) if bare else None
    if member is None:
        raise NotFound(f"Unknown {role} '{shown(name)}' in team '{team}'")
    return member.name
