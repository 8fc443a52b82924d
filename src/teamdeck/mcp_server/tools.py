"""The ten tools ``teamdeck mcp`` serves, each declared once: its name, the description
agents read, its arguments (the function's signature, from which the MCP SDK derives
the input schema: names, types, limits, defaults and each argument's description), the
role rule it follows (protocol/coordination/roles.py) and the protocol call it makes.

A tool is a function of a :class:`Desk` (who calls, as the server's seat; the call's
progress) and its arguments; ``@tool`` adds it to :data:`TOOLS`, in the order they are
listed. mcp_server/server.py serves them: it offers a tool only to a seat whose role
may use it, refuses a call its role may not make, counts the call on the heartbeat and
turns teamdeck's errors into tool errors with the same one-line message. To add a tool:
one function here.

Nothing here imports the MCP SDK, so ``teamdeck mcp --help`` (:func:`help_text`) lists
the tools without it.
"""

from __future__ import annotations

import textwrap
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, Literal, Protocol, TypeVar

import anyio
from pydantic import Field

from teamdeck.errors import Refused
from teamdeck.mcp_server.seat import Seat
from teamdeck.protocol.coordination import agent_watch, decisions, delegation, roles
from teamdeck.protocol.coordination.conversation import MAX_LIMIT, read_conversation
from teamdeck.protocol.task.taskfile import load_task
from teamdeck.protocol.team import teams
from teamdeck.protocol.team.messaging import injection, reading, sending
from teamdeck.shapes.arguments import ITEMS, Id, Short, Text
from teamdeck.shapes.coordination import delegation_json, report_json
from teamdeck.view import agents as agent_views
from teamdeck.watch_hub import wait_until

if TYPE_CHECKING:
    from teamdeck.formats.inboxes import InboxEntry

T = TypeVar("T")

MAX_WAIT_S = 3600.0
"""The longest one wait may last (an agent can call again)."""
PROGRESS_EVERY_S = 10.0
"""How often a waiting call tells the client it is still at work (MCP progress, when the
client asked for it): Claude Code aborts a tool call that sends "no response or progress"
for its idle timeout (2.1.332: 5 min over HTTP, 30 min over stdio), far below MAX_WAIT_S."""


class Progress(Protocol):
    """Where a call reports its progress (the MCP SDK's ``Context``; a no-op for a
    client that asked for none)."""

    async def report_progress(self, progress: float, total: float | None = None, message: str | None = None) -> None:
        """``progress`` of ``total``, with a word on what is going on."""


@dataclass(frozen=True)
class Desk:
    """What a tool works with: the seat it acts as (its member is the sender, delegator
    and reporter) and where the call reports progress."""

    seat: Seat
    progress: Progress

    async def in_thread(self, call: Callable[[], T]) -> T:
        """Run a blocking teamdeck call on a worker thread."""
        return await anyio.to_thread.run_sync(call)

    async def waited(self, paths: list[Path], check: Callable[[], T | None], timeout_s: float) -> T | None:
        """:func:`teamdeck.watch_hub.wait_until`, telling the client every
        :data:`PROGRESS_EVERY_S` that the call is alive; what ``check`` raises comes
        through as it is."""
        try:
            async with anyio.create_task_group() as group:
                group.start_soon(self._report_progress, timeout_s)
                found = await wait_until(paths, check, timeout_s)
                group.cancel_scope.cancel()
        except BaseExceptionGroup as errors:  # check's error, raised inside the task group
            raise errors.exceptions[0] if len(errors.exceptions) == 1 else errors from None
        return found

    async def _report_progress(self, timeout_s: float) -> None:
        """Seconds waited out of ``timeout_s``, every :data:`PROGRESS_EVERY_S`."""
        started = anyio.current_time()
        while True:
            await anyio.sleep(PROGRESS_EVERY_S)
            await self.progress.report_progress(anyio.current_time() - started, timeout_s, "waiting")


@dataclass(frozen=True, kw_only=True)
class Tool:
    """One MCP tool.

    Attributes:
        name: the tool's name (the function's).
        description: what agents read.
        call: ``call(desk, **arguments)``, plain or async; its signature after ``desk``
            is the input schema.
        rule: the operation of protocol/coordination/roles.py whose rule says which roles may use
            it (None: every role).
    """

    name: str
    description: str
    call: Callable[..., Any]
    rule: str | None = None


TOOLS: list[Tool] = []
"""Every tool, in the order they are listed."""


def tool(*, description: str, rule: str | None = None) -> Callable[[Callable[..., T]], Callable[..., T]]:
    """Declare the function as a tool named after it (see :class:`Tool`)."""

    def declare(call: Callable[..., T]) -> Callable[..., T]:
        TOOLS.append(Tool(name=call.__name__, description=description, call=call, rule=rule))
        return call

    return declare


