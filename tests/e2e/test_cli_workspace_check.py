"""A workspace that cannot be the one meant is refused in one line, with a hint.

``status``, ``validate`` and ``doctor`` used to report an empty world and exit 0 for a
path that does not exist, and ``tui`` opened an empty screen; ``-w W/teams`` showed
0 teams without a word.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from teamdeck.cli.main import main


@pytest.mark.parametrize("command", [["status"], ["validate"], ["doctor"], ["tui"], ["gate", "list"]])
def test_a_missing_workspace_is_one_line_and_exit_1(tmp_path: Path, run_cli, command: list[str]) -> None:
    missing = tmp_path / "nonexistent" / "typo"
    result = run_cli(missing, *command)
    assert result.code == 1, result.out
    assert result.err.strip().splitlines() == [f"teamdeck: no workspace at {missing}: the directory does not exist"]
    assert result.out == ""


def test_a_typo_next_to_the_workspace_names_it(demo: Path, run_cli) -> None:
    near = demo.parent / (demo.name[:-1])
    result = run_cli(near, "status")
    assert result.code == 1
    assert f"(did you mean {demo}?)" in result.err
    beside = run_cli(demo / "tems", "status")
    assert beside.code == 1 and f"(did you mean the workspace {demo}?)" in beside.err


@pytest.mark.parametrize("level", ["teams", "teams/quant", "teams/quant/inboxes", "tasks"])
def test_a_level_inside_a_workspace_names_the_workspace(demo: Path, run_cli, level: str) -> None:
    result = run_cli(demo / level, "status")
    assert result.code == 1
    assert result.err.strip() == (
        f"teamdeck: {demo / level} is a level inside the workspace {demo}: did you mean `--workspace {demo}`?"
    )


def test_a_claude_dir_inside_is_named_like_any_workspace(tmp_path: Path, run_cli) -> None:
    claude = tmp_path / ".claude"
    (claude / "teams" / "alpha").mkdir(parents=True)
    result = run_cli(claude / "teams", "doctor")
    assert result.code == 1 and f"did you mean `--workspace {claude}`?" in result.err
    missing = run_cli(tmp_path / "home" / ".claude", "status")
    assert missing.code == 1 and "Claude Code makes ~/.claude the first time it runs" in missing.err


def test_a_file_is_not_a_workspace(tmp_path: Path, run_cli) -> None:
    file = tmp_path / "notes.txt"
    file.write_text("x")
    result = run_cli(file, "status")
    assert result.code == 1 and "is not a directory" in result.err


def test_commands_that_make_a_workspace_still_may(tmp_path: Path, run_cli) -> None:
    fresh = tmp_path / "fresh"
    assert run_cli(fresh, "team", "create", "alpha").code == 0
    assert run_cli(tmp_path / "other", "task", "create", "t1", "--title", "T").code == 0
    empty = tmp_path / "empty"
    empty.mkdir()
    assert run_cli(empty, "status").code == 0  # an empty directory is an empty workspace, not an error


def test_status_run_outside_a_workspace_is_refused_as_the_tui_refuses_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """``teamdeck status`` in a directory that holds no workspace, none named: exit 1
    with the TUI's hint (it reported "0 team(s)" and exited 0); named, the empty
    directory is still an empty workspace."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("TEAMDECK_WORKSPACE", "")
    said = {}
    for command in ("status", "tui"):
        assert main([command]) == 1
        captured = capsys.readouterr()
        assert captured.out == ""
        said[command] = captured.err.strip().replace(f"teamdeck {command} ", "teamdeck COMMAND ")
    assert said["status"] == said["tui"]
    assert said["status"].startswith(f"teamdeck: {tmp_path} is not a teamdeck workspace")
    assert "`teamdeck COMMAND --workspace DIR`" in said["status"]
    assert main(["--workspace", str(tmp_path), "status"]) == 0


def test_json_mode_reports_it_too(tmp_path: Path, run_cli) -> None:
    result = run_cli(tmp_path / "nope", "status", "--json")
    assert result.code == 1 and result.json["ok"] is False and result.json["kind"] == "NotAWorkspace"
