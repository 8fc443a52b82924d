"""Claude Code's agent-team files, as Claude Code writes them (FORMAT.md).

- ``teams/<team>/config.json``: :class:`TeamConfig` with its :class:`Member` roster.
- ``teams/<team>/inboxes/<name>.json``: a JSON array of :class:`InboxMessage`.
- ``tasks/<team>/<n>.json``: one :class:`ClaudeTask` per file.

Protocol messages travel as a JSON object serialised into an inbox message's ``text``;
:func:`decode` turns a message into one typed kind (:data:`Kind`). Field casing is
exactly Claude Code's, which differs by kind (``requestId`` but ``request_id``).

Every model accepts and keeps fields it does not know (``extra="allow"``): a newer
Claude Code may add some, and a file we rewrite must keep them (B13). Unknown message
types decode to :class:`Unknown` with the raw object, never dropped. Validation is
lax (Claude Code's files are JavaScript-written; be liberal in what is read), and the
writers in store/ change the raw JSON, not a re-serialised model, so nothing is
normalised away. No I/O here.

The models are :class:`~teamdeck.model.shape.Shape` records: ``send`` and ``inbox
--inject`` (run by agents on every turn) read well-formed files without importing
pydantic, whose model of each class (:meth:`~teamdeck.model.shape.Shape.pydantic_model`)
still decides anything unusual, with its coercions, messages and JSON schemas.
"""

from __future__ import annotations

import json
from typing import Any, ClassVar, Literal

from teamdeck.model.shape import Shape, field, validation_error

LEAD_NAME = "team-lead"
"""The name Claude Code gives the team lead; always a valid recipient."""

COLORS = ("red", "blue", "green", "yellow", "purple", "orange", "pink", "cyan")
"""Teammate colours Claude Code assigns (orange and pink need mapping in a UI)."""


class ClaudeModel(Shape):
    """A Claude Code format: lax types, unknown fields kept, ``from`` via ``from_``.

    :meth:`~teamdeck.model.shape.Shape.to_json` gives the fields as they were given
    (wire names, unknown fields included), for round-trips and ``--json`` output."""


# --- config.json ------------------------------------------------------------------


MEMBER_ROLES = ("coordinator", "crafter", "gate", "none")
"""teamdeck's roles for a member (seed 002; protocol/coordination/roles.py says what each may do)."""


class Member(ClaudeModel):
    """One entry of ``config.json`` ``members``.

    ``isActive`` appeared in later Claude Code versions; a member without it counts as
    active (older versions removed a member who shut down instead).
    """

    agentId: str | None = None
    name: str
    agentType: str | None = None
    model: str | None = None
    prompt: str | None = None
    color: str | None = None
    planModeRequired: bool | None = None
    joinedAt: int | None = None
    tmuxPaneId: str | None = None
    cwd: str | None = None
    subscriptions: list[Any] | None = None
    backendType: str | None = None
    isActive: bool = True
    role: str | None = None
    """teamdeck's role for the member (seed 002: coordinator, crafter, gate; absent: none),
    which decides what its MCP server offers and which protocol calls it may make
    (protocol/coordination/roles.py). Claude Code does not read it."""


class TeamConfig(ClaudeModel):
    """``teams/<team>/config.json``: the team, its lead and its roster."""

    name: str
    description: str | None = None
    createdAt: int | None = None
    leadAgentId: str | None = None
    leadSessionId: str | None = None
    members: list[Member] = field(default_factory=list)

    @property
    def lead_name(self) -> str:
        """The lead's member name: the part of ``leadAgentId`` before ``@``."""
        if self.leadAgentId and "@" in self.leadAgentId:
            return self.leadAgentId.rsplit("@", 1)[0]
        return LEAD_NAME

    def is_lead(self, name: str) -> bool:
        """Whether ``name`` (any case) is the lead."""
        return name.lower() in (self.lead_name.lower(), LEAD_NAME)

    def member(self, name: str) -> Member | None:
        """The member called ``name``, compared case-insensitively."""
        wanted = name.lower()
        return next((member for member in self.members if member.name.lower() == wanted), None)

    def active_teammates(self) -> list[Member]:
        """Members other than the lead that count as active (they block TeamDelete)."""
        return [member for member in self.members if member.isActive and not self.is_lead(member.name)]


