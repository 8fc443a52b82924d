"""The MCP server: the ten tools of :mod:`catalog`, acting as one member of one team.

Every tool is a thin call of the protocol (or view) function the CLI uses, with the
server's member as the sender, delegator and reporter. Results are structured JSON
(the shapes of the CLI's ``--json``). Every error reaches the agent as a tool error
carrying teamdeck's one-line message; arguments that do not match a tool's schema are
reported in one line too. Nothing an agent sends makes the server answer with a
traceback.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Literal, TypeVar

import anyio
from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp_types import CallToolResult, InputRequiredResult
from pydantic import Field, StringConstraints, ValidationError

from teamdeck import __version__
from teamdeck.errors import Refused, TeamdeckError
from teamdeck.mcp_server.catalog import TOOLS
from teamdeck.protocol.coordination import agent_watch, decisions, delegation, roles
from teamdeck.protocol.coordination.conversation import MAX_LIMIT, read_conversation
from teamdeck.protocol.task.taskfile import load_task
from teamdeck.protocol.team import teams
from teamdeck.protocol.team.connections import Heartbeat
from teamdeck.protocol.team.messaging import injection, reading, sending
from teamdeck.protocol.team.messaging.names import resolve_member
from teamdeck.shapes.coordination import delegation_json, report_json
from teamdeck.store.workspace import Workspace
from teamdeck.view import agents as agent_views
from teamdeck.watch_hub import wait_until

if TYPE_CHECKING:
    from teamdeck.store.inbox import InboxEntry

log = logging.getLogger(__name__)

T = TypeVar("T")

MAX_WAIT_S = 3600.0
"""The longest one wait may last (an agent can call again)."""
PROGRESS_EVERY_S = 10.0
"""How often a waiting call tells the client it is still at work (MCP progress, when the
client asked for it): Claude Code aborts a tool call that sends "no response or progress"
for its idle timeout (2.1.332: 5 min over HTTP, 30 min over stdio), far below MAX_WAIT_S."""


@dataclass(frozen=True)
class Seat:
    """Who the server acts as: a member of a team in a workspace (``ws.actor`` is
    ``agent:<member>@<team>``)."""

    ws: Workspace
    team: str
    member: str
    role: str = "none"
    """Its role in the roster (protocol/coordination/roles.py): which tools the server offers."""

    @property
    def worker_id(self) -> str:
        """The member's worker id on tasks (its name in lower case, as delegate records it)."""
        return delegation.worker_id_for(self.member)


def take_seat(ws: Workspace, team: str, member: str) -> Seat:
    """The seat of ``member`` (any spelling ``send`` accepts) in ``team``.

    Raises:
        NotFound: no such team, or the member is not on it.
        InvalidFile: config.json cannot be read.
    """
    config = teams.read_team(ws, team)
    name = resolve_member(config, team, member, role="member")
    return Seat(ws._replace(actor=f"agent:{name}@{team}"), team, name, roles.role_of(config, name))


class TeamdeckMCP(MCPServer[Any]):
    """MCPServer whose argument errors are one line (pydantic's own span several lines
    and echo the input), and which refuses a tool its member's role may not use with one
    line saying why (the tool is not listed either)."""

    seat: Seat | None = None

    async def call_tool(
        self, name: str, arguments: dict[str, Any], context: Context[Any, Any] | None = None
    ) -> CallToolResult | InputRequiredResult:
        seat = self.seat
        role = _current_role(seat) if seat is not None else "none"
        why = roles.why_refused(role, name)
        if seat is not None and why is not None:
            raise ToolError(
                f"Could not {name.replace('_', ' ')} as '{seat.member}': it is the {role} of team "
                f"'{seat.team}'; {why}; nothing was written"
            )
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


