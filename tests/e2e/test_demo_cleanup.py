"""``teamdeck demo`` removes the temporary copy it made when it ends.

Every run used to leave a ``teamdeck-demo-*`` directory (~600 KB) behind. A workspace
the user named is theirs and stays; ``--keep`` keeps the temporary one.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from support.tmux import Tmux

from teamdeck.cli.demo import COPY_NAME


def _demo(tmp: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "TEAMDECK_WORKSPACE": "", "TMPDIR": str(tmp)}
    return subprocess.run(
        [sys.executable, "-m", "teamdeck", "demo", "--no-tui", "--duration", "0.3", "--speed", "20", *args],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )


def test_the_temporary_copy_is_removed_when_the_demo_ends(tmp_path: Path) -> None:
    result = _demo(tmp_path, "--json")
    assert result.returncode == 0, result.stderr
    data = json.loads(result.stdout)
    assert data["removed"] is True and data["workspace"].startswith(str(tmp_path / "teamdeck-demo-"))
    assert "(removed when you quit; --keep keeps it)" in result.stderr
    assert list(tmp_path.iterdir()) == []


def test_keep_keeps_it(tmp_path: Path) -> None:
    result = _demo(tmp_path, "--keep")
    assert result.returncode == 0, result.stderr
    (made,) = tmp_path.iterdir()
    assert made.name.startswith("teamdeck-demo-") and (made / COPY_NAME / "teams").is_dir()


def agents_of(tmp: Path) -> list[int]:
    """The demo agent processes still running on a workspace under ``tmp`` (by their
    environment: the runner gives each run TEAMDECK_WORKSPACE)."""
    return _processes(b"teamdeck.sim.agent", f"TEAMDECK_WORKSPACE={tmp}")


def demos_of(tmp: Path) -> list[int]:
    """The ``teamdeck demo`` processes started with ``TMPDIR=tmp`` still running."""
    return _processes(b"demo", f"TMPDIR={tmp}")


def _processes(in_cmdline: bytes, in_environ: str) -> list[int]:
    """Live processes with the argument ``in_cmdline`` and ``in_environ`` in their environment."""
    found = []
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            cmdline = (proc / "cmdline").read_bytes()
            environ = (proc / "environ").read_bytes()
            state = (proc / "stat").read_text().rpartition(")")[2].split()[0]
        except OSError:
            continue
        if state != "Z" and in_cmdline in cmdline.split(b"\0") and in_environ.encode() in environ:
            found.append(int(proc.name))
    return found


def _shows(screen: str, text: str) -> bool:
    """Whether ``text`` is on ``screen`` however the pane wrapped it: a wrap falls inside
    a word or on a space, which the pane then drops (the workspace path before it has
    the length of pytest's temporary directory)."""
    return "".join(text.split()) in "".join(screen.split())


@pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")
@pytest.mark.parametrize("size", [(80, 24), (120, 36)])
def test_quitting_the_demo_with_q_removes_its_copy(tmp_path: Path, size: tuple[int, int]) -> None:
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    env = ["env", "TEAMDECK_WORKSPACE=", f"TMPDIR={tmp}", "TERM=xterm-256color"]
    session = Tmux([*env, sys.executable, "-m", "teamdeck", "demo"], width=size[0], height=size[1])
    try:
        session.wait_for("Decisions")
        assert [made.name[:14] for made in tmp.iterdir()] == ["teamdeck-demo-"]
        (made,) = tmp.iterdir()
        runs = made / COPY_NAME / "runs"
        deadline = time.monotonic() + 30
        while not list(runs.glob("*/*/*/run.yaml")) and time.monotonic() < deadline:
            time.sleep(0.1)  # the runner has started runs (agent processes) before the quit
        assert list(runs.glob("*/*/*/run.yaml"))
        session.keys("q")
        screen = session.wait_for("EXITED 0")
        assert _shows(screen, "(removed; --keep keeps it)")
        assert _shows(screen, "started by the runner")
        assert list(tmp.iterdir()) == []
        assert agents_of(tmp) == []  # the runner stopped its runs: no agent left behind
    finally:
        session.kill()


@pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")
def test_closing_the_terminal_ends_the_demo_and_removes_its_copy(tmp_path: Path) -> None:
    """A dropped SSH session or a closed terminal (SIGHUP) used to leave the demo running
    on its own, its agents still writing into a copy nobody removed. Now the runner stops
    its runs (SIGTERM to each run's group) before the copy goes."""
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    env = ["env", "TEAMDECK_WORKSPACE=", f"TMPDIR={tmp}", "TERM=xterm-256color"]
    session = Tmux([*env, sys.executable, "-m", "teamdeck", "demo"])
    try:
        session.wait_for("Decisions")
        assert [made.name[:14] for made in tmp.iterdir()] == ["teamdeck-demo-"]
    finally:
        session.kill()  # the pane's processes get SIGHUP
    deadline = time.monotonic() + 15
    while (list(tmp.iterdir()) or agents_of(tmp) or demos_of(tmp)) and time.monotonic() < deadline:
        time.sleep(0.1)
    left = demos_of(tmp)
    for pid in left:  # the test leaves no process behind, even when it fails
        os.kill(pid, signal.SIGKILL)
    assert list(tmp.iterdir()) == []
    assert agents_of(tmp) == []
    # The demo itself ended: a KeyboardInterrupt inside Textual's loop used to leave it
    # waiting forever at 100 % CPU, its input thread reading the dead terminal's EOF.
    assert left == []