# --- inbox messages ---------------------------------------------------------------


class InboxMessage(ClaudeModel):
    """One element of an inbox array. The recipient is the file name (no ``to``)."""

    from_: str = field(wire="from")
    text: str
    summary: str | None = None
    timestamp: str
    color: str | None = None
    read: bool = False


class Kind(ClaudeModel):
    """A decoded message kind. ``KIND`` names it; ``type`` is the wire ``type``."""

    KIND: ClassVar[str] = ""

    @property
    def correlation_id(self) -> str | None:
        """The id that ties a request to its reply (``requestId`` or ``request_id``)."""
        payload = self.to_payload()
        value = payload.get("requestId", payload.get("request_id"))
        return value if isinstance(value, str) else None

    def to_payload(self) -> dict[str, Any]:
        """The object to serialise into ``text``: ``type`` first, then the fields set."""
        body = self.to_json()
        return {"type": body.pop("type", self.KIND), **body}

    def to_text(self) -> str:
        """The message ``text`` exactly as Claude Code writes it (compact JSON)."""
        return encode_text(self.to_payload())


class Plain(Kind):
    """Ordinary text (including text that merely looks like JSON)."""

    KIND: ClassVar[str] = "plain"
    text: str


class IdleNotification(Kind):
    """Sent automatically by a teammate at the end of every turn. ``result`` is the
    turn's last text (2.1.332); a turn whose agent loop crashed sends ``idleReason``
    and ``completedStatus`` ``failed`` with the error as ``failureReason``."""

    KIND: ClassVar[str] = "idle_notification"
    type: Literal["idle_notification"] = "idle_notification"
    from_: str | None = field(default=None, wire="from")
    timestamp: str | None = None
    idleReason: str | None = None
    summary: str | None = None
    completedTaskId: str | None = None
    completedStatus: str | None = None
    failureReason: str | None = None
    result: str | None = None

    @property
    def failed(self) -> bool:
        """Whether the turn failed (its reason or its completed status says so)."""
        return "failed" in (self.idleReason, self.completedStatus)


class TaskAssignment(Kind):
    """A task handed to its owner."""

    KIND: ClassVar[str] = "task_assignment"
    type: Literal["task_assignment"] = "task_assignment"
    taskId: str | None = None
    subject: str | None = None
    description: str | None = None
    assignedBy: str | None = None
    timestamp: str | None = None


class ShutdownRequest(Kind):
    """Lead → teammate: please shut down. ``requestId`` is in the team format's form
    (Claude Code: ``shutdown-<epochMs>@<member>``; Ripperdoc: ``req_<10 hex>``)."""

    KIND: ClassVar[str] = "shutdown_request"
    type: Literal["shutdown_request"] = "shutdown_request"
    requestId: str
    from_: str | None = field(default=None, wire="from")
    reason: str | None = None
    timestamp: str | None = None


class ShutdownApproved(Kind):
    """Teammate → lead: shutting down (what a ``shutdown_response`` with approve writes)."""

    KIND: ClassVar[str] = "shutdown_approved"
    type: Literal["shutdown_approved"] = "shutdown_approved"
    requestId: str
    from_: str | None = field(default=None, wire="from")
    timestamp: str | None = None
    paneId: str | None = None
    backendType: str | None = None


class ShutdownRejected(Kind):
    """Teammate → lead: not shutting down, with a reason."""

    KIND: ClassVar[str] = "shutdown_rejected"
    type: Literal["shutdown_rejected"] = "shutdown_rejected"
    requestId: str
    from_: str | None = field(default=None, wire="from")
    reason: str | None = None
    timestamp: str | None = None


