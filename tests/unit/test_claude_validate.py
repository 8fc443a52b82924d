"""``teamdeck validate`` over Claude Code teams and task lists."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from support.locations import FIXTURES

from teamdeck.protocol.checks.validate import validate_workspace
from teamdeck.store.workspace import Workspace


@pytest.fixture
def claude(tmp_path: Path) -> Workspace:
    root = tmp_path / "claude"
    shutil.copytree(FIXTURES / "synthesized", root)
    return Workspace.at(root)


@pytest.mark.parametrize("root", ["analysis-team", "moonlit-chasing-meerkat", "synthesized"])
def test_every_fixture_validates_clean(root: str) -> None:
    assert validate_workspace(Workspace.at(FIXTURES / root)) == []


def test_team_files_problems_name_file_and_place(claude: Workspace) -> None:
    team = claude.team_dir("fixture-team")
    config = json.loads((team / "config.json").read_text())
    config["members"].append({"name": "WORKER-A"})
    del config["members"][1]["name"]
    (team / "config.json").write_text(json.dumps(config))
    (team / "inboxes" / "worker-b.json").write_text('{"oops": 1}')
    lead = json.loads((team / "inboxes" / "team-lead.json").read_text())
    lead.append({"from": "worker-a", "timestamp": "t", "read": False})
    lead.append({"from": "worker-a", "text": '{"type":"plan_approval_response","approved":true}', "timestamp": "t"})
    lead.append({"from": "worker-a", "text": '{"type":"brand_new_kind"}', "timestamp": "t", "futureField": 1})
    (team / "inboxes" / "team-lead.json").write_text(json.dumps(lead))
    (team / "messages.jsonl").write_text('{"id": "nope"}\n')
    problems = [str(problem) for problem in validate_workspace(claude)]
    assert problems[:1] == ["teams/fixture-team/config.json $.members[1].name: Field required"]
    assert problems[1:] == [
        "teams/fixture-team/inboxes/team-lead.json $[5].text: Field required",
        "teams/fixture-team/inboxes/team-lead.json $[6].text: plan_approval_response message: requestId: Field required",
        "teams/fixture-team/inboxes/worker-b.json: expected a JSON array (got object)",
        problems[4],
    ]
    assert problems[4].startswith(
        "teams/fixture-team/messages.jsonl: teams/fixture-team/messages.jsonl record 1 (nope)"
    )


def test_duplicate_members_are_a_problem(claude: Workspace) -> None:
    config = json.loads(claude.team_config("fixture-team").read_text())
    config["members"].append({"name": "Worker-A"})
    claude.team_config("fixture-team").write_text(json.dumps(config))
    assert [str(p) for p in validate_workspace(claude)] == [
        "teams/fixture-team/config.json $.members[3].name: member 'Worker-A' is listed twice"
    ]


def test_task_list_problems(claude: Workspace) -> None:
    tasks = claude.claude_tasks_dir("fixture-team")
    (tasks / "2.json").write_text(
        json.dumps({"id": "2", "subject": "s", "status": "pending", "blocks": [], "blockedBy": []})
    )
    (tasks / "4.json").write_text(json.dumps({"id": "5", "subject": "s", "status": "weird_status"}))
    (tasks / "6.json").write_text("{broken")
    assert [str(p) for p in validate_workspace(claude)] == [
        "tasks/fixture-team/4.json $.id: '5' does not match the file name",
        "tasks/fixture-team/6.json line 1 column 2: invalid JSON: Expecting property name enclosed in double quotes",
        "tasks/fixture-team/1.json $.blocks: lists task 2, whose blockedBy does not list 1",
    ]


def test_fixtures_fit_the_published_claude_code_schemas() -> None:
    from jsonschema import Draft202012Validator

    from teamdeck.model.schemas import all_schemas

    schemas = {name: Draft202012Validator(schema) for name, schema in all_schemas().items()}
    checked = 0
    for path in FIXTURES.glob("*/teams/*/config.json"):
        schemas["claude-team-config.schema.json"].validate(json.loads(path.read_text()))
        checked += 1
    for path in FIXTURES.glob("*/teams/*/inboxes/*.json"):
        for entry in json.loads(path.read_text()):
            schemas["claude-inbox-message.schema.json"].validate(entry)
            checked += 1
    for path in FIXTURES.glob("*/tasks/*/*.json"):
        schemas["claude-task.schema.json"].validate(json.loads(path.read_text()))
        checked += 1
    assert checked == 3 + 19 + 3 + 8  # configs, inbox entries, task files (synthesized, analysis-team)
