"""``teamdeck tui`` without a workspace says how to point it at one; one stopped by an
internal error exits with a failure."""

from __future__ import annotations

import os
import subprocess
import sys

from teamdeck.cli.main import main


def test_tui_outside_a_workspace_explains_what_to_do(tmp_path) -> None:
    env = {**os.environ, "TEAMDECK_WORKSPACE": ""}
    proc = subprocess.run(
        [sys.executable, "-m", "teamdeck", "tui"], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=60
    )
    assert proc.returncode == 1
    assert "is not a teamdeck workspace" in proc.stderr
    assert "--workspace" in proc.stderr and "~/.claude" in proc.stderr


class StoppedByAnError:
    """Stands in for the app: Textual has printed a traceback and set the code it
    returns when something inside it raised."""

    return_code = 1

    def run(self) -> None:
        pass


def test_f19_a_tui_stopped_by_an_internal_error_does_not_exit_as_success(tmp_path, monkeypatch, capsys) -> None:
    (tmp_path / "teams").mkdir()
    monkeypatch.setattr("teamdeck.tui.open_app", lambda ws, **options: StoppedByAnError())
    assert main(["--workspace", str(tmp_path), "tui"]) == 70
    assert "internal error" in capsys.readouterr().err
