"""Each MCP tool is declared once (mcp_server/tools.py) and served as declared: the
server lists the tools its seat's role may use, in order, with the declared
description, and an input schema of exactly the arguments after the desk (the desk and
the call's context never reach an agent)."""

from __future__ import annotations

import inspect

import anyio
import pytest

from teamdeck.mcp_server.seat import take_seat
from teamdeck.mcp_server.server import build_server
from teamdeck.mcp_server.tools import TOOLS
from teamdeck.protocol.coordination import roles
from teamdeck.protocol.team.teams import add_member, create_team
from teamdeck.store.workspace import Workspace


@pytest.mark.parametrize("role", ["none", "coordinator", "crafter", "gate"])
def test_a_seat_is_offered_the_declared_tools_its_role_may_use(ws: Workspace, role: str) -> None:
    create_team(ws, "alpha")
    add_member(ws, "alpha", "m", role=role)
    listed = anyio.run(build_server(take_seat(ws, "alpha", "m")).list_tools)
    offered = [tool for tool in TOOLS if tool.rule is None or roles.why_refused(role, tool.rule) is None]
    assert [tool.name for tool in listed] == [tool.name for tool in offered]
    for served, declared in zip(listed, offered, strict=True):
        arguments = list(inspect.signature(declared.call).parameters)[1:]
        assert served.description == declared.description
        assert list(served.input_schema["properties"]) == arguments
        assert served.input_schema["title"] == f"{declared.name}Arguments"


def test_every_role_rule_names_an_operation_roles_restrict() -> None:
    restricted = {operation for refused in roles.REFUSED.values() for operation in refused}
    assert {tool.rule for tool in TOOLS if tool.rule is not None} == restricted
