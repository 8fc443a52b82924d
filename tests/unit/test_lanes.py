"""Markers follow folders (tests/conftest.py): ``-m LANE`` selects the tests of that
folder of tests/ and nothing else, so ``make test-fast`` (``-m unit``) is tests/unit."""

from __future__ import annotations

import subprocess
import sys

from support.locations import REPO


def _collected(*args: str) -> set[str]:
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "--collect-only", *args],
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return {line.split("::")[0] for line in proc.stdout.splitlines() if "::" in line}


def test_a_lane_marker_selects_its_folder():
    files = ("tests/unit/test_readme.py", "tests/tui/test_footer.py", "tests/runner/test_runner_seen.py")
    assert _collected("-m", "unit", *files) == {"tests/unit/test_readme.py"}
    assert _collected("-m", "tui", *files) == {"tests/tui/test_footer.py"}
    assert _collected("-m", "not unit and not tui", *files) == {"tests/runner/test_runner_seen.py"}
