"""The actions a ``teamdeck serve`` client may ask for, each declared once: its op, the
arguments it takes (a strict model: unknown fields refused, every string capped) and
the action it builds (live/calls.py, the same the TUI's keys run).

To offer an action over the stream: one :func:`op` here.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

from teamdeck.decisions.registry import find_decision
from teamdeck.errors import Refused
from teamdeck.live import calls
from teamdeck.live.actions import Action
from teamdeck.shapes.arguments import ITEMS, Id, Short, Text, parsed_arguments
from teamdeck.view.snapshot.workspace import WorkspaceSnapshot


class Args(BaseModel):
    """What every op's arguments share: strict, as a peer is untrusted."""

    model_config = ConfigDict(extra="forbid", frozen=True)


class AnswerArgs(Args):
    key: Id
    answer: Annotated[str, Field(max_length=40)]
    note: Text | None = None


class MemberArgs(Args):
    team: Id
    member: Id


class MessageArgs(MemberArgs):
    text: Text
    summary: Short = ""


class BroadcastArgs(Args):
    team: Id
    text: Text
    summary: Short = ""


class ShutdownArgs(MemberArgs):
    reason: Short | None = None


class TaskArgs(Args):
    task: Id


class TaskNoteArgs(TaskArgs):
    note: Text | None = None


class MoveArgs(TaskNoteArgs):
    to: Id


class PlanArgs(Args):
    plan: Id
    members: Annotated[tuple[Id, ...], Field(max_length=ITEMS)] = ()


@dataclass(frozen=True)
class Op:
    """One action a client may ask for.

    Attributes:
        name: the request's ``op``.
        args: the model its ``args`` must match.
        build: the action, from the arguments and the newest snapshot (a decision is
            found by its key in what the server shows).
    """

    name: str
    args: type[Args]
    build: Callable[[Args, WorkspaceSnapshot], Action]


OPS: dict[str, Op] = {}
"""Every op, by name, in the order declared (docs/serve.md lists them)."""


def op(*, name: str, args: type[Args]) -> Callable[[Callable[..., Action]], Callable[..., Action]]:
    """Declare ``name``: a request with ``args`` builds the decorated function's action."""

    def register(build: Callable[..., Action]) -> Callable[..., Action]:
        OPS[name] = Op(name=name, args=args, build=build)
        return build

    return register


@op(name="answer", args=AnswerArgs)
def _answer(args: AnswerArgs, snapshot: WorkspaceSnapshot) -> Action:
    """Answer the decision ``key`` (any kind) with ``approve``/``reject`` or its own word."""
    return calls.answer(find_decision(snapshot, args.key), args.answer, args.note)


@op(name="message", args=MessageArgs)
def _message(args: MessageArgs, snapshot: WorkspaceSnapshot) -> Action:
    return calls.message(args.team, args.member, args.summary, args.text)


@op(name="broadcast", args=BroadcastArgs)
def _broadcast(args: BroadcastArgs, snapshot: WorkspaceSnapshot) -> Action:
    return calls.broadcast(args.team, args.summary, args.text)


@op(name="shutdown", args=ShutdownArgs)
def _shutdown(args: ShutdownArgs, snapshot: WorkspaceSnapshot) -> Action:
    return calls.shutdown(args.team, args.member, args.reason)


@op(name="deactivate", args=MemberArgs)
def _deactivate(args: MemberArgs, snapshot: WorkspaceSnapshot) -> Action:
    return calls.deactivate(args.team, args.member)


def _run_request(kind: Literal["wake", "stop"]) -> Callable[[MemberArgs, WorkspaceSnapshot], Action]:
    def build(args: MemberArgs, snapshot: WorkspaceSnapshot) -> Action:
        return calls.run_request(args.team, args.member, kind)

    return build


op(name="wake", args=MemberArgs)(_run_request("wake"))
op(name="stop", args=MemberArgs)(_run_request("stop"))


@op(name="move", args=MoveArgs)
def _move(args: MoveArgs, snapshot: WorkspaceSnapshot) -> Action:
    return calls.move_task(args.task, args.to, args.note)


@op(name="cancel", args=TaskNoteArgs)
def _cancel(args: TaskNoteArgs, snapshot: WorkspaceSnapshot) -> Action:
    return calls.cancel_task(args.task, args.note)


@op(name="retry", args=TaskNoteArgs)
def _retry(args: TaskNoteArgs, snapshot: WorkspaceSnapshot) -> Action:
    return calls.retry_task(args.task, args.note)


@op(name="verify", args=TaskNoteArgs)
def _verify(args: TaskNoteArgs, snapshot: WorkspaceSnapshot) -> Action:
    return calls.verify_task(args.task, args.note)


@op(name="join", args=TaskArgs)
def _join(args: TaskArgs, snapshot: WorkspaceSnapshot) -> Action:
    return calls.join(args.task)


@op(name="plan-run", args=PlanArgs)
def _plan_run(args: PlanArgs, snapshot: WorkspaceSnapshot) -> Action:
    return calls.run_plan(args.plan, list(args.members))


def build_action(name: str, raw_args: dict[str, object], snapshot: WorkspaceSnapshot) -> Action:
    """The action a request asks for.

    Raises:
        Refused: an unknown op, arguments that do not match it (the field and the
            problem named), or what building it refused (a decision key not waiting).
    """
    declared = OPS.get(name)
    if declared is None:
        raise Refused(f"unknown op {name!r}; the ops are: {', '.join(OPS)}")
    return declared.build(parsed_arguments(declared.args, raw_args, name), snapshot)
