"""The questions a ``teamdeck serve`` client may ask (``query`` frames), each declared
once: its name, its arguments (a strict model) and its answer, read from the newest
snapshot the server shows or, for what a snapshot does not hold (a conversation, a
run's log), from the files as the CLI reads them. A query changes nothing and is not
recorded.

To offer another: one :func:`query` here.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Annotated, Any

from pydantic import BaseModel, ConfigDict, Field

from teamdeck.errors import NotFound, Refused
from teamdeck.shapes.arguments import Id, parsed_arguments
from teamdeck.shapes.runs import run_detail_json, runs_json
from teamdeck.shapes.snapshot import inbox_json
from teamdeck.view.snapshot.workspace import WorkspaceSnapshot

if TYPE_CHECKING:
    from teamdeck.store.workspace import Workspace


class QueryArgs(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class MemberQuery(QueryArgs):
    team: Id
    member: Id


class ConversationQuery(MemberQuery):
    limit: Annotated[int, Field(ge=1, le=500)] = 50
    before: Annotated[int, Field(ge=0)] | None = None


class RunQuery(QueryArgs):
    run: Id


@dataclass(frozen=True)
class Query:
    """One question a client may ask: its ``what``, the model its ``args`` must match,
    and its answer from the newest snapshot (and the workspace, for what it does not hold)."""

    name: str
    args: type[QueryArgs]
    answer: Callable[[Any, WorkspaceSnapshot, Workspace], Any]


QUERIES: dict[str, Query] = {}
"""Every query, by name, in the order declared (docs/serve.md lists them)."""


def query(*, name: str, args: type[QueryArgs]) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Declare ``name``: a query with ``args`` is answered by the decorated function."""

    def register(answer: Callable[..., Any]) -> Callable[..., Any]:
        QUERIES[name] = Query(name=name, args=args, answer=answer)
        return answer

    return register


@query(name="inbox", args=MemberQuery)
def _inbox(args: MemberQuery, snapshot: WorkspaceSnapshot, ws: Workspace) -> dict[str, Any]:
    """A member's messages, as the TUI's inbox panel shows them."""
    member = snapshot.member(f"{args.team}/{args.member}")
    if member is None:
        raise NotFound(f"no member {args.member} in team {args.team} on this host")
    return inbox_json(member)


@query(name="conversation", args=ConversationQuery)
def _conversation(args: ConversationQuery, snapshot: WorkspaceSnapshot, ws: Workspace) -> dict[str, Any]:
    """What a member sent and received, oldest first (``teamdeck conversation --json``)."""
    from teamdeck.protocol.coordination.conversation import read_conversation

    return read_conversation(ws, args.team, args.member, limit=args.limit, before=args.before).to_json()


@query(name="runs", args=MemberQuery)
def _runs(args: MemberQuery, snapshot: WorkspaceSnapshot, ws: Workspace) -> dict[str, Any]:
    """A member's runs, newest last (``teamdeck runs --json`` for one member)."""
    from teamdeck.view.readers.runs import member_runs

    runs = member_runs(ws, args.team, args.member)
    return {**runs_json(list(runs.runs)), "problems": list(runs.problems)}


@query(name="run-log", args=RunQuery)
def _run_log(args: RunQuery, snapshot: WorkspaceSnapshot, ws: Workspace) -> dict[str, Any]:
    """One run: its record, its events and the ends of its output (``teamdeck runs show RUN --json``)."""
    from teamdeck.view.readers.runs import find_run, run_events, run_output

    run = find_run(ws, args.run)
    if run is None:
        raise NotFound(f"no run {args.run} on this host")
    return run_detail_json(run, run_events(ws, run), run_output(ws, run))


def answer_query(name: str, raw_args: dict[str, object], snapshot: WorkspaceSnapshot, ws: Workspace) -> Any:
    """The answer to query ``name``.

    Raises:
        Refused: an unknown query, or arguments that do not match it.
        NotFound: what it asks about is not there.
    """
    declared = QUERIES.get(name)
    if declared is None:
        raise Refused(f"unknown query {name!r}; the queries are: {', '.join(QUERIES)}")
    return declared.answer(parsed_arguments(declared.args, raw_args, name), snapshot, ws)
