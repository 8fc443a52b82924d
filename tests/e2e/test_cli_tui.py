"""``teamdeck tui`` without a workspace says how to point it at one."""

from __future__ import annotations

import os
import subprocess
import sys


def test_tui_outside_a_workspace_explains_what_to_do(tmp_path) -> None:
    env = {**os.environ, "TEAMDECK_WORKSPACE": ""}
    proc = subprocess.run(
        [sys.executable, "-m", "teamdeck", "tui"], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=60
    )
    assert proc.returncode == 1
    assert "is not a teamdeck workspace" in proc.stderr
    assert "--workspace" in proc.stderr and "~/.claude" in proc.stderr
