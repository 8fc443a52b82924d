"""What a Gitea delivery does (seed 001 §11-§17): the issue documents it changes and the
messages it puts in agents' inboxes.

| delivery | effect |
|---|---|
| issue opened, no assignee, no parent | discussion: every known agent of the opener's team (all, for a human opener) but the opener gets the discussion prompt |
| issue opened with an assignee, or assigned | the assignee gets the work once, with its brief (branch ``{type}/{n}-{brief}``, the parent's body and last comments, its Depends: issues' last comments, PRs and branches); while one of them is open the issue is ``waiting`` |
| issue closed | its creator is told once, unless it closed it or is no agent; issues waiting on it are released; its parent's round may be over |
| comment created | recorded once per comment id; each @-mentioned agent but the commenter gets a mention once per comment id; an ``Action Report`` by the assignee ends its work item (edited comments: no message) |
| PR opened / reopened / edited / synchronized (``Closes #N``) | #N is ``review`` (when the PR or its head commit is new), the PR linked; the reviewer is asked once per head commit |
| failed commit status / workflow run on an open PR's head | #N back to ``working``; its assignee gets a ``ci_failure`` with the check and its link, once per head commit (the first failing check) |
| review rejected | #N back to ``working``, retries + 1, its assignee gets the changes requested |
| review approved | its assignee is told |
| PR merged | #N ``done``; its assignee is told unless it merged it; its parent's round may be over |
| every sub of a parent final | round review: a gate in the decision queue (protocol/forge/round_review.py) |

The rules live in issue_rules.py, comment_rules.py and pull_rules.py; each one-time
effect is keyed by what it is about (protocol/forge/context.py), so a redelivery, Gitea's
second delivery for an issue created with an assignee, or the catch-up reading a change
the webhook also brings, acts once.
"""

from __future__ import annotations

from teamdeck.model.forge import GiteaPayload
from teamdeck.protocol.forge.agents import known_agents
from teamdeck.protocol.forge.comment_rules import on_comment
from teamdeck.protocol.forge.context import Effects, RuleContext
from teamdeck.protocol.forge.issue_rules import on_issue
from teamdeck.protocol.forge.pull_rules import on_pull, on_review, on_status, on_workflow_run
from teamdeck.store.workspace import Workspace

HANDLED = {
    "issues": ("opened", "edited", "reopened", "closed", "assigned", "unassigned"),
    "issue_comment": ("created", "edited"),
    "pull_request": ("opened", "reopened", "edited", "synchronized", "closed"),
    "pull_request_approved": ("reviewed",),
    "pull_request_rejected": ("reviewed",),
    "status": ("",),
    "workflow_run": ("completed",),
}
"""The ``X-Gitea-Event`` values and actions that have rules; others are recorded and
ignored (a commit status has no action)."""


def handles(event_name: str, action: str) -> bool:
    """Whether a delivery of ``event_name`` with ``action`` has rules."""
    return action in HANDLED.get(event_name, ())


def apply_delivery(ws: Workspace, event_name: str, payload: GiteaPayload, *, delivery: str = "") -> Effects:
    """Apply the rules to one delivery (call :func:`handles` first); ``delivery`` (its
    id) keys the messages that have nothing else to be keyed by.

    Raises:
        TeamdeckError: an issue or inbox could not be read or written (the effects
            before it stay; one-time messages are not sent twice when it is redelivered).
    """
    ctx = RuleContext(ws, known_agents(ws), payload.repository.full_name, payload.sender.login, Effects(), delivery)
    if event_name == "issues" and payload.issue is not None and not payload.issue.is_pull:
        on_issue(ctx, payload.action, payload.issue)
    elif event_name == "issue_comment" and payload.issue is not None and payload.comment is not None:
        on_comment(ctx, payload)
    elif event_name == "pull_request" and payload.pull_request is not None:
        on_pull(ctx, payload.action, payload.pull_request)
    elif event_name in ("pull_request_approved", "pull_request_rejected") and payload.pull_request is not None:
        on_review(ctx, event_name == "pull_request_approved", payload)
    elif event_name == "status":
        on_status(ctx, payload)
    elif event_name == "workflow_run":
        on_workflow_run(ctx, payload)
    return ctx.effects
