"""The executor's brief (seed 001 §13.5, §13.6, §17): the branch it works on and the
context it needs, handed over in the ``assigned`` message.

- Branch ``{type}/{n}-{brief}``: the type from the title's prefix (``fix: ...``,
  ``[docs] ...``, ``refactor(api): ...``; ``feat`` when none is given), the brief from
  the rest of the title with the ``[repo][sub][parent #N]`` tags left out. Letters of
  any script are kept (``feat/101-策略编码``: git and Gitea take UTF-8 branch names), so a
  Chinese title stays readable; what git refuses in a ref name becomes ``-``.
- Context: the parent's body and its last comments, each ``Depends:`` issue's last
  comment, its PR and its branch.
"""

from __future__ import annotations

import re
import unicodedata

from teamdeck.model.forge import ForgeIssue
from teamdeck.protocol.common.markdown import code_span, fenced
from teamdeck.protocol.forge.issues import find_issue
from teamdeck.store.workspace import Workspace

BRANCH_TYPES = {
    "fix": "fix",
    "bug": "fix",
    "bugfix": "fix",
    "hotfix": "fix",
    "feat": "feat",
    "feature": "feat",
    "impl": "impl",
    "docs": "docs",
    "doc": "docs",
    "refactor": "refactor",
    "test": "test",
    "tests": "test",
}
"""Seed 001 §13.5's types (fix/feat/impl/docs/refactor/test), and the words that mean them."""
DEFAULT_TYPE = "feat"
BRIEF_CHARS = 40
RECENT_COMMENTS = 3
"""How many of the parent's last comments the executor gets."""

_TAGS = re.compile(r"^\s*(?:\[[^\]]*\]\s*)+")
_TAG = re.compile(r"\[([^\]]*)\]")
_PREFIX = re.compile(r"^\s*([A-Za-z]+)(?:\([^)]*\))?!?\s*[:：]\s*")
_REF_UNSAFE = re.compile(r"[\s~^:?*\[\]\\@{}/.,;'\"`<>|!#$%&()+=，。：；！？、（）【】《》“”‘’]+")


def branch_type(title: str) -> str:
    """The branch type a title asks for: a conventional prefix after the tags
    (``fix: ...``, ``feat(x): ...``), else a bracket tag (``[docs]``), else ``feat``."""
    rest = _TAGS.sub("", title)
    found = _PREFIX.match(rest)
    if found and found.group(1).lower() in BRANCH_TYPES:
        return BRANCH_TYPES[found.group(1).lower()]
    tags = _TAGS.match(title)
    for tag in _TAG.findall(tags.group(0) if tags else ""):
        if tag.strip().lower() in BRANCH_TYPES:
            return BRANCH_TYPES[tag.strip().lower()]
    return DEFAULT_TYPE


def branch_brief(title: str) -> str:
    """The readable part of the branch name: the title without its tags and type prefix,
    lowercased, runs of what a ref name cannot hold made one ``-``, at most
    :data:`BRIEF_CHARS` characters; ``work`` when nothing is left."""
    rest = _TAGS.sub("", title)
    found = _PREFIX.match(rest)
    if found and found.group(1).lower() in BRANCH_TYPES:
        rest = rest[found.end() :]
    text = unicodedata.normalize("NFC", rest).lower()
    kept = "".join(char if char.isalnum() or char in "-_" else "-" for char in _REF_UNSAFE.sub("-", text))
    brief = "-".join(part for part in kept.split("-") if part)[:BRIEF_CHARS].strip("-_")
    return brief or "work"


def branch_name(issue: ForgeIssue) -> str:
    """``{type}/{number}-{brief}`` for ``issue`` (seed 001 §13.5)."""
    return f"{branch_type(issue.title)}/{issue.number}-{branch_brief(issue.title)}"


def _comment_block(by: str, body: str, at: str | None) -> str:
    return f"by {by}" + (f" at {at}" if at else "") + ":\n" + fenced(body)


def parent_context(ws: Workspace, issue: ForgeIssue) -> str:
    """The parent's goal (its body) and its last comments, for the executor."""
    if issue.parent is None:
        return ""
    parent = find_issue(ws, issue.repo, issue.parent)
    if parent is None:
        return f"\n## Its parent #{issue.parent}\n(not seen by teamdeck: read it on Gitea)\n"
    body = fenced(parent.body) if parent.body.strip() else "(no description)"
    comments = parent.recentComments[-RECENT_COMMENTS:] or ([parent.lastComment] if parent.lastComment else [])
    shown = "\n\n".join(_comment_block(c.by, c.body, c.at) for c in comments) or "(no comment seen)"
    return (
        f"\n## Its parent #{parent.number} {code_span(parent.title)}\n"
        "Keep your work aligned with the parent's goal.\n\n"
        f"{body}\n\n### The parent's last comments\n{shown}\n"
    )


def prior_outputs(ws: Workspace, issue: ForgeIssue) -> str:
    """Each ``Depends:`` issue: its state, last comment, PR and branch."""
    priors = []
    for number in issue.depends:
        dep = find_issue(ws, issue.repo, number)
        if dep is None:
            priors.append(f"### #{number}\n(not seen by teamdeck: read it on Gitea)")
            continue
        lines = [f"### #{number} {code_span(dep.title)} ({dep.status})"]
        if dep.pull is not None:
            link = f" {dep.pull.url}" if dep.pull.url else ""
            lines.append(f"PR #{dep.pull.number} ({dep.pull.state}) from branch {code_span(dep.pull.head)}{link}")
        else:
            lines.append(f"no PR seen; its branch would be {code_span(branch_name(dep))}")
        last = dep.lastComment
        lines.append(f"last comment {_comment_block(last.by, last.body, last.at)}" if last else "(no comment seen)")
        priors.append("\n".join(lines))
    return "\n\n".join(priors) or "(none: it depends on no issue)"


def assigned_values(ws: Workspace, issue: ForgeIssue, by: str) -> dict[str, str]:
    """The placeholders of ``templates/forge/assigned.md`` besides the issue's own."""
    return {
        "by": by,
        "parent": parent_context(ws, issue),
        "parent_number": str(issue.parent or issue.number),
        "prior": prior_outputs(ws, issue),
        "branch": branch_name(issue),
    }