def _call(action: str, call: Callable[[], T]) -> T:
    """Run a teamdeck call; its errors become tool errors with the same one-line message."""
    try:
        return call()
    except TeamdeckError as err:
        raise ToolError(str(err)) from None
    except Exception as err:  # the one place a surprise becomes one line for the agent
        log.exception("internal error in %s", action)
        raise ToolError(f"internal error in {action}: {type(err).__name__}: {err}") from None


def _own_task(seat: Seat, task_id: str, action: str) -> None:
    """Refuse a task of another team: an agent acts only within its own team.

    Raises:
        NotFound, InvalidId, InvalidFile: the task cannot be read.
        Refused: it belongs to another team.
    """
    task = load_task(seat.ws, task_id)
    if task.team is not None and task.team != seat.team:
        raise Refused(
            f"Could not {action}: task {task.id} belongs to team '{task.team}', not '{seat.team}'; nothing was written"
        )


ID_CHARS = 130
"""An id or a member (``name@team``: two names of at most 64)."""
SHORT_CHARS = 500
"""A summary, a reason, a role, a model."""
TEXT_CHARS = 10_000
"""A message, a note, a prompt, a report: well under the 64 KiB log record even when
every character is escaped."""
ITEMS = 50
"""Questions, next actions, changed files."""

