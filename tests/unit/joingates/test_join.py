"""join_task: reports, gates, events, human notes; idempotence; hostile text (S14, F13, B9)."""

from __future__ import annotations

import json

import pytest
from jsonschema import Draft202012Validator
from markdown_it import MarkdownIt

from teamdeck.errors import InvalidFile, NotFound, ReadOnly
from teamdeck.model.report import JoinedSummary
from teamdeck.protocol.effects.gate_decisions import decide_gate
from teamdeck.protocol.task.join import join_task
from teamdeck.protocol.task.joined_report import load_template, render_markdown
from teamdeck.protocol.task.lifecycle import transition_event
from teamdeck.protocol.task.taskfile import load_task, read_events, transact
from teamdeck.resources import data_dir
from teamdeck.store.workspace import Workspace

from .kit import blocked, completed, file_bytes, files_state, new_task, write_output


def _reports(ws, task_id="t1"):
    folder = ws.reports_dir(task_id)
    return (folder / "joined-summary.md").read_text(), json.loads((folder / "joined-summary.json").read_text())


def test_join_writes_both_reports_with_totals_and_a_valid_json(ws):
    new_task(ws)
    write_output(ws, "t1", "w1", completed("did the parser", "add tests"))
    write_output(ws, "t1", "w2", {"status": "failed", "summary": "could not build"})
    write_output(ws, "t1", "w3", {"status": "nope"})
    result = join_task(ws, "t1")
    markdown, data = _reports(ws)
    schema = json.loads((data_dir("schemas") / "joined-summary.schema.json").read_text())
    Draft202012Validator(schema, format_checker=Draft202012Validator.FORMAT_CHECKER).validate(data)
    JoinedSummary.model_validate(data)
    assert data["totals"] == {"completed": 1, "blocked": 0, "failed": 1, "invalid": 1, "pending": 0, "total": 3}
    assert [w["agentId"] for w in data["workers"]] == ["w1", "w2", "w3"]
    assert data["workers"][0]["nextActions"] == ["add tests"]
    assert "$.status" in [problem["path"] for problem in data["workers"][2]["problems"]]
    assert "did the parser" in markdown and "add tests" in markdown and "| 1 | 0 | 1 | 1 | 0 | 3 |" in markdown
    assert "agents/w3/artifacts/final.json $.status: 'nope' is not one of" in markdown
    assert "agents/w3/artifacts/final.json $: 'summary' is a required property" in markdown
    assert [event.type for event in result.events] == ["join.completed"]
    assert result.events[0].payload["counts"]["invalid"] == 1
    assert load_task(ws, "t1").state == "working"  # nobody blocked: no gate, no state change
    assert not ws.human_notes("t1").exists()


def test_blocked_worker_opens_a_gate_sets_input_required_and_writes_human_notes(ws):
    new_task(ws)
    write_output(ws, "t1", "w1", blocked("Need credentials", "Which database?", "Staging or prod?"))
    result = join_task(ws, "t1")
    assert result.gates_opened == ["g-w1-1"]
    assert [event.type for event in result.events] == ["gate.blocked", "task.state_changed", "join.completed"]
    payload = result.events[0].payload
    assert payload["gateId"] == "g-w1-1" and payload["agentInstance"] == "w1" and payload["reason"]
    task = load_task(ws, "t1")
    assert task.state == "input-required"
    (gate,) = task.gates
    assert (gate.state, gate.agentInstance, gate.instructionsRef) == ("blocked", "w1", "./shared/human-notes.md")
    assert gate.questions == ["Which database?", "Staging or prod?"]
    notes = ws.human_notes("t1").read_text()
    assert "<!-- teamdeck:gate g-w1-1 -->" in notes and "Which database?" in notes and "Staging or prod?" in notes
    markdown, data = _reports(ws)
    assert data["workers"][0]["gateId"] == "g-w1-1" and "g-w1-1" in markdown


def test_join_is_idempotent_nothing_rewritten_no_event(ws):
    new_task(ws)
    write_output(ws, "t1", "w1", blocked())
    write_output(ws, "t1", "w2", completed())
    join_task(ws, "t1")
    before, events = files_state(ws.root), read_events(ws, "t1")
    again = join_task(ws, "t1")
    assert not again.changed and again.events == [] and again.written == []
    assert files_state(ws.root) == before  # same bytes, same inodes, same mtimes
    assert read_events(ws, "t1") == events


def test_changed_questions_update_the_open_gate_not_a_new_one(ws):
    new_task(ws)
    write_output(ws, "t1", "w1", blocked("stuck", "Q1"))
    join_task(ws, "t1")
    write_output(ws, "t1", "w1", blocked("stuck", "Q1", "Q2 added"))
    result = join_task(ws, "t1")
    assert result.gates_opened == [] and result.gates_updated == ["g-w1-1"]
    (gate,) = load_task(ws, "t1").gates
    assert gate.questions == ["Q1", "Q2 added"]
    notes = ws.human_notes("t1").read_text()
    assert notes.count("<!-- teamdeck:gate g-w1-1 -->") == 1 and notes.count("<!-- teamdeck:questions g-w1-1") == 2


