"""The MCP server: the tools of mcp_server/tools.py, acting as one member of one team.

This is the wiring: a server offers the tools its seat's role may use, refuses a call
its role may not make, counts each call on the heartbeat (HTTP), and hands each tool
its :class:`~teamdeck.mcp_server.tools.Desk`. Results are structured JSON (the shapes of
the CLI's ``--json``). Every error reaches the agent as a tool error carrying teamdeck's
one-line message; arguments that do not match a tool's schema are reported in one line
too. Nothing an agent sends makes the server answer with a traceback.
"""

from __future__ import annotations

import functools
import inspect
import logging
from collections.abc import Callable
from typing import Any

import anyio
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp_types import CallToolResult, InputRequiredResult
from pydantic import ValidationError

from teamdeck import __version__
from teamdeck.errors import TeamdeckError
from teamdeck.mcp_server.seat import Seat
from teamdeck.mcp_server.tools import TOOLS, Desk, Tool
from teamdeck.protocol.coordination import roles
from teamdeck.protocol.team import teams
from teamdeck.protocol.team.connections import Heartbeat

log = logging.getLogger(__name__)

RULES = {declared.name: declared.rule for declared in TOOLS}
"""Each tool's role rule, by name (a call of a tool its seat is not offered is refused
with the rule's reason, not as an unknown tool)."""


class TeamdeckMCP(MCPServer[Any]):
    """MCPServer whose argument errors are one line (pydantic's own span several lines
    and echo the input), and which refuses a tool its member's role may not use with one
    line saying why (the tool is not listed either)."""

    seat: Seat | None = None

    async def call_tool(
        self, name: str, arguments: dict[str, Any], context: Context[Any, Any] | None = None
    ) -> CallToolResult | InputRequiredResult:
        seat, rule = self.seat, RULES.get(name)
        if seat is not None and rule is not None:
            refused = roles.refusal(_current_role(seat), rule, member=seat.member, team=seat.team)
            if refused is not None:
                raise ToolError(refused)
        try:
            return await super().call_tool(name, arguments, context)
        except ToolError as err:
            if isinstance(err.__cause__, ValidationError):
                raise ToolError(
                    f"Error executing tool {name}: invalid arguments: {_problems(err.__cause__)}; nothing was written"
                ) from None
            raise


def _current_role(seat: Seat) -> str:
    """The seat's role as the roster says now (a person may have changed it since the
    server started and listed its tools); the role at start when the roster cannot be read."""
    try:
        return roles.role_of(teams.read_team(seat.ws, seat.team), seat.member)
    except TeamdeckError:
        return seat.role


def _problems(err: ValidationError) -> str:
    """``summary: Field required; limit: Input should be less than or equal to 500``."""
    parts = []
    for problem in err.errors(include_url=False):
        where = ".".join(str(part) for part in problem["loc"]) or "arguments"
        limit = problem.get("ctx", {}).get("max_length")
        if problem["type"] in ("string_too_long", "too_long") and isinstance(limit, int):
            what = "characters" if problem["type"] == "string_too_long" else "items"
            parts.append(f"{where}: {len(problem['input']):,} {what}, over the limit of {limit:,}")
        else:
            parts.append(f"{where}: {problem['msg']}")
    return "; ".join(parts)


def build_server(seat: Seat, heartbeat: Heartbeat | None = None, extra_instructions: str = "") -> TeamdeckMCP:
    """The MCP server acting as ``seat``; ``heartbeat`` (HTTP) counts the tool calls;
    ``extra_instructions`` are added to what the model is told (the channel's)."""
    server = TeamdeckMCP(
        name="teamdeck",
        version=__version__,
        instructions=(
            f"You are '{seat.member}' of team '{seat.team}'"
            + (f", its {seat.role}" if seat.role != "none" else "")
            + ". These tools coordinate your team through the workspace files teamdeck supervises: messages, "
            "delegated tasks, reports and decisions by a person." + extra_instructions
        ),
        log_level="WARNING",
    )
    server.seat = seat
    for declared in TOOLS:
        if declared.rule is None or roles.why_refused(seat.role, declared.rule) is None:
            server.add_tool(
                _served(declared, seat, heartbeat),
                name=declared.name,
                description=declared.description,
                structured_output=True,
            )
    return server


def _served(declared: Tool, seat: Seat, heartbeat: Heartbeat | None) -> Callable[..., Any]:
    """``declared.call`` as the SDK calls it: with the tool's own arguments (its
    signature after the desk, from which the SDK derives the schema) and the call's
    Context, of which the desk is made; the call is counted on ``heartbeat``, a plain
    call runs on a worker thread, and its errors become tool errors with the same
    one-line message."""
    signature = inspect.signature(declared.call, eval_str=True)
    own = list(signature.parameters.values())[1:]  # after the desk
    context = inspect.Parameter("ctx", inspect.Parameter.KEYWORD_ONLY, annotation=Context[Any, Any])
    is_async = inspect.iscoroutinefunction(declared.call)

    async def served(ctx: Context[Any, Any], **arguments: Any) -> Any:
        if heartbeat is not None:
            heartbeat.called()
        desk = Desk(seat, ctx)
        try:
            if is_async:
                return await declared.call(desk, **arguments)
            return await anyio.to_thread.run_sync(functools.partial(declared.call, desk, **arguments))
        except TeamdeckError as err:
            raise ToolError(str(err)) from None
        except Exception as err:  # the one place a surprise becomes one line for the agent
            log.exception("internal error in %s", declared.name)
            raise ToolError(f"internal error in {declared.name}: {type(err).__name__}: {err}") from None

    served.__name__ = served.__qualname__ = declared.name  # the schemas' titles: list_agentsArguments
    served.__signature__ = signature.replace(parameters=[*own, context])  # type: ignore[attr-defined]
    return served
