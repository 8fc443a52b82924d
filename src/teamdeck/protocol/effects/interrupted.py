"""Finishing the actions a crash interrupted (protocol/common/intents.py), with the one
table of who finishes what: :func:`completers`.

Every action that records an intent has its completer listed here, imported from the
module of the action (each lower in the layers than this one, so the list points down).
The completers are imported only when an intent is pending: every command that may write
checks at start (cli/main.py), and almost always finds none.

A new action that records an intent: write its completer next to it and add a row here.
"""

from __future__ import annotations

from teamdeck.protocol.common.intents import Completer, complete, pending
from teamdeck.store.workspace import Workspace


def completers() -> dict[str, Completer]:
    """Action name (the ``action`` of :func:`~teamdeck.protocol.common.intents.intent`) →
    the function that finishes it."""
    from teamdeck.protocol.coordination.delegation import finish_delegation, finish_report
    from teamdeck.protocol.coordination.nudges import finish_nudge
    from teamdeck.protocol.effects.gate_decisions import finish_decision
    from teamdeck.protocol.task.join import finish_join
    from teamdeck.protocol.team.keyed_sends import finish_send

    return {
        "gate.decide": finish_decision,
        "send": finish_send,
        "delegate": finish_delegation,
        "report": finish_report,
        "join": finish_join,
        "nudge": finish_nudge,
    }


def complete_pending(ws: Workspace) -> list[str]:
    """Finish every interrupted action (see protocol/common/intents.py), then rewrite
    each task.yaml and plan.yaml a crash left behind its events (F26); returns what was
    done and what could not be, one line each. Does nothing in a read-only workspace."""
    if ws.read_only:
        return []
    found, problems = pending(ws)
    lines = list(problems)
    if found:
        table = completers()
        for item in found:
            lines += complete(ws, item, table.get(item.action))
    return lines + _rewrite_stale_documents(ws)


def _rewrite_stale_documents(ws: Workspace) -> list[str]:
    """Every task.yaml and plan.yaml brought up to date with its events (after the
    completers: what they appended is applied too). The documents are looked at without
    pydantic or PyYAML; the replay is imported only when one may be behind."""
    from teamdeck.protocol.task.listing import maybe_behind

    tasks, plans = maybe_behind(ws)
    if not tasks and not plans:
        return []
    from teamdeck.protocol.task.planfile import PLAN
    from teamdeck.protocol.task.taskfile import rewrite_stale

    return rewrite_stale(ws, tasks) + rewrite_stale(ws, plans, PLAN)