Id = Annotated[str, StringConstraints(max_length=ID_CHARS)]
Short = Annotated[str, StringConstraints(max_length=SHORT_CHARS)]
Text = Annotated[str, StringConstraints(max_length=TEXT_CHARS)]
MemberArg = Annotated[Id, Field(description="a member of your team: name, NAME, name@team or team-lead")]
TaskArg = Annotated[Id, Field(description="a teamdeck task id (the directory tasks/<id>/ holding task.yaml)")]


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
    ws = seat.ws

    def run(action: str, call: Callable[[], T]) -> T:
        if heartbeat is not None:
            heartbeat.called()
        return _call(action, call)

    def list_agents() -> dict[str, Any]:
        agents = run("list_agents", lambda: agent_views.list_agents(ws, seat.team))
        return {"team": seat.team, "you": seat.member, "agents": agents}

    def read_agent_conversation(
        member: MemberArg,
        limit: Annotated[int, Field(ge=1, le=MAX_LIMIT, description="how many messages (rows) to return")] = 50,
        before: Annotated[
            int | None, Field(ge=0, description="return rows before this row index (a previous result's `before`)")
        ] = None,
    ) -> dict[str, Any]:
        page = run(
            "read_agent_conversation",
            lambda: read_conversation(ws, seat.team, member, limit=limit, before=before),
        )
        return page.to_json()

    def create_agent(
        name: Annotated[Id, Field(description="the new member's name (its inbox file name; letters, digits, . _ -)")],
        role: Annotated[
            Short, Field(description="its agentType in the roster, e.g. general-purpose, researcher, tester")
        ] = teams.DEFAULT_AGENT_TYPE,
        model: Annotated[Short | None, Field(description="the model it runs, if you know it")] = None,
        prompt: Annotated[Text, Field(description="its instructions, kept in the roster")] = "",
        team_role: Annotated[
            Literal["coordinator", "crafter", "gate", "none"],
            Field(description="what it may do (seed 002): crafter does tasks, gate verifies, coordinator delegates"),
        ] = "none",
    ) -> dict[str, Any]:
        member = run(
            "create_agent",
            lambda: teams.add_member(ws, seat.team, name, agent_type=role, model=model, prompt=prompt, role=team_role),
        )
        return {
            "team": seat.team,
            "member": member.to_json(),
            "started": False,
            "note": "added to the roster: `teamdeck run` starts it when agents: in .teamdeck.yaml names it "
            "(its prompt is its first run's work); otherwise start its process with your runtime",
        }

    def delegate(
        task: TaskArg,
        member: MemberArg,
        role: Annotated[
            Literal["implementor", "verifier", "coordinator"], Field(description="the member's role on the task")
        ] = "implementor",
        note: Annotated[Text, Field(description="extra instructions added to the assignment")] = "",
    ) -> dict[str, Any]:
        def call() -> delegation.Delegation:
            _own_task(seat, task, f"delegate task {task}")
            return delegation.delegate(ws, task, member, role=role, sender=seat.member, note=note)

        return delegation_json(run("delegate", call))

    def message_agent(
        member: MemberArg,
        summary: Annotated[Short, Field(description="a short summary the recipient sees first (required)")],
        text: Annotated[Text, Field(description="the message")],
    ) -> dict[str, Any]:
        sent = run(
            "message_agent",
            lambda: sending.send_message(ws, seat.team, member, text, summary=summary, sender=seat.member),
        )
        return sent.to_json()

    async def wait_for_agent(
        member: MemberArg,
        task: Annotated[
            Id | None, Field(description="the task whose report you wait for (default: any task of the member)")
        ] = None,
        timeout_s: Annotated[float, Field(ge=0, le=MAX_WAIT_S, description="the longest to wait, in seconds")] = 300,
        ctx: Context[Any, Any] | None = None,
    ) -> dict[str, Any]:
        if heartbeat is not None:
            heartbeat.called()

        def start() -> tuple[agent_watch.AgentState, dict[str, Any] | None]:
            if task is not None:
                _own_task(seat, task, f"wait for '{member}' on task {task}")
            state = agent_watch.observe(ws, seat.team, member, task)
            return state, agent_watch.settled(state)

        baseline, done = await _in_thread("wait_for_agent", start)
        if done is not None:
            return done

        def check() -> dict[str, Any] | None:
            return agent_watch.what_happened(baseline, agent_watch.observe(ws, seat.team, baseline.member, task))

        paths = agent_watch.watched_paths(ws, seat.team, task)
        happened = await _waited("wait_for_agent", paths, check, timeout_s, ctx)
        if happened is not None:
            return happened
        final = await _in_thread("wait_for_agent", lambda: agent_watch.observe(ws, seat.team, baseline.member, task))
        return agent_watch.outcome(final, "timeout", final.reports.get(task) if task else None)

    def report_to_parent(
        task: TaskArg,
        status: Annotated[
            Literal["completed", "blocked", "failed"],
            Field(description="completed, blocked (a person must answer) or failed"),
        ],
        summary: Annotated[Text, Field(description="what you did, or why you stopped")],
        questions: Annotated[
            tuple[Text, ...], Field(max_length=ITEMS, description="questions for a person (with status blocked)")
        ] = (),
        next_actions: Annotated[tuple[Text, ...], Field(max_length=ITEMS, description="what should happen next")] = (),
        changed_files: Annotated[tuple[Short, ...], Field(max_length=ITEMS, description="files you changed")] = (),
    ) -> dict[str, Any]:
        def call() -> delegation.Report:
            _own_task(seat, task, f"report on task {task}")
            return delegation.report(
                ws,
                task,
                seat.worker_id,
                status=status,
                summary=summary,
                questions=list(questions),
                next_actions=list(next_actions),
                changed_files=list(changed_files),
            )

        return report_json(run("report_to_parent", call))

    def request_decision(
        task: TaskArg,
        reason: Annotated[Short, Field(description="what must be decided, in one line")],
        questions: Annotated[
            list[Text], Field(max_length=ITEMS, description="the questions a person should answer (at least one)")
        ],
    ) -> dict[str, Any]:
        def call() -> decisions.DecisionRequest:
            _own_task(seat, task, f"request a decision on task {task}")
            return decisions.request_decision(ws, task, seat.worker_id, reason=reason, questions=questions)

        done = run("request_decision", call)
        return {
            **decisions.decision_json(done.task.id, done.gate),
            "taskState": done.task.state,
            "notices": done.notices,
        }

    async def get_decision(
        task: TaskArg,
        gate: Annotated[Id, Field(description="the gate id request_decision returned")],
        wait_s: Annotated[
            float,
            Field(ge=0, le=MAX_WAIT_S, description="wait up to this many seconds for the decision (0: answer now)"),
        ] = 0,
        ctx: Context[Any, Any] | None = None,
    ) -> dict[str, Any]:
        if heartbeat is not None:
            heartbeat.called()

        def current() -> dict[str, Any]:
            return decisions.decision_json(task, decisions.get_decision(ws, task, gate))

        def start() -> dict[str, Any]:
            _own_task(seat, task, f"read gate {gate} of task {task}")
            return current()

        def check() -> dict[str, Any] | None:
            found = current()
            return found if found["status"] != "pending" else None

        first = await _in_thread("get_decision", start)
        if first["status"] != "pending" or wait_s <= 0:
            return first
        decided = await _waited("get_decision", [ws.task_dir(task)], check, wait_s, ctx)
        return decided if decided is not None else first

    def read_inbox(
        unread_only: Annotated[bool, Field(description="only the messages not read yet (they are marked read)")] = True,
    ) -> dict[str, Any]:
        def call() -> list[dict[str, Any]]:
            earlier = (
                []
                if unread_only
                else [
                    entry
                    for entry in reading.list_inbox(ws, seat.team, seat.member)
                    if entry.message and entry.message.read
                ]
            )
            taken = injection.inject(ws, seat.team, seat.member)
            return [_earlier_json(seat, entry) for entry in earlier] + [item.to_json() for item in taken]

        messages = run("read_inbox", call)
        return {
            "team": seat.team,
            "member": seat.member,
            "messages": messages,
            "text": "\n".join(message["block"] for message in messages),
        }

    for name, function in (
        ("list_agents", list_agents),
        ("read_agent_conversation", read_agent_conversation),
        ("create_agent", create_agent),
        ("delegate", delegate),
        ("message_agent", message_agent),
        ("wait_for_agent", wait_for_agent),
        ("report_to_parent", report_to_parent),
        ("request_decision", request_decision),
        ("get_decision", get_decision),
        ("read_inbox", read_inbox),
    ):
        if roles.why_refused(seat.role, name) is None:
            server.add_tool(function, name=name, description=TOOLS[name], structured_output=True)
    return server


