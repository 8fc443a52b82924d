"""Every action through the keys, asserting what was written to disk (event, YAML,
inbox) and what the screen shows afterwards."""

from __future__ import annotations

import json

from support.pilot_helpers import busy, make_app, palette_gathered, run, showing, type_text, until
from textual.widgets import Static

from teamdeck.formats.claude_code.inbox import read_inbox
from teamdeck.live import actions as runner_module
from teamdeck.live.actions import Action
from teamdeck.live.workspace import LiveWorkspace
from teamdeck.model.team import ShutdownApproved
from teamdeck.protocol.task.taskfile import load_task
from teamdeck.protocol.team.messaging.handshake_writes import request_shutdown
from teamdeck.protocol.team.messaging.sending import send_message, send_structured
from teamdeck.sim.outputs import write_final_output
from teamdeck.tui.dialogs.compose import ComposeScreen
from teamdeck.tui.dialogs.text_view import TextScreen
from teamdeck.tui.messages import RunAction
from teamdeck.tui.panels.decisions.decision_list import DecisionList
from teamdeck.tui.panels.events.event_list import EventList
from teamdeck.tui.panels.roster.roster_list import RosterList
from teamdeck.tui.panels.tasks.task_list import TaskList
from teamdeck.tui.screens.help import HelpScreen
from teamdeck.tui.widgets.confirm_bar import ConfirmBar
from teamdeck.tui.widgets.overview_line import OverviewLine

TASK_GATE = "task:t1:g-w1-1"
PLAN_GATE = "plan:alpha:bob:plan-1"


def _events(ws, task_id="t1"):
    return [json.loads(line) for line in ws.events_file(task_id).read_text().splitlines()]


def _inbox(ws, member):
    return [entry.raw for entry in read_inbox(ws.inbox("alpha", member)).entries]


def _select(app, widget_type, key):
    assert app.main.query_one(widget_type).select_key(key), key


async def _open(pilot, app, widget_type, row_key, key, screen_type, *, panel=None):
    """Go to ``panel``, select ``row_key`` in its list, press ``key`` and wait for the
    dialog (``screen_type``) it opens."""
    if panel:
        await pilot.press(panel)
    _select(app, widget_type, row_key)
    await pilot.press(key)
    await until(pilot, lambda: showing(app, screen_type), f"the {screen_type.__name__}")


def test_approve_a_gate_with_a_note_writes_the_event_and_task_yaml(world) -> None:
    app = make_app(world)

    async def scenario(pilot):
        assert [row.key for row in app.main.query_one(DecisionList).rows] == [PLAN_GATE, TASK_GATE] or {
            row.key for row in app.main.query_one(DecisionList).rows
        } == {PLAN_GATE, TASK_GATE}
        await _open(pilot, app, DecisionList, TASK_GATE, "a", ConfirmBar)
        await type_text(pilot, "use the LALR grammar")
        await pilot.press("enter")
        await until(
            pilot,
            lambda: TASK_GATE not in {row.key for row in app.main.query_one(DecisionList).rows},
            "the gate to leave",
        )
        event = _events(world)[-2]
        assert event["type"] == "gate.approved" and event["payload"]["note"] == "use the LALR grammar"
        assert event["payload"]["gateId"] == "g-w1-1" and event["actor"] == "human:tester"
        task = load_task(world, "t1")
        assert task.gates[0].state == "approved" and task.gates[0].note == "use the LALR grammar"
        assert task.state == "working"

    run(app, scenario)


