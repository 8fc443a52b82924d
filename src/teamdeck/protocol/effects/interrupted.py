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
    """Finish every interrupted action (see protocol/common/intents.py); returns what was
    done and what could not be, one line each. Does nothing in a read-only workspace."""
    if ws.read_only:
        return []
    found, problems = pending(ws)
    if not found:
        return problems
    table = completers()
    lines = list(problems)
    for item in found:
        lines += complete(ws, item, table.get(item.action))
    return lines
