"""Alerts when a person is needed: a decision arrived (a blocked worker, a plan, a
permission request, a shutdown that got stuck...: each kind's spec says why,
decisions/spec.py) or a run failed (a worker's final output says ``failed``).

Each snapshot drawn is compared with the one before (:func:`arrivals`); the first
snapshot is the baseline (what waited before teamdeck started is no news). An alert:

- rings the terminal bell and sends a desktop notification (OSC 9, which iTerm2,
  kitty, WezTerm and Windows Terminal show; OSC 777, which urxvt, foot, Ghostty and
  VTE terminals show) naming the agent and the reason - unless the person is looking:
  the terminal has focus (Textual's ``App.app_focus``, from the terminal's focus
  reports) and the decision queue is on screen;
- marks the decision "new" in the queue until the person has looked: selected it,
  or left the queue (another panel, another window) after it was on screen;
- runs the workspace's ``notify.command`` (tui/notify_command.py), looking or not.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from teamdeck.decisions.registry import spec_of
from teamdeck.shapes.decisions import decision_json
from teamdeck.text import one_line
from teamdeck.view.snapshot.workspace import Decision, TaskView, WorkspaceSnapshot, same_items

OSC_CHARS = 180
"""The longest notification text sent to the terminal (a desktop notification is a
line or two)."""


@dataclass(frozen=True)
class Alert:
    """Something a person is needed for.

    Attributes:
        key: the decision's key (``Decision.key``), or ``run:<task>:<worker>``.
        agent: who needs the person.
        reason: why, in a few words.
        data: what ``notify.command`` gets on stdin (JSON-able).
    """

    key: str
    agent: str
    reason: str
    data: dict[str, Any] = field(compare=False, hash=False)

    @property
    def decision(self) -> bool:
        """A decision waiting in the queue (not a failed run)."""
        return self.data.get("alert") == "decision"

    @property
    def line(self) -> str:
        """``api-dev is blocked: Should guest checkout…`` (one line, sanitised)."""
        return one_line(f"{self.agent} {self.reason}", OSC_CHARS)


def arrivals(before: WorkspaceSnapshot, after: WorkspaceSnapshot) -> list[Alert]:
    """What is new in ``after``: decisions not waiting in ``before``, workers whose
    run failed since. Cheap when nothing changed (the same tuples)."""
    alerts: list[Alert] = []
    if after.decisions is not before.decisions:
        known = {gate.key for gate in before.decisions}
        alerts += [decision_alert(gate) for gate in after.decisions if gate.key not in known]
    if not same_items(after.tasks, before.tasks):  # a new tuple of the same tasks at each inbox change
        earlier = {task.id: task for task in before.tasks}
        for task in after.tasks:
            was = earlier.get(task.id)
            if was is task or not task.outputs_checked:
                continue  # the same view: nothing new in it (a decision changes one task of 1,000)
            failed_before = _failed_runs(was)
            for worker in task.workers:
                if worker.status == "failed" and worker.id not in failed_before:
                    alerts.append(run_alert(task.id, worker.id, worker.member, worker.summary))
    return alerts


def _failed_runs(task: TaskView | None) -> set[str]:
    """The failed workers of ``task`` as it was, or every worker when its outputs were
    not read yet (their failures are not news when they are read)."""
    if task is None:
        return set()
    return {worker.id for worker in task.workers if worker.status == "failed" or not task.outputs_checked}


def decision_alert(gate: Decision) -> Alert:
    agent = gate.agent or gate.member or gate.source
    reason = spec_of(gate).alert_reason_for(gate)
    detail = gate.questions[0] if gate.questions else gate.title
    return Alert(gate.key, agent, f"{reason} ({gate.source}): {detail}", {"alert": "decision", **decision_json(gate)})


def run_alert(task_id: str, worker_id: str, member: str | None, summary: str) -> Alert:
    agent = member or worker_id
    data = {"alert": "run-failed", "task": task_id, "worker": worker_id, "member": member, "summary": summary}
    return Alert(f"run:{task_id}:{worker_id}", agent, f"run failed (task {task_id}): {summary}", data)


def terminal_alert(alerts: list[Alert], *, in_tmux: bool | None = None) -> str:
    """The bytes that alert the terminal: a bell, then one desktop notification (OSC 9
    and OSC 777) naming the first agent and its reason, and how many more. Inside tmux
    the notifications are wrapped for passthrough (shown when tmux's
    ``allow-passthrough`` is on; dropped by tmux otherwise)."""
    first = alerts[0]
    body = first.line + (f" (+{len(alerts) - 1} more)" if len(alerts) > 1 else "")
    title = "teamdeck: a person is needed"
    osc = f"\x1b]9;{body}\x07\x1b]777;notify;{title};{body}\x07"
    if in_tmux if in_tmux is not None else bool(os.environ.get("TMUX")):
        osc = "".join(f"\x1bPtmux;{part.replace(chr(27), chr(27) * 2)}\x1b\\" for part in _sequences(osc))
    return "\x07" + osc


def _sequences(osc: str) -> list[str]:
    """The escape sequences of ``osc`` one by one (each ends in BEL)."""
    return [part + "\x07" for part in osc.split("\x07") if part]


class NewMarks:
    """The decisions that arrived since the person last looked at the queue.

    A decision is marked when it arrives; the mark goes when the person selects it, or
    leaves the queue (another panel, the terminal loses focus) after it was shown.
    """

    def __init__(self, on_change: Callable[[], None]) -> None:
        self.keys: frozenset[str] = frozenset()
        self._shown: frozenset[str] = frozenset()
        """Marked decisions that were on screen with the queue (cleared on leaving)."""
        self._on_change = on_change

    def add(self, keys: set[str], *, looking: bool) -> None:
        if keys:
            self.keys |= keys
            if looking:
                self._shown |= keys
            self._on_change()

    def looking(self) -> None:
        """The queue is on screen with the terminal focused: every mark is shown."""
        self._shown = self.keys

    def left(self) -> None:
        """The person left the queue: what they saw is no longer new."""
        if self._shown:
            self.keys -= self._shown
            self._shown = frozenset()
            self._on_change()

    def selected(self, key: str | None) -> None:
        if key is not None and key in self.keys:
            self.keys -= {key}
            self._shown -= {key}
            self._on_change()