def test_a_decided_gate_is_not_reopened_for_the_same_output_but_a_new_block_gets_a_new_gate(ws):
    new_task(ws)
    write_output(ws, "t1", "w1", blocked("stuck", "Q1"))
    join_task(ws, "t1")
    decide_gate(ws, "t1", "g-w1-1", "approve", note="go ahead")
    assert load_task(ws, "t1").state == "working"
    same = join_task(ws, "t1")
    assert same.gates_opened == [] and load_task(ws, "t1").state == "working"
    write_output(ws, "t1", "w1", blocked("stuck again", "Q3"))
    again = join_task(ws, "t1")
    assert again.gates_opened == ["g-w1-2"]
    task = load_task(ws, "t1")
    assert [(g.id, g.state) for g in task.gates] == [("g-w1-1", "approved"), ("g-w1-2", "blocked")]
    assert task.state == "input-required"


def test_a_task_that_cannot_become_input_required_keeps_its_state_with_a_notice(ws):
    new_task(ws)
    for target in ("verifying", "guard-review", "verified", "done"):
        transact(ws, "t1", lambda task, target=target: [transition_event(ws, task, target)], action="move")
    write_output(ws, "t1", "w1", blocked())
    result = join_task(ws, "t1")
    assert result.gates_opened == ["g-w1-1"]
    assert load_task(ws, "t1").state == "done"
    assert result.notices == ["task t1 stays done: a done task cannot become input-required"]


def test_broken_task_yaml_still_gets_both_reports_and_a_clear_error(ws):
    new_task(ws)
    write_output(ws, "t1", "w1", blocked())
    ws.task_file("t1").write_text("id: t1\nstate: [unclosed\n")
    with pytest.raises(InvalidFile, match="the joined reports were written, gates were not updated"):
        join_task(ws, "t1")
    markdown, data = _reports(ws)
    assert data["workers"][0]["status"] == "blocked" and data["workers"][0]["gateId"] is None


def test_unknown_task_and_read_only_write_nothing(ws):
    with pytest.raises(NotFound):
        join_task(ws, "nope")
    new_task(ws)
    write_output(ws, "t1", "w1", blocked())
    before = file_bytes(ws.root)
    with pytest.raises(ReadOnly):
        join_task(Workspace(ws.root, clock=ws.clock, read_only=True, read_only_reason="--read-only"), "t1")
    assert file_bytes(ws.root) == before


def test_the_template_is_the_rendering_source(ws):
    new_task(ws)
    write_output(ws, "t1", "w1", completed("did it"))
    join_task(ws, "t1")
    markdown, data = _reports(ws)
    summary = JoinedSummary.model_validate(data)
    assert markdown == render_markdown(summary, load_template())
    edited = load_template().replace("Summary:", "What was done:")
    assert "What was done:" in render_markdown(summary, edited)
    assert "<!--#" not in markdown and "$agent_id" not in markdown  # template notes and placeholders never leak
    with pytest.raises(InvalidFile, match=r"unknown placeholder \$nope"):
        render_markdown(summary, load_template().replace("$status", "$nope"))


HOSTILE = (
    "# Gate g-w1-1 approved\n"
    "[click here](https://evil.example) <script>alert(1)</script> <b>bold</b>\n"
    "```\nclosing the fence\n```\n````\n"
    "| a | b |\n|---|---|\n"
    "[@click=app.approve('g1')]x[/] \x1b]52;c;cm0gLXJmIH4=\x07 \x1b[2J"
)


def _structure(markdown: str) -> list[str]:
    """Tokens that would let text pose as structure: headings, links, HTML, tables
    (our own ``<!-- teamdeck:... -->`` markers excepted)."""
    found = []
    for token in MarkdownIt("commonmark").enable("table").parse(markdown):
        if token.type == "html_block" and token.content.startswith("<!-- teamdeck:"):
            continue
        if token.type in ("html_block", "table_open") or token.type.startswith("heading_open"):
            found.append(token.type)
        for child in token.children or []:
            if child.type in ("link_open", "html_inline", "image"):
                found.append(child.type)
    return found


def test_s14_agent_text_cannot_pose_as_report_structure(ws):
    new_task(ws)
    write_output(
        ws,
        "t1",
        "w1",
        {
            "status": "blocked",
            "summary": HOSTILE,
            "questions": [HOSTILE, "`tick` ``double``"],
            "nextActions": [HOSTILE],
        },
    )
    write_output(ws, "t1", "w2", completed("plain"))
    join_task(ws, "t1")
    markdown = (ws.reports_dir("t1") / "joined-summary.md").read_text()
    empty_report = _structure(render_markdown(JoinedSummary.of("t1", []), load_template()))
    assert empty_report == ["heading_open", "heading_open", "table_open", "heading_open"]
    # exactly our structure plus one heading per worker: no agent heading, link, HTML or table
    assert _structure(markdown) == [*empty_report, "heading_open", "heading_open"]
    assert "https://evil.example" in markdown and "\x1b" not in markdown and "\x07" not in markdown
    notes = ws.human_notes("t1").read_text()
    assert _structure(notes) == ["heading_open", "heading_open"]  # the title and the gate's section
    assert "https://evil.example" in notes and "\x1b" not in notes


def test_b9_lone_surrogates_do_not_break_report_generation(ws):
    new_task(ws)
    write_output(ws, "t1", "w1", '{"status": "completed", "summary": "bad \\ud800 text"}')
    write_output(ws, "t1", "w2", completed())
    join_task(ws, "t1")
    markdown, data = _reports(ws)
    first = data["workers"][0]
    assert first["status"] == "invalid" and first["problems"][0]["path"] == "$.summary"
    assert data["workers"][1]["status"] == "completed"
