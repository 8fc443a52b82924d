"""The questions a ``teamdeck serve`` client may ask (``query`` frames), each declared
once: its name, its arguments (a strict model) and its answer, read from the newest
snapshot the server shows. A query changes nothing and is not recorded.

To offer another: one :func:`query` here.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ConfigDict

from teamdeck.errors import NotFound, Refused
from teamdeck.shapes.arguments import Id, parsed_arguments
from teamdeck.shapes.snapshot import inbox_json
from teamdeck.view.snapshot.workspace import WorkspaceSnapshot


class QueryArgs(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class MemberQuery(QueryArgs):
    team: Id
    member: Id


@dataclass(frozen=True)
class Query:
    """One question a client may ask: its ``what``, the model its ``args`` must match,
    and its answer from the newest snapshot."""

    name: str
    args: type[QueryArgs]
    answer: Callable[[Any, WorkspaceSnapshot], Any]


QUERIES: dict[str, Query] = {}
"""Every query, by name, in the order declared (docs/serve.md lists them)."""


def query(*, name: str, args: type[QueryArgs]) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Declare ``name``: a query with ``args`` is answered by the decorated function."""

    def register(answer: Callable[..., Any]) -> Callable[..., Any]:
        QUERIES[name] = Query(name=name, args=args, answer=answer)
        return answer

    return register


@query(name="inbox", args=MemberQuery)
def _inbox(args: MemberQuery, snapshot: WorkspaceSnapshot) -> dict[str, Any]:
    """A member's messages, as the TUI's inbox panel shows them."""
    member = snapshot.member(f"{args.team}/{args.member}")
    if member is None:
        raise NotFound(f"no member {args.member} in team {args.team} on this host")
    return inbox_json(member)


def answer_query(name: str, raw_args: dict[str, object], snapshot: WorkspaceSnapshot) -> Any:
    """The answer to query ``name``.

    Raises:
        Refused: an unknown query, or arguments that do not match it.
        NotFound: what it asks about is not there.
    """
    declared = QUERIES.get(name)
    if declared is None:
        raise Refused(f"unknown query {name!r}; the queries are: {', '.join(QUERIES)}")
    return declared.answer(parsed_arguments(declared.args, raw_args, name), snapshot)
