"""Roles (seed 002): a member's ``role`` in the roster (coordinator, crafter, gate; absent
or ``none``: no limits) decides which protocol calls it may make, which tools its MCP
server offers, and the role prompt its runtime injects on its first run.

- **coordinator** plans and delegates, never does the work: it does not report on a task
  as its worker.
- **crafter** does the task it was given: it does not delegate or create agents (when
  blocked, it tells the coordinator).
- **gate** checks the acceptance criteria and gives its verdict (its report): it does not
  delegate, create agents or open decisions that change a task's state.

A refusal is one line naming the member, its role and what to do instead.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from teamdeck.errors import InvalidFile, Refused
from teamdeck.model.team import MEMBER_ROLES, TeamConfig
from teamdeck.protocol.team.teams import read_team
from teamdeck.resources import data_dir
from teamdeck.store.files import read_optional
from teamdeck.store.workspace import Workspace

if TYPE_CHECKING:  # the task model (and the guardian models it holds) is for the type alone
    from teamdeck.model.task import Task

ROLES = MEMBER_ROLES

DELEGATE = "delegate"
CREATE_AGENT = "create_agent"
REPORT = "report_to_parent"
REQUEST_DECISION = "request_decision"
"""The operations a role can be refused, by the names a refusal says (``Could not
delegate``); an MCP tool names the one whose rule it follows (mcp_server/tools.py)."""

REFUSED: dict[str, dict[str, str]] = {
    "coordinator": {
        REPORT: "a coordinator plans and delegates; it does not report on a task as its worker "
        "(delegate the task to a crafter)",
    },
    "crafter": {
        DELEGATE: "a crafter does the task it was given and does not delegate (tell the coordinator what blocks you)",
        CREATE_AGENT: "a crafter does not create agents (ask the coordinator for one)",
    },
    "gate": {
        DELEGATE: "a gate gives its verdict on the acceptance criteria and does not delegate",
        CREATE_AGENT: "a gate does not create agents",
        REQUEST_DECISION: "a gate changes no task state beyond its verdict: report it with report_to_parent "
        "(status blocked when a person must decide)",
    },
}
"""Role → the operations it may not make, with why."""


def role_of(config: TeamConfig, member: str) -> str:
    """The member's role (``none`` for the lead, an unknown member or no role)."""
    found = config.member(member)
    role = (found.role or "none") if found is not None and not config.is_lead(member) else "none"
    return role if role in ROLES else "none"


def why_refused(role: str, operation: str) -> str | None:
    """Why ``role`` may not make ``operation``, or None when it may."""
    return REFUSED.get(role, {}).get(operation)


def refusal(role: str, operation: str, *, member: str, team: str) -> str | None:
    """The one line refusing ``operation`` to ``member`` of ``team``, whose role is
    ``role`` (who, which role, what to do instead), or None when it may."""
    why = why_refused(role, operation)
    if why is None:
        return None
    return f"Could not {operation.replace('_', ' ')} as '{member}': it is the {role} of team '{team}'; {why}; nothing was written"


def check_role(config: TeamConfig, member: str, operation: str) -> None:
    """Refuse ``operation`` by ``member`` when its role forbids it.

    Raises:
        Refused: one line: who, which role, what to do instead; nothing was written.
    """
    refused = refusal(role_of(config, member), operation, member=member, team=config.name)
    if refused is not None:
        raise Refused(refused)


def check_worker(ws: Workspace, task: Task, agent_id: str, operation: str) -> None:
    """:func:`check_role` for the worker ``agent_id`` of ``task`` (its member on the task,
    else the member of that name); a task without a team has no roles.

    Raises:
        Refused: the role forbids it. NotFound, InvalidFile: the team cannot be read.
    """
    if task.team is None:
        return
    member = next((worker.member for worker in task.workers if worker.id == agent_id and worker.member), agent_id)
    check_role(read_team(ws, task.team), member, operation)


def role_prompt(role: str) -> str | None:
    """The role prompt ``templates/roles/<role>.md`` (None for ``none``).

    Raises:
        InvalidFile: the template is missing from this installation.
    """
    if role not in ROLES or role == "none":
        return None
    path = data_dir("templates") / "roles" / f"{role}.md"
    data = read_optional(path)
    if data is None:
        raise InvalidFile(path, "", f"the role prompt '{role}' is missing from this installation")
    return data.decode("utf-8", "replace")


def member_role_prompt(config: TeamConfig, member: str) -> str | None:
    """What the runtime injects on ``member``'s first run: its role's prompt, or None."""
    return role_prompt(role_of(config, member))