def _earlier_json(seat: Seat, entry: InboxEntry) -> dict[str, Any]:
    """A message read earlier, in the shape of :meth:`injection.Injected.to_json`."""
    message, kind = entry.message, entry.kind
    assert message is not None and kind is not None, "list_inbox returns decoded messages only"
    return injection.Injected(
        seat.team,
        message.from_,
        seat.member,
        kind.KIND,
        message.timestamp,
        message.text,
        summary=message.summary,
        color=message.color,
        request_id=kind.correlation_id,
    ).to_json()


async def _in_thread(action: str, call: Callable[[], T]) -> T:
    """Run a blocking teamdeck call on a worker thread, errors as for :func:`_call`."""
    return await anyio.to_thread.run_sync(lambda: _call(action, call))


async def _waited(
    action: str, paths: list[Path], check: Callable[[], T | None], timeout_s: float, ctx: Context[Any, Any] | None
) -> T | None:
    """:func:`teamdeck.watch_hub.wait_until`, with ``check``'s errors as tool errors, telling
    the client every :data:`PROGRESS_EVERY_S` that the call is alive."""
    async with anyio.create_task_group() as group:
        if ctx is not None:
            group.start_soon(_report_progress, ctx, timeout_s)
        found = await wait_until(paths, lambda: _call(action, check), timeout_s)
        group.cancel_scope.cancel()
    return found


async def _report_progress(ctx: Context[Any, Any], timeout_s: float) -> None:
    """Seconds waited out of ``timeout_s``, every :data:`PROGRESS_EVERY_S` (a no-op for a
    client that asked for no progress)."""
    started = anyio.current_time()
    while True:
        await anyio.sleep(PROGRESS_EVERY_S)
        await ctx.report_progress(anyio.current_time() - started, timeout_s, "waiting")
