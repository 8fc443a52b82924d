"""Where the demo's workspace is, while the demo runs.

The overview line used to name the temporary copy ``workspace``, and the line that says
where it is, printed before the TUI opens, is under the TUI's screen until it quits: a
person who wanted to point another shell's ``teamdeck`` at the running demo could not
find it. The copy is named for what it is, and ``?`` shows its full path.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from support.tmux import Tmux

from teamdeck.cli.demo import COPY_NAME


@pytest.fixture
def short_tmp() -> Iterator[Path]:
    """A temporary directory with a short path, so the copy's full path fits on one
    line of the help screen."""
    made = Path(tempfile.mkdtemp(prefix="td-", dir="/tmp"))
    try:
        yield made
    finally:
        shutil.rmtree(made, ignore_errors=True)


@pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")
def test_the_help_screen_shows_the_running_demos_workspace_path(short_tmp: Path) -> None:
    env = ["env", "TEAMDECK_WORKSPACE=", f"TMPDIR={short_tmp}", "TERM=xterm-256color"]
    session = Tmux([*env, sys.executable, "-m", "teamdeck", "demo"], width=150, height=40)
    try:
        session.wait_for("Decisions")
        screen = session.wait_for(f" {COPY_NAME} ")  # the overview line, once the first read is drawn
        (made,) = short_tmp.iterdir()
        copy = made / COPY_NAME
        assert copy.is_dir() and f" {COPY_NAME} " in screen.splitlines()[0]  # the overview line's name
        session.keys("?")
        screen = session.wait_for("teamdeck keys")
        assert f"workspace {copy}" in screen
        # what the shell beside it does with that path: the same world
        status = subprocess.run(
            [sys.executable, "-m", "teamdeck", "-w", str(copy), "status"], capture_output=True, text=True, timeout=60
        )
        assert status.returncode == 0 and "oldest 45m" in status.stdout, status.stdout + status.stderr
        session.keys("Escape")
        session.wait_gone("teamdeck keys")
        session.keys("q")
        screen = session.wait_for("EXITED 0")
        said = "".join(f"teamdeck demo: {copy} (a fresh copy of the demo workspace)".split())
        assert said in "".join(screen.split())  # printed before the TUI opened, seen again after it
        assert "".join("`?` in the TUI shows the workspace again".split()) in "".join(screen.split())
    finally:
        session.kill()


def test_demo_help_says_what_its_workspace_defaults_to(run_cli, tmp_path: Path) -> None:
    """``teamdeck demo`` never plays on $TEAMDECK_WORKSPACE or the current directory; its
    ``--help`` used to say it did, as every other command's does."""
    result = run_cli(tmp_path, "demo", "--help")
    text = " ".join(result.out.split())
    assert result.code == 0
    assert "a new temporary directory" in text and "never $TEAMDECK_WORKSPACE or the current directory" in text
    assert "default: $TEAMDECK_WORKSPACE, else the current directory" not in text