def test_the_decision_is_drawn_before_its_effects_are_written(world, monkeypatch) -> None:
    """The action thread waits for the frame that shows the decision before writing
    human-notes.md and telling the worker; the app says when that frame is drawn, so
    the wait ends then (not at its time limit). The limit is raised for the test: on a
    loaded machine the frame can take longer than the product's 0.1 s, and a wait that
    ends at the limit says nothing about whether the app told it."""
    monkeypatch.setattr(runner_module, "SHOWN_WAIT_S", 10.0)
    app = make_app(world)
    waits: list[bool] = []
    real = LiveWorkspace.wait_shown

    def recording(live: LiveWorkspace, ticket: int, timeout: float) -> None:
        real(live, ticket, timeout)
        waits.append(live.is_shown(ticket))

    monkeypatch.setattr(LiveWorkspace, "wait_shown", recording)

    async def scenario(pilot):
        await _open(pilot, app, DecisionList, TASK_GATE, "a", ConfirmBar)
        await pilot.press("enter")
        await until(pilot, lambda: load_task(world, "t1").gates[0].state == "approved", "the approval")
        await until(pilot, lambda: not busy(app), "the action")
        assert waits == [True]

    run(app, scenario)


def test_reject_needs_a_note_and_writes_nothing_without_one(world) -> None:
    app = make_app(world)

    async def scenario(pilot):
        before = world.events_file("t1").read_bytes()
        await _open(pilot, app, DecisionList, TASK_GATE, "r", ConfirmBar)
        await pilot.press("enter")
        await pilot.pause()
        assert showing(app, ConfirmBar)  # still asking: the note is required
        assert world.events_file("t1").read_bytes() == before
        await type_text(pilot, "not now")
        await pilot.press("enter")
        await until(pilot, lambda: load_task(world, "t1").gates[0].state == "rejected", "the rejection")
        assert _events(world)[-2]["type"] == "gate.rejected"

    run(app, scenario)


def test_cancel_writes_nothing(world) -> None:
    app = make_app(world)

    async def scenario(pilot):
        before = world.events_file("t1").read_bytes()
        await _open(pilot, app, DecisionList, TASK_GATE, "a", ConfirmBar)
        await pilot.press("escape")
        await until(pilot, lambda: not showing(app, ConfirmBar))
        await until(pilot, lambda: not busy(app), "the workers to finish")
        assert world.events_file("t1").read_bytes() == before

    run(app, scenario)


def test_approve_a_plan_from_the_queue_answers_in_the_inbox(world) -> None:
    app = make_app(world)

    async def scenario(pilot):
        await _open(pilot, app, DecisionList, PLAN_GATE, "a", ConfirmBar)
        await pilot.press("enter")
        await until(
            pilot,
            lambda: PLAN_GATE not in {row.key for row in app.main.query_one(DecisionList).rows},
            "the plan gate to leave",
        )
        answer = json.loads(_inbox(world, "bob")[-1]["text"])
        assert answer == {
            "type": "plan_approval_response",
            "requestId": "plan-1",
            "approved": True,
            **({"timestamp": answer["timestamp"]} if "timestamp" in answer else {}),
        }
        assert app.snapshot.member("alpha/bob").status != "awaiting"

    run(app, scenario)


def test_reject_a_plan_from_the_roster_with_feedback(world) -> None:
    app = make_app(world)

    async def scenario(pilot):
        await _open(pilot, app, RosterList, "alpha/bob", "P", ConfirmBar, panel="2")
        await type_text(pilot, "split it in two")
        await pilot.press("enter")
        await until(pilot, lambda: app.snapshot.member("alpha/bob").pending_plan is None, "the answer")
        answer = json.loads(_inbox(world, "bob")[-1]["text"])
        assert answer["approved"] is False and answer["feedback"] == "split it in two"

    run(app, scenario)


def test_message_a_member(world) -> None:
    app = make_app(world)

    async def scenario(pilot):
        await _open(pilot, app, RosterList, "alpha/alice", "m", ComposeScreen, panel="2")
        await type_text(pilot, "lexer first")
        await pilot.press("enter")
        app.screen.query_one("#text").text = "Start with the lexer, please."
        await pilot.press("ctrl+s")
        await until(pilot, lambda: app.snapshot.member("alpha/alice").unread == 2, "the second unread message")
        entry = _inbox(world, "alice")[-1]
        assert entry["from"] == "team-lead" and entry["summary"] == "lexer first"
        assert entry["text"] == "Start with the lexer, please." and entry["read"] is False
        log = [json.loads(line) for line in world.messages_log("alpha").read_text().splitlines()]
        assert log[-1]["type"] == "message" and log[-1]["to"] == ["alice"]

    run(app, scenario)


