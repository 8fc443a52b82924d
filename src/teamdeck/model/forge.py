"""Issue-driven teams (seed 001): the issue documents teamdeck keeps, and the parts of
Gitea's webhook payloads it reads.

``forge/<owner>__<repo>/issues/<n>/issue.yaml`` (:class:`ForgeIssue`) is the fold of the
issue's ``events.jsonl``, kept by the same machinery as tasks. The ``Gitea*`` models
read just the fields the rules need from a delivery; every other key is ignored
(``extra="allow"``, lax types), so newer and older Gitea versions parse alike.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from teamdeck.model.base import OurModel, Timestamp

IssueStatus = Literal["pending", "waiting", "working", "review", "done", "closed"]
"""Seed 001's ``task_state.status`` of an issue: ``pending`` (open, nobody assigned),
``waiting`` (assigned, a ``Depends:`` issue still open), ``working`` (its assignee has
the work), ``review`` (a PR that closes it is open), ``done`` (that PR was merged) and
``closed`` (closed without a merged PR). ``done`` and ``closed`` are final."""

FINAL_STATUSES: frozenset[str] = frozenset({"done", "closed"})

ReviewState = Literal["approved", "changes_requested"]


class LinkedPull(OurModel):
    """The pull request whose body says ``Closes #<issue>``."""

    number: int
    head: str = Field(description="its head branch")
    state: Literal["open", "closed", "merged"]
    url: str | None = None
    sha: str | None = Field(default=None, description="its head commit when last seen (a new one: the PR was updated)")


class LastComment(OurModel):
    """A comment seen on the issue (the latest one: a ``Depends:`` dependant gets it as prior output)."""

    by: str
    body: str
    at: str | None = None
    id: int | None = Field(default=None, description="Gitea's comment id")


class WorkItem(OurModel):
    """What the issue's assignee was last asked to do, until its ``Action Report`` comment
    ends it (seed 001 §13.6, §14b: the executor's work, a CI failure to fix, review changes)."""

    kind: Literal["assigned", "ci_failure", "review_changes"]
    since: str = Field(description="when it was asked (teamdeck's clock)")
    detail: str = Field(default="", description="the failing check, or the PR the review is on")
    url: str | None = Field(default=None, description="the failing check's link")


class Report(OurModel):
    """The assignee's latest ``Action Report`` comment."""

    by: str
    at: str | None = None
    comment: int | None = None
    ended: str | None = Field(default=None, description="the kind of work item it ended, if one was open")


class ForgeIssue(OurModel):
    """The content of issue.yaml."""

    repo: str = Field(description="owner/name as Gitea spells it")
    number: int
    title: str
    body: str = ""
    url: str | None = None
    state: Literal["open", "closed"]
    status: IssueStatus
    creator: str
    assignees: list[str] = Field(default_factory=list)
    parent: int | None = Field(default=None, description="from '[parent #N]' in the title or 'Parent: #N' in the body")
    depends: list[int] = Field(default_factory=list, description="from 'Depends: #N' lines of the body")
    pull: LinkedPull | None = None
    review: ReviewState | None = None
    retries: int = Field(default=0, ge=0, description="how often its PR came back with changes requested")
    commenters: list[str] = Field(default_factory=list, description="logins that commented, first comment first")
    lastComment: LastComment | None = None
    recentComments: list[LastComment] = Field(
        default_factory=list, description="the last few comments, oldest first (the executor's context)"
    )
    work: WorkItem | None = Field(default=None, description="what its assignee is asked to do, until it reports")
    report: Report | None = None
    notified: list[str] = Field(
        default_factory=list,
        description="'<kind>:<login>' of each one-time message sent (assignment, discussion), 'comment:<id>' of each comment recorded, 'ci:<sha>' of each head commit whose failure was sent back, and 'review:<delivery>' of each review counted",
    )
    problem: str | None = Field(default=None, description="why the issue cannot proceed (a Depends: cycle)")
    closedBy: str | None = None
    openedAt: str | None = Field(default=None, description="Gitea's created_at")
    closedAt: str | None = None
    rounds: int = Field(default=0, ge=0, description="round reviews opened for this parent")
    reviewedSubs: list[int] = Field(default_factory=list, description="the subs the last round review covered")
    roundTask: str | None = Field(default=None, description="the teamdeck task holding the last round-review gate")
    outcome: Literal["achieved", "new-round"] | None = Field(default=None, description="the last round's decision")
    createdAt: Timestamp
    updatedAt: Timestamp
    revision: int = Field(ge=0)
    lastEventId: str | None = None

    @property
    def final(self) -> bool:
        """Done or closed: counts as finished for its parent's round review."""
        return self.status in FINAL_STATUSES

    @property
    def ref(self) -> str:
        """``acme/quant#101``."""
        return f"{self.repo}#{self.number}"


# --- what a delivery carries (Gitea's modules/structs) -------------------------------


class GiteaModel(BaseModel):
    """A Gitea payload object: only the fields named are read, the rest ignored."""

    model_config = ConfigDict(extra="allow")


class GiteaUser(GiteaModel):
    login: str


class GiteaRepo(GiteaModel):
    full_name: str


class GiteaIssue(GiteaModel):
    number: int
    title: str = ""
    body: str | None = ""
    html_url: str | None = None
    state: str = "open"
    user: GiteaUser
    assignees: list[GiteaUser] | None = None
    created_at: str | None = None
    closed_at: str | None = None
    pull_request: dict[str, Any] | None = None

    @property
    def is_pull(self) -> bool:
        return self.pull_request is not None


class GiteaComment(GiteaModel):
    id: int
    body: str = ""
    user: GiteaUser
    created_at: str | None = None


class GiteaBranch(GiteaModel):
    ref: str = ""
    sha: str = ""


class GiteaPull(GiteaModel):
    number: int
    title: str = ""
    body: str | None = ""
    html_url: str | None = None
    state: str = "open"
    merged: bool = False
    head: GiteaBranch = Field(default_factory=GiteaBranch)
    user: GiteaUser
    requested_reviewers: list[GiteaUser] | None = None
    updated_at: str | None = None


class GiteaReview(GiteaModel):
    type: str = ""
    content: str = ""


class GiteaWorkflowRun(GiteaModel):
    """``workflow_run`` of a ``workflow_run`` delivery (Gitea 1.24+, structs.ActionWorkflowRun)."""

    id: int = 0
    html_url: str | None = None
    display_title: str = ""
    head_sha: str = ""
    head_branch: str | None = None
    status: str = ""
    conclusion: str | None = None


class GiteaWorkflow(GiteaModel):
    name: str = ""


class GiteaPayload(GiteaModel):
    """The body of any delivery teamdeck acts on (a ``status`` delivery's fields are at
    its top level: ``sha``, ``state``, ``context``, ``target_url``, ``description``)."""

    action: str = ""
    repository: GiteaRepo
    sender: GiteaUser
    issue: GiteaIssue | None = None
    comment: GiteaComment | None = None
    pull_request: GiteaPull | None = None
    review: GiteaReview | None = None
    is_pull: bool = False
    sha: str = ""
    state: str = ""
    context: str = ""
    target_url: str | None = None
    description: str | None = None
    workflow: GiteaWorkflow | None = None
    workflow_run: GiteaWorkflowRun | None = None
