"""Claude Code's files: every fixture parses, round-trips, and every kind decodes (B13)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from support.locations import FIXTURES

from teamdeck.formats.claude_code.inbox import read_inbox
from teamdeck.formats.claude_code.tasks import read_claude_tasks
from teamdeck.formats.claude_code.teamfiles import list_inbox_paths, list_team_names, read_team_config, task_dir_kind
from teamdeck.model.team import (
    KINDS,
    ClaudeTask,
    IdleNotification,
    InboxMessage,
    Member,
    ModeSetRequest,
    PermissionRequest,
    PermissionResponse,
    Plain,
    PlanApprovalRequest,
    PlanApprovalResponse,
    SandboxPermissionRequest,
    SandboxPermissionResponse,
    ShutdownApproved,
    ShutdownRejected,
    ShutdownRequest,
    TaskAssignment,
    TaskCompleted,
    TeamConfig,
    TeammateTerminated,
    TeamPermissionUpdate,
    Unknown,
    decode,
    decode_text,
    is_structured,
)
from teamdeck.store.workspace import Workspace

FIXTURE_ROOTS = {
    "analysis-team": "analysis-team",
    "moonlit-chasing-meerkat": "moonlit-chasing-meerkat",
    "synthesized": "fixture-team",
}
INBOX_FILES = sorted(FIXTURES.glob("*/teams/*/inboxes/*.json"))
CONFIG_FILES = sorted(FIXTURES.glob("*/teams/*/config.json"))


def test_fixture_set_is_the_expected_one() -> None:
    assert len(INBOX_FILES) == 10 and len(CONFIG_FILES) == 3


@pytest.mark.parametrize("root, team", FIXTURE_ROOTS.items())
def test_every_fixture_team_loads_without_a_problem(root: str, team: str) -> None:
    ws = Workspace.at(FIXTURES / root)
    assert list_team_names(ws) == ([team], [])
    config = read_team_config(ws, team)
    assert config.lead_name == "team-lead"
    paths, ignored = list_inbox_paths(ws, team)
    assert paths and ignored == []
    for path in paths:
        inbox = read_inbox(path)
        assert inbox.problems == []
        assert all(entry.kind is not None for entry in inbox.entries)
        assert not any(isinstance(entry.kind, Unknown) for entry in inbox.entries)


@pytest.mark.parametrize("path", INBOX_FILES, ids=lambda p: f"{p.parts[-4]}/{p.name}")
def test_inbox_entries_round_trip_exactly(path: Path) -> None:
    for raw in json.loads(path.read_text()):
        message = InboxMessage.model_validate(raw)
        assert message.to_json() == raw
        kind = decode(message)
        if not isinstance(kind, Plain):
            assert kind.to_payload() == json.loads(raw["text"])


@pytest.mark.parametrize("path", CONFIG_FILES, ids=lambda p: p.parts[-2])
def test_configs_round_trip_exactly(path: Path) -> None:
    raw = json.loads(path.read_text())
    assert TeamConfig.model_validate(raw).to_json() == raw


def test_fixture_kinds_are_decoded_as_captured() -> None:
    ws = Workspace.at(FIXTURES / "synthesized")
    kinds = {
        path.stem: [type(entry.kind) for entry in read_inbox(path).entries]
        for path in list_inbox_paths(ws, "fixture-team")[0]
    }
    assert kinds == {
        "team-lead": [Plain, IdleNotification, PlanApprovalRequest, PermissionRequest, ShutdownApproved],
        "worker-a": [TaskAssignment, ShutdownRequest],
        "worker-b": [PlanApprovalResponse],
    }


def test_members_without_is_active_count_as_active_and_the_lead_is_not_a_teammate() -> None:
    config = read_team_config(Workspace.at(FIXTURES / "synthesized"), "fixture-team")
    assert [member.isActive for member in config.members] == [True, True, True]
    assert "isActive" not in config.members[1].to_json()  # the default is not written back
    assert [member.name for member in config.active_teammates()] == ["worker-a", "worker-b"]
    assert config.member("WORKER-B") is config.members[2]


def test_claude_task_list_keeps_unknown_status_and_hides_internal(tmp_path: Path) -> None:
    ws = Workspace.at(FIXTURES / "synthesized")
    tasks = read_claude_tasks(ws, "fixture-team")
    assert [task.id for task in tasks.tasks] == ["1", "2", "3"]
    assert [task.id for task in tasks.visible] == ["1", "2"]
    assert tasks.tasks[0].blocks == ["2"] and tasks.tasks[1].blockedBy == ["1"]
    assert task_dir_kind(ws.claude_tasks_dir("fixture-team")) == "claude"
    odd = ClaudeTask.model_validate({"id": "9", "subject": "s", "status": "on_hold", "weird": 1})
    assert odd.status == "on_hold" and odd.to_json()["weird"] == 1


def test_task_dir_kind_tells_teamdeck_tasks_from_claude_lists(tmp_path: Path) -> None:
    (tmp_path / "mine").mkdir()
    (tmp_path / "mine" / "task.yaml").write_text("id: mine\n")
    (tmp_path / "theirs").mkdir()
    (tmp_path / "theirs" / "12.json").write_text("{}")
    (tmp_path / "blank").mkdir()
    (tmp_path / "misc").mkdir()
    (tmp_path / "misc" / "notes.txt").write_text("x")
    assert [task_dir_kind(tmp_path / name) for name in ("mine", "theirs", "blank", "misc", "absent")] == [
        "teamdeck",
        "claude",
        "empty",
        "other",
        "missing",
    ]


SYNTHESIZED = [
    IdleNotification(
        from_="w",
        timestamp="2026-03-01T10:00:00.000Z",
        idleReason="failed",
        failureReason="boom",
        completedTaskId="3",
        completedStatus="failed",
        summary="s",
    ),
    TaskAssignment(taskId="1", subject="s", description="d", assignedBy="team-lead", timestamp="t"),
    ShutdownRequest(requestId="shutdown-1@w", from_="team-lead", reason="done", timestamp="t"),
    ShutdownApproved(requestId="shutdown-1@w", from_="w", timestamp="t", paneId="%3", backendType="tmux"),
    ShutdownRejected(requestId="shutdown-1@w", from_="w", reason="busy", timestamp="t"),
    PlanApprovalRequest(from_="w", timestamp="t", planFilePath="/p.md", planContent="# p", requestId="plan-1"),
    PlanApprovalResponse(requestId="plan-1", approved=False, feedback="more tests", timestamp="t"),
    PermissionRequest(
        request_id="perm-1",
        agent_id="w@t",
        tool_name="Bash",
        tool_use_id="toolu_1",
        description="ls",
        input={"command": "ls"},
        permission_suggestions=[],
    ),
    PermissionResponse(request_id="perm-1", subtype="success", response={"behavior": "allow"}),
    TaskCompleted(from_="w", taskId="1", taskSubject="s", timestamp="t"),
    TeammateTerminated(message="w has shut down."),
    SandboxPermissionRequest(
        requestId="sandbox-1-abcdefg",
        workerId="w@t",
        workerName="w",
        workerColor="blue",
        hostPattern={"host": "example.com"},
        createdAt=1,
    ),  # fmt: skip
    SandboxPermissionResponse(requestId="sandbox-1-abcdefg", host="example.com", allow=False, timestamp="t"),
    ModeSetRequest(),
    TeamPermissionUpdate(),
]


@pytest.mark.parametrize("kind", SYNTHESIZED, ids=lambda kind: kind.KIND)
def test_synthesized_kinds_decode_to_themselves(kind) -> None:
    text = kind.to_text()
    payload = json.loads(text)
    assert list(payload)[0] == "type" and payload["type"] == kind.KIND
    assert " " not in text.split('"', 1)[0]  # compact like JSON.stringify
    decoded = decode_text(text)
    assert type(decoded) is type(kind)
    assert decoded.to_payload() == payload
    assert is_structured(text)


def test_every_known_kind_has_a_synthesized_example() -> None:
    assert {kind.KIND for kind in SYNTHESIZED} == set(KINDS)


def test_field_casing_is_claude_codes() -> None:
    assert "requestId" in json.loads(SYNTHESIZED[2].to_text())
    assert "request_id" in json.loads(SYNTHESIZED[7].to_text())
    assert json.loads(SYNTHESIZED[2].to_text())["from"] == "team-lead"
    assert decode_text(SYNTHESIZED[7].to_text()).correlation_id == "perm-1"
    assert decode_text(SYNTHESIZED[2].to_text()).correlation_id == "shutdown-1@w"


@pytest.mark.parametrize("text", ["{not json", '{"no_type": 1}', '{"type": 3}', '["type"]', "  hello {", '"{}"'])
def test_text_that_is_not_a_protocol_object_is_plain(text: str) -> None:
    kind = decode_text(text)
    assert isinstance(kind, Plain) and kind.text == text
    assert not is_structured(text)


def test_b13_unknown_types_and_unknown_fields_are_kept_raw() -> None:
    raw = {"type": "team_merge_request", "x": [1, {"y": None}], "requestId": "m-1"}
    kind = decode_text(json.dumps(raw))
    assert isinstance(kind, Unknown) and kind.raw == raw and kind.problem is None
    assert kind.to_payload() == raw and kind.correlation_id == "m-1"
    idle = decode_text(
        json.dumps({"type": "idle_notification", "from": "w", "idleReason": "available", "newField": {"a": 1}})
    )
    assert isinstance(idle, IdleNotification) and idle.to_payload()["newField"] == {"a": 1}


def test_a_known_type_missing_its_request_id_is_unknown_with_the_problem() -> None:
    kind = decode_text('{"type":"shutdown_request","from":"team-lead"}')
    assert isinstance(kind, Unknown) and kind.type == "shutdown_request"
    assert kind.problem == "requestId: Field required"
    assert not is_structured('{"type":"shutdown_request","from":"team-lead"}')


def test_b13_unknown_member_and_message_fields_survive() -> None:
    member = Member.model_validate({"name": "w", "isActive": False, "futureField": {"k": [1]}})
    assert member.to_json() == {"name": "w", "isActive": False, "futureField": {"k": [1]}}
    message = InboxMessage.model_validate(
        {"from": "a", "text": "t", "timestamp": "x", "read": False, "messageId": "m1"}
    )
    assert message.to_json()["messageId"] == "m1"