def test_messaging_the_lead_says_how_to_write_as_another_member_and_that_way_works(world, run_cli) -> None:
    """The dialog always writes as the lead: to the lead itself it names the CLI's
    ``--from``, and the command it shows sends as the member named."""
    app = make_app(world)
    shown: list[str] = []

    async def scenario(pilot):
        await _open(pilot, app, RosterList, "alpha/alice", "m", ComposeScreen, panel="2")
        assert "--from" not in str(app.screen.query_one("#sender").content)  # to alice: nothing to choose
        await pilot.press("escape")
        await until(pilot, lambda: not showing(app, ComposeScreen), "the dialog closed")
        await _open(pilot, app, RosterList, "alpha/team-lead", "m", ComposeScreen)
        shown.append(str(app.screen.query_one("#sender").content))

    run(app, scenario)
    header = shown[0]
    assert "to write as another member: " in header, header
    command = header.split("to write as another member: ")[1].split()
    assert command[:4] == ["teamdeck", "send", "alpha", "team-lead"] and "--from" in command, command
    values = {"TEXT": "From alice, about the plan", "SUMMARY": "plan", "NAME": "alice"}
    result = run_cli(world.root, *(values.get(word, word) for word in command[1:]))
    assert result.code == 0, result.err
    entry = _inbox(world, "team-lead")[-1]
    assert entry["from"] == "alice" and entry["text"] == "From alice, about the plan"


def test_broadcast_to_the_team(world) -> None:
    app = make_app(world)

    async def scenario(pilot):
        await _open(pilot, app, RosterList, "alpha/alice", "b", ComposeScreen, panel="2")
        app.screen.query_one("#summary").value = "standup"
        app.screen.query_one("#text").text = "Status in five minutes."
        await pilot.press("ctrl+s")
        await until(pilot, lambda: app.snapshot.member("alpha/bob").unread == 1, "bob's copy")
        for member in ("alice", "bob"):
            assert _inbox(world, member)[-1]["text"] == "Status in five minutes."

    run(app, scenario)


def test_shutdown_request_then_the_handshake_progresses_live(world) -> None:
    app = make_app(world, watch=True)

    async def scenario(pilot):
        await _open(pilot, app, RosterList, "alpha/alice", "s", ConfirmBar, panel="2")
        await type_text(pilot, "done")
        await pilot.press("enter")
        await until(pilot, lambda: app.snapshot.member("alpha/alice").status == "shutdown-requested", "requested")
        request = json.loads(_inbox(world, "alice")[-1]["text"])
        assert request["type"] == "shutdown_request" and request["reason"] == "done"
        # alice answers from another process's point of view: a file change only.
        from teamdeck.protocol.team.messaging.handshake_writes import respond_shutdown

        respond_shutdown(world, "alpha", request["requestId"], approve=True, sender="alice")
        await until(pilot, lambda: app.snapshot.member("alpha/alice").status == "offline", "offline")
        row = next(row for row in app.main.query_one(RosterList).rows if row.key == "alpha/alice")
        assert any(cell.text.startswith("offline") for cell in row.cells)

    run(app, scenario)


def test_deactivate_is_guarded_and_writes_config(world) -> None:
    sent = request_shutdown(world, "alpha", "alice")
    send_structured(
        world, "alpha", "team-lead", ShutdownApproved(requestId=sent.request_id, from_="alice"), sender="alice"
    )
    app = make_app(world)

    async def scenario(pilot):
        await pilot.press("2")
        _select(app, RosterList, "alpha/bob")
        await pilot.press("d")  # bob did not approve a shutdown: nothing happens
        await pilot.pause()
        assert not showing(app, ConfirmBar)
        _select(app, RosterList, "alpha/alice")
        await pilot.pause()
        await pilot.press("d")
        await until(pilot, lambda: showing(app, ConfirmBar))
        await pilot.press("enter")
        await until(pilot, lambda: app.snapshot.member("alpha/alice").status == "offline", "offline")
        config = json.loads(world.team_config("alpha").read_text())
        assert next(m for m in config["members"] if m["name"] == "alice")["isActive"] is False

    run(app, scenario)


