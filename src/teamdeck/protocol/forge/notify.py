"""The inbox messages of issue-driven teams: one template per kind under
``templates/forge/`` (its README says how they work), sent through the same locked,
logged, delivery-confirmed writer as ``teamdeck send``, from the team lead (the
bridge acts with the lead's authority, like the person at the keyboard).
"""

from __future__ import annotations

import re
from string import Template

from teamdeck.errors import InvalidFile
from teamdeck.protocol.forge.agents import Agent
from teamdeck.protocol.team.messaging.sending import Sent, send_message
from teamdeck.resources import data_dir
from teamdeck.store.files import read_optional
from teamdeck.store.workspace import Workspace

KINDS = (
    "discussion",
    "assigned",
    "mention",
    "issue_closed",
    "review_changes",
    "review_approved",
    "merged",
    "review_request",
    "ci_failure",
    "round_review",
    "round_decided",
)
"""The message kinds; ``templates/forge/<kind>.md`` is each one's text."""

SUMMARY_PREFIX = "Summary:"
SUMMARY_CHARS = 200
_BLANK_RUNS = re.compile(r"\n{3,}")


def load_template(kind: str) -> str:
    """The text of ``templates/forge/<kind>.md`` (read each time: an edit takes effect at once).

    Raises:
        InvalidFile: missing or unreadable.
    """
    path = data_dir("templates") / "forge" / f"{kind}.md"
    data = read_optional(path)
    if data is None:
        raise InvalidFile(path, "", f"the forge message template '{kind}' is missing from this installation")
    return data.decode("utf-8", "replace")


def render(kind: str, values: dict[str, str]) -> tuple[str, str]:
    """The ``(summary, text)`` of a message of ``kind``.

    Raises:
        InvalidFile: the template lacks its ``Summary:`` line or names an unknown placeholder.
    """
    template = load_template(kind)
    first, _, rest = template.partition("\n")
    where = f"templates/forge/{kind}.md"
    if not first.startswith(SUMMARY_PREFIX):
        raise InvalidFile(where, "line 1", f"must start with '{SUMMARY_PREFIX}'")
    try:
        summary = Template(first[len(SUMMARY_PREFIX) :]).substitute(values).strip()
        text = _BLANK_RUNS.sub("\n\n", Template(rest).substitute(values)).strip("\n") + "\n"
    except KeyError as err:
        raise InvalidFile(where, "", f"unknown placeholder ${err.args[0]}") from None
    except ValueError as err:
        raise InvalidFile(where, "", f"bad placeholder ({err}); write $$ for a literal $") from None
    summary = " ".join(summary.split())
    return (summary[: SUMMARY_CHARS - 1] + "…" if len(summary) > SUMMARY_CHARS else summary), text


def send(ws: Workspace, agent: Agent, kind: str, values: dict[str, str], *, key: str | None = None) -> Sent:
    """Render ``kind`` and deliver it to ``agent``'s inbox (from its team's lead), once
    per ``key`` (protocol/team/keyed_sends.py).

    Raises:
        InvalidFile (template), and whatever ``send_message`` raises.
    """
    summary, text = render(kind, values)
    return send_message(ws, agent.team, agent.member, text, summary=summary, key=key)
