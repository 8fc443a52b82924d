"""Panel 2: every member of every team with its derived status, and the selected
member's details below. Keys act on the selected member: message, broadcast to its
team, ask it to shut down, answer its plan, deactivate it (guarded)."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime

from textual import on
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.content import Content
from textual.widgets import Static

from teamdeck.decisions.registry import spec_of
from teamdeck.protocol.team.allowed import can_deactivate, can_shutdown
from teamdeck.runtime.config import not_named
from teamdeck.tui.dialogs.compose import ComposeScreen, Draft
from teamdeck.tui.dialogs.run_log import RunLogScreen
from teamdeck.tui.host import deck_host
from teamdeck.tui.messages import OpenInbox
from teamdeck.tui.panels.decisions import actions as decision_actions
from teamdeck.tui.panels.roster import KEYS, actions
from teamdeck.tui.panels.roster.roster_list import HEADER, RosterList, last_good_read, status_text
from teamdeck.tui.render import block, cell, show_content
from teamdeck.tui.widgets.confirm_bar import Confirmed, ConfirmRequest, ask_confirm
from teamdeck.tui.widgets.line_list import LineList
from teamdeck.tui.widgets.panel import Panel
from teamdeck.view.figures.liveness import ended_teams, stale_members
from teamdeck.view.figures.overview import age
from teamdeck.view.readers.runs import RunState, run_state
from teamdeck.view.snapshot.workspace import MemberView, TeamView, WorkspaceSnapshot

EMPTY_ROSTER = "no teams: nothing under teams/"
WRITES = frozenset(
    {"message", "broadcast", "shutdown", "plan_approve", "plan_reject", "deactivate", "wake", "stop_run"}
)


class RosterPanel(Panel):
    """The roster with the selected member's status in words."""

    LIST = "#roster-list"
    BINDINGS = KEYS.bindings()

    def compose(self) -> ComposeResult:
        yield Static(Content.styled(HEADER, "bold $text-muted"), id="roster-header")
        yield RosterList(empty=EMPTY_ROSTER, id="roster-list")
        with VerticalScroll(id="member-detail", classes="detail"):
            yield Static(id="member-detail-text")

    runs: Mapping[str, RunState] = {}
    """``team/member`` -> its run state (teamdeck run), as of the last snapshot."""

    def show(self, snapshot: WorkspaceSnapshot) -> None:
        self.snapshot = snapshot
        now = deck_host(self).ws.clock()
        self.runs = {key: state for key, runs in snapshot.runs.items() if (state := run_state(runs, now)) is not None}
        self._draw(deck_host(self).ws.clock())
        self._show_detail()

    def tick(self, now: datetime) -> None:
        if self.snapshot is not None:
            self._draw(now)

    def _draw(self, now: datetime) -> None:
        """The roster at ``now`` (ended teams left out when the workspace says so, stale
        members marked) and its header over the columns as they are laid out."""
        snapshot = self.snapshot
        assert snapshot is not None
        members = snapshot.members
        roster = self.query_one(RosterList)
        ended = ended_teams(snapshot.teams, now, snapshot.stale_after) if snapshot.hide_ended else frozenset()
        if ended:
            members = tuple(member for member in members if member.team not in ended)
        roster.empty = (
            f"{len(ended)} ended team(s) hidden (hideEndedTeams in .teamdeck.yaml)" if ended else EMPTY_ROSTER
        )
        running = {key: state.since or "" for key, state in self.runs.items() if state.running}
        broken = frozenset(team.name for team in snapshot.teams if last_good_read(team) is not None)
        roster.show(
            members,
            now,
            stale=stale_members(snapshot.teams, now, snapshot.stale_after),
            running=running,
            broken=broken,
        )
        show_content(self.query_one("#roster-header", Static), Content.styled(roster.header, "bold $text-muted"))

    @property
    def selected(self) -> MemberView | None:
        key = self.query_one(RosterList).current_key
        return self.snapshot.member(key) if self.snapshot is not None and key else None

    @on(LineList.Highlighted, "#roster-list")
    def _show_detail(self) -> None:
        member = self.selected
        team = self.snapshot.team(member.team) if self.snapshot is not None and member else None
        self.query_one("#member-detail-text", Static).update(
            member_detail(member, deck_host(self).ws.clock(), team, self.runs.get(member.key))
            if member
            else Content("")
        )
        self.selection_moved()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        member = self.selected
        if action == "open_inbox":
            return True if member is not None else None
        if action == "run_log":
            return True if member is not None and (member.run_by_runner or member.key in self.runs) else None
        if action not in WRITES:
            return True
        if deck_host(self).read_only or member is None or self._ended(member):
            return None
        if action in ("plan_approve", "plan_reject") and member.pending_plan is None:
            return None
        if action == "deactivate" and not can_deactivate(
            lead=member.lead, active=member.active, approved_shutdown=member.status == "shutdown-approved"
        ):
            return None
        if action == "shutdown" and not can_shutdown(member.active, member.lead):
            return None
        if action == "stop_run" and not (member.key in self.runs and self.runs[member.key].running):
            return None
        if action == "wake" and not member.run_by_runner:
            return None
        return True

    def why_disabled(self, action: str) -> str:
        member = self.selected
        if action == "run_log" and member is not None:
            return f"{member.name} has no run recorded ({not_named(member.team, member.name)})"
        if deck_host(self).read_only or member is None:
            return super().why_disabled(action)
        if self._ended(member):
            return f"team {member.team} has ended: its directory is gone, nobody reads its inboxes"
        if action in ("plan_approve", "plan_reject"):
            return f"{member.name} has no plan waiting for approval"
        if action == "deactivate":
            return f"only a member that approved its shutdown and is still active; {member.name} is {member.status}"
        if action == "shutdown":
            return "the lead is not asked to shut down" if member.lead else f"{member.name} is not active"
        if action == "stop_run":
            return f"{member.name} has no run going (teamdeck run)"
        if action == "wake":
            return not_named(member.team, member.name)
        return super().why_disabled(action)

    def _ended(self, member: MemberView) -> bool:
        team = self.snapshot.team(member.team) if self.snapshot is not None else None
        return team is not None and team.ended

    @on(LineList.Chosen, "#roster-list")
    def action_open_inbox(self) -> None:
        member = self.selected
        if member is not None:
            self.post_message(OpenInbox(member.key))

    def action_run_log(self) -> None:
        member = self.selected
        if member is not None:
            self.app.push_screen(RunLogScreen(deck_host(self).ws, member.team, member.name))

    def action_wake(self) -> None:
        member = self.selected
        if member is not None and self.check_action("wake", ()) is True:
            self.app.post_message(actions.run_request(member, "wake"))

    def action_stop_run(self) -> None:
        member = self.selected
        if member is None or self.check_action("stop_run", ()) is not True:
            return
        title = Content.assemble(("Stop the run of ", "bold"), (cell(member.name, 64), "bold $accent"), ("?", "bold"))
        body = Content(
            "The runner ends its process group: SIGTERM, then SIGKILL after the grace period. It is not retried."
        )

        def confirmed(result: Confirmed | None) -> None:
            if result is not None:
                self.app.post_message(actions.run_request(member, "stop"))

        ask_confirm(self, ConfirmRequest(title, body, confirm="Stop run", danger=True), confirmed)

    def action_message(self) -> None:
        member = self.selected
        if member is None or self.check_action("message", ()) is not True:
            return
        title = Content.assemble(
            ("Message ", "bold"), (cell(member.name, 64), "bold $accent"), f" (team {cell(member.team, 64)})"
        )

        def send(draft: Draft | None) -> None:
            if draft is not None:
                self.app.post_message(actions.message(member, draft.summary, draft.text))

        # The lead writing to itself: this dialog sends only as the lead; the CLI can
        # send as another member.
        other = (
            f"to write as another member: teamdeck send {member.team} {member.name} TEXT --summary SUMMARY --from NAME"
            if member.lead
            else ""
        )
        self.app.push_screen(ComposeScreen(title, self._lead_of(member.team), other_sender=other), send)

    def _lead_of(self, team: str) -> str:
        """The name messages to ``team`` are sent as (its lead)."""
        found = self.snapshot.team(team) if self.snapshot is not None else None
        return found.lead if found is not None else ""

    def action_broadcast(self) -> None:
        member = self.selected
        if member is None or self.check_action("broadcast", ()) is not True:
            return
        team = member.team
        title = Content.assemble(
            ("Broadcast to team ", "bold"), (cell(team, 64), "bold $accent"), " (every member but the lead)"
        )

        def send(draft: Draft | None) -> None:
            if draft is not None:
                self.app.post_message(actions.broadcast_to(team, draft.summary, draft.text))

        self.app.push_screen(ComposeScreen(title, self._lead_of(member.team)), send)

    def action_shutdown(self) -> None:
        member = self.selected
        if member is None or self.check_action("shutdown", ()) is not True:
            return
        title = Content.assemble(("Ask ", "bold"), (cell(member.name, 64), "bold $accent"), (" to shut down?", "bold"))
        body = Content(
            "A shutdown_request goes to its inbox; its status shows the handshake: requested → "
            "approved or rejected → offline."
        )

        def confirmed(result: Confirmed | None) -> None:
            if result is not None:
                self.app.post_message(actions.shutdown(member, result.note))

        ask_confirm(
            self,
            ConfirmRequest(title, body, confirm="Request shutdown", note="optional", note_label="Reason", danger=True),
            confirmed,
        )

    def action_plan_approve(self) -> None:
        self._answer_plan(approve=True)

    def action_plan_reject(self) -> None:
        self._answer_plan(approve=False)

    def _answer_plan(self, *, approve: bool) -> None:
        member = self.selected
        if member is None or self.check_action("plan_approve", ()) is not True:
            return
        key = f"plan:{member.team}:{member.name}:{member.pending_plan}"
        gate = self.snapshot.decision(key) if self.snapshot else None
        if gate is None:
            return  # the request left the queue (answered) since the key was pressed
        answer = spec_of(gate).answers_for(gate)[0 if approve else 1]
        verb = answer.label
        title = Content.assemble((f"{verb} the plan of ", "bold"), (cell(member.name, 64), "bold $accent"))
        body = Content(block(gate.body, 3000) or "(the plan is in the member's request)")

        def confirmed(result: Confirmed | None) -> None:
            if result is not None:
                self.app.post_message(decision_actions.answer(gate, answer, result.note))

        ask_confirm(
            self,
            ConfirmRequest(
                title,
                body,
                confirm=verb,
                note=answer.note,
                note_label=answer.note_label,
                danger=answer.danger,
            ),
            confirmed,
        )

    def action_deactivate(self) -> None:
        member = self.selected
        if member is None or self.check_action("deactivate", ()) is not True:
            return
        title = Content.assemble(("Mark ", "bold"), (cell(member.name, 64), "bold $accent"), (" inactive?", "bold"))
        body = Content(
            "It approved its shutdown but is still active (a known Claude Code failure). This sets "
            "isActive to false in config.json, logged in messages.jsonl."
        )

        def confirmed(result: Confirmed | None) -> None:
            if result is not None:
                self.app.post_message(actions.deactivate(member))

        ask_confirm(self, ConfirmRequest(title, body, confirm="Deactivate", danger=True), confirmed)