def test_join_key_picks_up_a_new_blocked_worker(world) -> None:
    app = make_app(world)

    async def scenario(pilot):
        write_final_output(world, "t1", "w4", {"status": "blocked", "summary": "stuck", "questions": ["Ok?"]})
        await pilot.press("4")
        _select(app, TaskList, "t1")
        await pilot.press("J")
        await until(pilot, lambda: len(app.snapshot.decisions) == 3, "the new gate")
        assert any(gate.agent == "w4" for gate in app.snapshot.decisions)
        assert [event["type"] for event in _events(world)][-1] == "join.completed"

    run(app, scenario)


def test_auto_join_when_a_final_json_appears(world) -> None:
    app = make_app(world, watch=True)

    async def scenario(pilot):
        write_final_output(world, "t1", "w5", {"status": "blocked", "summary": "need input", "questions": ["Which?"]})
        await until(pilot, lambda: any(gate.agent == "w5" for gate in app.snapshot.decisions), "the auto-joined gate")

    run(app, scenario)


def test_auto_join_off_by_setting(world) -> None:
    (world.root / ".teamdeck.yaml").write_text("autoJoin: false\n")
    app = make_app(world, watch=True)

    async def scenario(pilot):
        before = world.events_file("t1").read_bytes()
        write_final_output(world, "t1", "w6", {"status": "blocked", "summary": "x", "questions": ["y"]})
        await until(pilot, lambda: any(w.id == "w6" for w in app.snapshot.task("t1").workers), "the new worker")
        await until(pilot, lambda: not busy(app), "the workers to finish")
        assert world.events_file("t1").read_bytes() == before

    run(app, scenario)


def test_read_only_disables_every_action_visibly(world) -> None:
    app = make_app(world, read_only=True)

    async def scenario(pilot):
        before = world.events_file("t1").read_bytes()
        _select(app, DecisionList, TASK_GATE)
        await pilot.pause()
        bindings = app.screen.active_bindings
        assert bindings["a"].enabled is False and bindings["r"].enabled is False
        await pilot.press("a")
        await pilot.pause()
        assert not showing(app, ConfirmBar)
        await pilot.press("2")
        await pilot.pause()
        assert all(app.screen.active_bindings[key].enabled is False for key in ("m", "b", "s"))
        assert world.events_file("t1").read_bytes() == before
        assert "READ-ONLY" in app.main.query_one(OverviewLine).plain

    run(app, scenario)


def test_a_refused_action_is_a_notice_not_a_crash(world) -> None:
    app = make_app(world)
    notices = []
    original = app.notify

    def record(message, **options):
        notices.append((message, options.get("severity")))
        original(message, **options)

    app.notify = record

    async def scenario(pilot):
        from teamdeck.protocol.effects.gate_decisions import decide_gate

        await _open(pilot, app, DecisionList, TASK_GATE, "a", ConfirmBar)
        decide_gate(world, "t1", "g-w1-1", "reject", note="someone else was faster")
        await pilot.press("enter")
        await until(pilot, lambda: any(severity == "error" for _message, severity in notices), "the error notice")
        message = next(message for message, severity in notices if severity == "error")
        assert "already" in message and "rejected" in message
        assert app.is_running

    run(app, scenario)


def test_help_palette_and_panels(world) -> None:
    app = make_app(world)

    async def scenario(pilot):
        await pilot.press("question_mark")
        await until(pilot, lambda: isinstance(app.screen, HelpScreen))
        # the full path, which the overview line's name alone does not give
        assert str(app.screen.query_one("#help-workspace", Static).content) == f"workspace {world.root}"
        await pilot.press("escape")
        for key, panel in (("2", "roster"), ("3", "inbox"), ("4", "tasks"), ("5", "events"), ("1", "gates")):
            await pilot.press(key)
            assert app.main.current_panel == panel
        await pilot.press("tab")
        assert app.main.current_panel == "roster"
        await pilot.press("shift+tab")
        assert app.main.current_panel == "gates"
        await pilot.press("ctrl+p")
        await type_text(pilot, "approve g-w1")
        await until(pilot, lambda: palette_gathered(app), "the palette's matches")
        await pilot.press("enter")
        await until(pilot, lambda: showing(app, ConfirmBar), "the confirm dialog from the palette")

    run(app, scenario)