def help_text(width: int = 100) -> str:
    """The tools as ``teamdeck mcp --help`` lists them (the first sentence of each)."""
    lines = ["tools (the agent reads the full descriptions):"]
    for declared in TOOLS:
        first = declared.description.split(". ")[0].rstrip(".") + "."
        lines.append(textwrap.fill(first, width, initial_indent=f"  {declared.name:<25}", subsequent_indent=" " * 27))
    return "\n".join(lines)


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


MemberArg = Annotated[Id, Field(description="a member of your team: name, NAME, name@team or team-lead")]
TaskArg = Annotated[Id, Field(description="a teamdeck task id (the directory tasks/<id>/ holding task.yaml)")]


@tool(
    description="List the members of your team: name, role, model, derived status (working, idle, awaiting a "
    "person, shutdown-requested, shutdown-approved, offline; for a member `teamdeck run` runs: never-run, "
    "running, idle, failed), unread messages, whether an MCP server "
    "acts as them over HTTP (connected), whether `teamdeck run` is running their process now "
    "(running; run: since when, runs today, cost, how the last run ended), and the open tasks they work on "
    "(currentTask is the most recently changed)."
)
def list_agents(desk: Desk) -> dict[str, Any]:
    seat = desk.seat
    return {"team": seat.team, "you": seat.member, "agents": agent_views.list_agents(seat.ws, seat.team)}


@tool(
    description="Read a member's conversation: what it received and what it sent (from every inbox of the team and "
    "teamdeck's messages.jsonl), oldest first, newest last; consecutive idle notifications are folded "
    "into one row with a count. Pages: returns the `limit` messages before row index `before` (default: "
    "the newest); the result's `before` is the cursor for the previous page (null at the beginning). "
    "Reads only."
)
def read_agent_conversation(
    desk: Desk,
    member: MemberArg,
    limit: Annotated[int, Field(ge=1, le=MAX_LIMIT, description="how many messages (rows) to return")] = 50,
    before: Annotated[
        int | None, Field(ge=0, description="return rows before this row index (a previous result's `before`)")
    ] = None,
) -> dict[str, Any]:
    return read_conversation(desk.seat.ws, desk.seat.team, member, limit=limit, before=before).to_json()