class PlanApprovalRequest(Kind):
    """Teammate in plan mode → lead: approve this plan before I act."""

    KIND: ClassVar[str] = "plan_approval_request"
    type: Literal["plan_approval_request"] = "plan_approval_request"
    from_: str | None = field(default=None, wire="from")
    timestamp: str | None = None
    planFilePath: str | None = None
    planContent: str | None = None
    requestId: str


class PlanApprovalResponse(Kind):
    """Lead → teammate: the plan is approved, or rejected with feedback."""

    KIND: ClassVar[str] = "plan_approval_response"
    type: Literal["plan_approval_response"] = "plan_approval_response"
    requestId: str
    approved: bool
    feedback: str | None = None
    timestamp: str | None = None


class PermissionRequest(Kind):
    """Teammate → lead: may I run this tool? (snake_case fields, as Claude Code writes them)."""

    KIND: ClassVar[str] = "permission_request"
    type: Literal["permission_request"] = "permission_request"
    request_id: str
    agent_id: str | None = None
    tool_name: str | None = None
    tool_use_id: str | None = None
    description: str | None = None
    input: Any = None
    permission_suggestions: list[Any] | None = None


class PermissionResponse(Kind):
    """Lead → teammate: the answer to a permission request."""

    KIND: ClassVar[str] = "permission_response"
    type: Literal["permission_response"] = "permission_response"
    request_id: str
    subtype: str | None = None
    response: Any = None
    error: Any = None


class TaskCompleted(Kind):
    """Teammate → lead: a task is done (2.1.332 reads and shows it; its schema is
    ``taskId`` required, the rest optional)."""

    KIND: ClassVar[str] = "task_completed"
    type: Literal["task_completed"] = "task_completed"
    from_: str | None = field(default=None, wire="from")
    taskId: str
    taskSubject: str | None = None
    timestamp: str | None = None


class TeammateTerminated(Kind):
    """Client → lead: a teammate has gone (``message`` like ``"alice has shut down."``).
    2.1.332 makes it in memory from ``from: "system"``; a file holding one is read too."""

    KIND: ClassVar[str] = "teammate_terminated"
    type: Literal["teammate_terminated"] = "teammate_terminated"
    message: str

    @property
    def member(self) -> str | None:
        """The teammate the message names (its first word), if it names one."""
        words = self.message.split()
        return words[0] if words else None


class HostPattern(ClaudeModel):
    """What a sandbox permission request asks for: one network host."""

    host: str


class SandboxPermissionRequest(Kind):
    """Teammate → lead: may my sandbox reach this network host? (``requestId``
    ``sandbox-<ms>-<7 alphanumerics>``; ``createdAt`` epoch milliseconds)."""

    KIND: ClassVar[str] = "sandbox_permission_request"
    type: Literal["sandbox_permission_request"] = "sandbox_permission_request"
    requestId: str
    workerId: str | None = None
    workerName: str
    workerColor: str | None = None
    hostPattern: HostPattern
    createdAt: int | float | None = None


class SandboxPermissionResponse(Kind):
    """Lead → teammate: the answer to a sandbox permission request."""

    KIND: ClassVar[str] = "sandbox_permission_response"
    type: Literal["sandbox_permission_response"] = "sandbox_permission_response"
    requestId: str
    host: str
    allow: bool
    timestamp: str | None = None


class ModeSetRequest(Kind):
    """Lead → teammate: change your permission mode. 2.1.332 only tests the ``type``
    and drops it from every inbox ("permission mode changes are never accepted from the
    inbox"): there is no answer to write."""

    KIND: ClassVar[str] = "mode_set_request"
    type: Literal["mode_set_request"] = "mode_set_request"


class TeamPermissionUpdate(Kind):
    """Lead → teammate: new permission rules. 2.1.332 only tests the ``type`` and drops
    it ("permission rules are never accepted from the inbox")."""

    KIND: ClassVar[str] = "team_permission_update"
    type: Literal["team_permission_update"] = "team_permission_update"


