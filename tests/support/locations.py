"""Where the test data lives and the fixed moment tests run at.

A module of its own (not conftest.py) so test files can import these names without
depending on which of the several conftest modules pytest loaded last.
"""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
DEMO = REPO / "demo-workspace"
FIXTURES = REPO / "tests" / "fixtures" / "claude-code"
"""Real Claude Code team files (a copy of shared/fixtures/claude-code; FORMAT.md there
says where they come from), kept in the repo so the suite runs on a fresh clone."""
FIXED_NOW = datetime(2026, 3, 1, 12, 0, 0, tzinfo=UTC)