def member_detail(
    member: MemberView, now: datetime, team: TeamView | None = None, runs: RunState | None = None
) -> Content:
    """The selected member in words (sanitised); its team's session and whether the
    team ended (``team``: the member's team, when known), and its runs when ``teamdeck run``
    ran it."""
    parts: list[str | tuple[str, str]] = [
        (cell(member.name, 64), "bold"),
        f" of team {cell(member.team, 64)}",
        (" (ENDED)", "bold $warning") if team is not None and team.ended else "",
        f" · session {cell(team.session, 64)}" if team is not None and team.session else "",
        f" · {cell(member.agent_type or '', 40)}" if member.agent_type else "",
        f" · {member.role}" if member.role else "",
        f" · {cell(member.model or '', 40)}" if member.model else "",
        "\n",
        ("status: ", "$text-muted"),
        status_text(member, now),
    ]
    if member.detail:
        parts.append(f" — {cell(member.detail, 300)}")
    parts.append(f"   unread: {member.unread}\n")
    if member.connected:
        parts += [("● ", "bold $success"), f"connected over MCP at {cell(member.connected, 200)}\n"]
    if member.session_event:
        parts += [("session: ", "$text-muted"), f"{cell(member.session_event, 200)}\n"]
    if runs is not None:
        since = age(runs.since, now) if runs.since else ""
        parts += [("runs: ", "$text-muted"), runs.phrase(since), ("  (l run log, w wake, x stop)\n", "$text-muted")]
    if team is not None and team.problem is not None and (last_good := last_good_read(team)) is not None:
        parts += [("! ", "bold $error"), (last_good, "bold $error"), f" ({cell(team.problem.text, 300)})\n"]
    for marker in member.markers:
        parts += [("! ", "bold $error"), f"{cell(marker, 300)}\n"]
    if member.inbox_problem is not None:
        parts += [("! ", "bold $error"), f"{cell(member.inbox_problem.text, 300)}\n"]
    return Content.assemble(*parts)