class Unknown(Kind):
    """A protocol object of a type we do not know, or a known type whose fields do
    not fit (``problem`` says why). ``raw`` is the object as written, kept whole."""

    KIND: ClassVar[str] = "unknown"
    type: str
    raw: dict[str, Any]
    problem: str | None = None

    def to_payload(self) -> dict[str, Any]:
        return dict(self.raw)


KINDS: dict[str, type[Kind]] = {
    cls.KIND: cls
    for cls in (
        IdleNotification,
        TaskAssignment,
        ShutdownRequest,
        ShutdownApproved,
        ShutdownRejected,
        PlanApprovalRequest,
        PlanApprovalResponse,
        PermissionRequest,
        PermissionResponse,
        TaskCompleted,
        TeammateTerminated,
        SandboxPermissionRequest,
        SandboxPermissionResponse,
        ModeSetRequest,
        TeamPermissionUpdate,
    )
}
"""Every protocol ``type`` we know, to its model."""

KIND_NAMES = ("plain", *KINDS, "unknown")
"""Every kind :func:`decode` can return, in display order."""


def encode_text(payload: dict[str, Any]) -> str:
    """A protocol object as message ``text``: compact JSON like JavaScript's
    ``JSON.stringify`` (no spaces, non-ASCII kept)."""
    return json.dumps(payload, ensure_ascii=False, separators=(",", ":"), allow_nan=False)


def decode_text(text: str) -> Kind:
    """The kind of a message ``text``.

    Text that parses as a JSON object with a known string ``type`` is that protocol
    kind; an object with another string ``type`` is :class:`Unknown`; anything else
    (including invalid JSON that starts with ``{``) is :class:`Plain`.
    """
    stripped = text.lstrip()
    if not stripped.startswith("{"):
        return Plain(text=text)
    try:
        value = json.loads(stripped)
    except (ValueError, RecursionError):
        return Plain(text=text)
    if not isinstance(value, dict) or not isinstance(value.get("type"), str):
        return Plain(text=text)
    kind = KINDS.get(value["type"])
    if kind is None:
        return Unknown(type=value["type"], raw=value)
    try:
        return kind.model_validate(value)
    except validation_error() as err:
        first = err.errors()[0]
        where = ".".join(str(part) for part in first["loc"])
        return Unknown(type=value["type"], raw=value, problem=f"{where}: {first['msg']}" if where else first["msg"])


def decode(message: InboxMessage) -> Kind:
    """The typed kind of an inbox message (see :func:`decode_text`)."""
    return decode_text(message.text)


def is_structured(text: str) -> bool:
    """Whether ``text`` is a protocol message of a known type (it cannot be broadcast
    or sent as a plain message)."""
    return decode_text(text).KIND in KINDS


# --- tasks/<team>/<n>.json ----------------------------------------------------------


class ClaudeTask(ClaudeModel):
    """One Claude Code task file. ``status`` is kept as written (unknown values too);
    ``createdAt`` / ``updatedAt`` are epoch milliseconds in the captures (any other
    form is kept as written)."""

    id: str
    subject: str = ""
    description: str = ""
    activeForm: str | None = None
    status: str = "pending"
    blocks: list[str] = field(default_factory=list)
    blockedBy: list[str] = field(default_factory=list)
    owner: str | None = None
    metadata: dict[str, Any] | None = None
    createdAt: int | float | str | None = None
    updatedAt: int | float | str | None = None

    KNOWN_STATUSES: ClassVar[tuple[str, ...]] = ("pending", "in_progress", "completed", "deleted")
    SETTABLE_STATUSES: ClassVar[tuple[str, ...]] = ("pending", "in_progress", "completed")
    """The statuses ``team task --status`` sets (``deleted`` is Claude Code's to set)."""

    @property
    def internal(self) -> bool:
        """Bookkeeping task (``metadata._internal``) that task lists hide."""
        return bool(self.metadata and self.metadata.get("_internal"))
