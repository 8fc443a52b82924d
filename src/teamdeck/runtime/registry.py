"""Every runtime, by the name ``runtime:`` gives it: the one place a runtime is
registered (add its instance to :data:`RUNTIMES`; nothing else changes)."""

from __future__ import annotations

from teamdeck.runtime.claude.headless import CLAUDE_CODE
from teamdeck.runtime.command import COMMAND
from teamdeck.runtime.spec import Runtime

RUNTIMES: dict[str, Runtime] = {runtime.name: runtime for runtime in (COMMAND, CLAUDE_CODE)}
"""The runtimes ``.teamdeck.yaml`` may name."""