@tool(
    description="Add a member to your team's roster (config.json), as Claude Code's Task(team_name, name) does; a "
    "member of that name who shut down is brought back. This only writes the roster: starting the "
    "agent's process is your runtime's job (e.g. spawn a teammate with that name). `team_role` (coordinator, "
    "crafter, gate) limits what the new member may do: a crafter does not delegate or create agents, a gate "
    "only gives its verdict.",
    rule=roles.CREATE_AGENT,
)
def create_agent(
    desk: Desk,
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
    seat = desk.seat
    member = teams.add_member(seat.ws, seat.team, name, agent_type=role, model=model, prompt=prompt, role=team_role)
    return {
        "team": seat.team,
        "member": member.to_json(),
        "started": False,
        "note": "added to the roster: `teamdeck run` starts it when agents: in .teamdeck.yaml names it "
        "(its prompt is its first run's work); otherwise start its process with your runtime",
    }


@tool(
    description="Assign a teamdeck task to a member of its team, as `teamdeck delegate`: records the worker in "
    "task.yaml (an approved task starts) and sends a task_assignment to the member's inbox, from you. "
    "You are told in your inbox when the worker reports (or use wait_for_agent).",
    rule=roles.DELEGATE,
)
def delegate(
    desk: Desk,
    task: TaskArg,
    member: MemberArg,
    role: Annotated[
        Literal["implementor", "verifier", "coordinator"], Field(description="the member's role on the task")
    ] = "implementor",
    note: Annotated[Text, Field(description="extra instructions added to the assignment")] = "",
) -> dict[str, Any]:
    seat = desk.seat
    _own_task(seat, task, f"delegate task {task}")
    return delegation_json(delegation.delegate(seat.ws, task, member, role=role, sender=seat.member, note=note))


@tool(
    description="Send a plain message to one member of your team, from you, as `teamdeck send` (Claude Code's "
    "SendMessage type=message): `member` is a name, NAME, name@team or team-lead; the summary is "
    "required and shown to the recipient; structured protocol messages are refused."
)
def message_agent(
    desk: Desk,
    member: MemberArg,
    summary: Annotated[Short, Field(description="a short summary the recipient sees first (required)")],
    text: Annotated[Text, Field(description="the message")],
) -> dict[str, Any]:
    seat = desk.seat
    return sending.send_message(seat.ws, seat.team, member, text, summary=summary, sender=seat.member).to_json()


@tool(
    description="Wait (without polling) until a member reports on a task (a new or changed final.json), the task "
    "ends, the member goes idle (a new idle notification) or offline, or `timeout_s` passes. Returns at "
    "once when there is nothing to wait for: the member is offline, the task is final, or its final "
    "report on the task is already in. The result's `event` says which: reported, task-finished, idle, "
    "offline or timeout, with the report if any."
)
async def wait_for_agent(
    desk: Desk,
    member: MemberArg,
    task: Annotated[
        Id | None, Field(description="the task whose report you wait for (default: any task of the member)")
    ] = None,
    timeout_s: Annotated[float, Field(ge=0, le=MAX_WAIT_S, description="the longest to wait, in seconds")] = 300,
) -> dict[str, Any]:
    ws, team = desk.seat.ws, desk.seat.team

    def start() -> tuple[agent_watch.AgentState, dict[str, Any] | None]:
        if task is not None:
            _own_task(desk.seat, task, f"wait for '{member}' on task {task}")
        state = agent_watch.observe(ws, team, member, task)
        return state, agent_watch.settled(state)

    baseline, done = await desk.in_thread(start)
    if done is not None:
        return done

    def check() -> dict[str, Any] | None:
        return agent_watch.what_happened(baseline, agent_watch.observe(ws, team, baseline.member, task))

    happened = await desk.waited(agent_watch.watched_paths(ws, team, task), check, timeout_s)
    if happened is not None:
        return happened
    final = await desk.in_thread(lambda: agent_watch.observe(ws, team, baseline.member, task))
    return agent_watch.outcome(final, "timeout", final.reports.get(task) if task else None)


@tool(
    description="Report on a task as its worker, as `teamdeck report`: writes your final.json (status completed, "
    "blocked or failed; summary; questions for a person; next actions; changed files), joins the task "
    "(blocked opens a gate for a person) and tells whoever delegated the task to you.",
    rule=roles.REPORT,
)
def report_to_parent(
    desk: Desk,
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
    seat = desk.seat
    _own_task(seat, task, f"report on task {task}")
    reported = delegation.report(
        seat.ws,
        task,
        seat.worker_id,
        status=status,
        summary=summary,
        questions=list(questions),
        next_actions=list(next_actions),
        changed_files=list(changed_files),
    )
    return report_json(reported)


@tool(
    description="Ask a person to decide something about a task, without finishing your work: opens a gate in the "
    "decision queue (the task becomes input-required; your questions go to shared/human-notes.md), "
    "exactly as a blocked report does. Returns the gate id: read the answer with get_decision.",
    rule=roles.REQUEST_DECISION,
)
def request_decision(
    desk: Desk,
    task: TaskArg,
    reason: Annotated[Short, Field(description="what must be decided, in one line")],
    questions: Annotated[
        list[Text], Field(max_length=ITEMS, description="the questions a person should answer (at least one)")
    ],
) -> dict[str, Any]:
    seat = desk.seat
    _own_task(seat, task, f"request a decision on task {task}")
    done = decisions.request_decision(seat.ws, task, seat.worker_id, reason=reason, questions=questions)
    return {**decisions.decision_json(done.task.id, done.gate), "taskState": done.task.state, "notices": done.notices}


@tool(
    description="Read a gate's decision: pending, approved or rejected, with who decided, when and their note "
    "(answers may also be written under the questions in shared/human-notes.md). With wait_s > 0, waits "
    "(without polling) up to that many seconds for the decision."
)
async def get_decision(
    desk: Desk,
    task: TaskArg,
    gate: Annotated[Id, Field(description="the gate id request_decision returned")],
    wait_s: Annotated[
        float,
        Field(ge=0, le=MAX_WAIT_S, description="wait up to this many seconds for the decision (0: answer now)"),
    ] = 0,
) -> dict[str, Any]:
    ws = desk.seat.ws

    def current() -> dict[str, Any]:
        return decisions.decision_json(task, decisions.get_decision(ws, task, gate))

    def start() -> dict[str, Any]:
        _own_task(desk.seat, task, f"read gate {gate} of task {task}")
        return current()

    def check() -> dict[str, Any] | None:
        found = current()
        return found if found["status"] != "pending" else None

    first = await desk.in_thread(start)
    if first["status"] != "pending" or wait_s <= 0:
        return first
    decided = await desk.waited([ws.task_dir(task)], check, wait_s)
    return decided if decided is not None else first


@tool(
    description="Read your inbox as `<teammate-message>` blocks (the format Claude Code injects), marking the unread "
    "ones read as `teamdeck inbox --inject` does (shutdown requests first). unread_only=false also returns "
    "the messages read earlier."
)
def read_inbox(
    desk: Desk,
    unread_only: Annotated[bool, Field(description="only the messages not read yet (they are marked read)")] = True,
) -> dict[str, Any]:
    seat = desk.seat
    earlier = (
        []
        if unread_only
        else [
            entry
            for entry in reading.list_inbox(seat.ws, seat.team, seat.member)
            if entry.message and entry.message.read
        ]
    )
    taken = injection.inject(seat.ws, seat.team, seat.member)
    messages = [_earlier_json(seat, entry) for entry in earlier] + [item.to_json() for item in taken]
    return {
        "team": seat.team,
        "member": seat.member,
        "messages": messages,
        "text": "\n".join(message["block"] for message in messages),
    }


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