def test_inbox_reads_a_message_in_full_and_raw(world) -> None:
    app = make_app(world)

    async def scenario(pilot):
        await pilot.press("2")
        _select(app, RosterList, "alpha/alice")
        await pilot.press("enter")
        assert app.main.current_panel == "inbox"
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(app.screen, TextScreen))
        assert "Please start on the lexer" in str(app.screen.query_one("#text-body").render())
        await pilot.press("v")
        await pilot.press("escape")
        await until(pilot, lambda: not isinstance(app.screen, TextScreen))

    run(app, scenario)


def test_events_filter(world) -> None:
    app = make_app(world)

    async def scenario(pilot):
        await pilot.press("5")
        events = app.main.query_one(EventList)
        total = len(events.rows)
        await pilot.press("slash")
        await type_text(pilot, "gate.blocked")
        await pilot.pause()
        assert len(events.rows) == 1 < total
        await pilot.press("escape")
        await pilot.pause()
        assert len(events.rows) == total

    run(app, scenario)


def test_an_action_refreshes_what_it_wrote_once_and_the_watchers_echo_is_dropped(world, monkeypatch) -> None:
    """The action's own refresh reads the files it wrote; the watcher's later report of
    the same write reads nothing again (an external write after it still does)."""
    import teamdeck.live.workspace as live_module  # the app's live workspace refreshes

    refreshed: list[frozenset] = []
    real_refresh = live_module.refresh

    def counting(snapshot, paths):
        refreshed.append(frozenset(paths))
        return real_refresh(snapshot, paths)

    monkeypatch.setattr(live_module, "refresh", counting)
    app = make_app(world, watch=True)
    task_file = world.task_file("t1")

    async def scenario(pilot):
        assert app.watching
        await _open(pilot, app, DecisionList, TASK_GATE, "a", ConfirmBar)
        await pilot.press("enter")
        await until(pilot, lambda: load_task(world, "t1").gates[0].state == "approved" and not busy(app), "approve")
        await until(pilot, lambda: any(task_file in paths for paths in refreshed), "the action's refresh")
        # A later external write is seen, so by then the watcher has reported (or dropped) the echo.
        send_message(world, "alpha", "alice", "after the approval", summary="later")
        inbox = world.inbox("alpha", "alice")
        await until(pilot, lambda: any(inbox in paths for paths in refreshed), "the external write")
        assert sum(task_file in paths for paths in refreshed) == 1, refreshed
        assert not any(task_file.parent in paths for paths in refreshed), refreshed  # nor its directory
        # The task file written again by someone else is read again.
        task_file.write_bytes(task_file.read_bytes())
        with task_file.open("ab") as handle:
            handle.write(b"\n")
        await until(pilot, lambda: sum(task_file in paths for paths in refreshed) == 2, "the external rewrite")

    run(app, scenario)


def test_actions_run_one_at_a_time_in_order_and_a_failing_one_does_not_stop_the_next(world) -> None:
    """Posted as RunAction messages (as the widgets do), run by the app's runner in order."""
    app = make_app(world)
    ran: list[str] = []

    def broken(ws) -> str:
        ran.append("broken")
        raise RuntimeError("a bug in one action")

    async def scenario(pilot):
        app.post_message(RunAction(Action("first", lambda ws: ran.append("first") or "first done")))
        app.post_message(RunAction(Action("broken", broken)))
        app.post_message(RunAction(Action("third", lambda ws: ran.append("third") or "third done")))
        await until(pilot, lambda: len(ran) == 3 and not busy(app), "the actions")
        assert ran == ["first", "broken", "third"]
        assert app.is_running

    run(app, scenario)
