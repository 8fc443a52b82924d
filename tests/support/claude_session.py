"""The pinned Claude Code as a person runs it: the interactive client in a terminal
(a private tmux server), against the scripted model.

Channels exist only there in 2.1.332: ``claude -p`` registers a channel only for a
plugin's server (``channel_enable``) or after a reconnect, never for a server named by
``--dangerously-load-development-channels`` (test_claude_code_channel.py shows it).

:func:`channel_home` writes what a client whose account has channels on holds: its
feature flags as the client caches them (``cachedGrowthBookFeatures`` in
``~/.claude.json``: ``tengu_harbor`` gates channels, ``tengu_harbor_permissions`` the
permission relay). With ``CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC`` the client fetches
no flags and reads that cache only with ``CLAUDE_CODE_GB_DISK_CACHE_WHEN_TELEMETRY_OFF``
(:data:`CHANNEL_ENV`); without them it says "channels aren't available right now" and
skips the server ("channels feature is not currently available" in its debug log).
"""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import time
import uuid
from collections.abc import Mapping
from pathlib import Path

from support.claude_code import binary

CHANNEL_FLAGS = {"tengu_harbor": True, "tengu_harbor_permissions": True}
"""The account's feature flags that turn channels and their permission relay on."""
CHANNEL_ENV = {"CLAUDE_CODE_GB_DISK_CACHE_WHEN_TELEMETRY_OFF": "1"}
"""Read the cached flags although nonessential traffic (and so telemetry) is off."""
DEADLINE_S = 90.0
DEV_CHANNELS_DIALOG = "I am using this for local development"
"""The confirmation ``--dangerously-load-development-channels`` asks for at start."""


def channel_home(home: Path) -> Path:
    """``home`` (made by :func:`claude_code.make_home`) with the channel flags cached."""
    config_file = home / ".claude.json"
    config = json.loads(config_file.read_text())
    config["cachedGrowthBookFeatures"] = {**config.get("cachedGrowthBookFeatures", {}), **CHANNEL_FLAGS}
    config_file.write_text(json.dumps(config, indent=2))
    return home


class InteractiveClaude:
    """``claude ARGS`` in ``cwd`` in a 120x40 pane of a private tmux server, with
    exactly ``env`` (nothing else from the test's environment)."""

    def __init__(self, *args: str, cwd: Path, env: Mapping[str, str], debug_file: Path) -> None:
        self.socket = f"teamdeck-claude-{uuid.uuid4().hex[:12]}"
        self.debug_file = debug_file
        command = ["env", "-i", *(f"{k}={v}" for k, v in env.items()), str(binary()), *args]
        command += ["--debug-file", str(debug_file)]
        shell = f"cd {shlex.quote(str(cwd))} && {shlex.join(command)}; echo EXITED $?; sleep 60"
        self.tmux("new-session", "-d", "-s", "cc", "-x", "120", "-y", "40", shell)

    def tmux(self, *args: str) -> str:
        return subprocess.run(
            ["tmux", "-L", self.socket, "-f", os.devnull, *args], check=True, capture_output=True, text=True, timeout=10
        ).stdout

    def screen(self) -> str:
        return self.tmux("capture-pane", "-p", "-t", "cc")

    def wait_for(self, text: str, deadline_s: float = DEADLINE_S) -> str:
        """Poll the pane until ``text`` is on it; the screen."""
        deadline = time.monotonic() + deadline_s
        while True:
            screen = self.screen()
            if text in screen:
                return screen
            if "EXITED" in screen or time.monotonic() > deadline:
                raise AssertionError(f"waiting for {text!r}; the screen is:\n{screen}\n{self.debug_tail()}")
            time.sleep(0.2)

    def wait_in_debug(self, text: str, deadline_s: float = DEADLINE_S) -> str:
        """Poll the client's debug log until a line holds ``text``; that line."""
        deadline = time.monotonic() + deadline_s
        while True:
            lines = self.debug_file.read_text().splitlines() if self.debug_file.exists() else []
            found = next((line for line in lines if text in line), None)
            if found is not None:
                return found
            if time.monotonic() > deadline:
                raise AssertionError(f"no {text!r} in the debug log:\n{self.debug_tail()}\n{self.screen()}")
            time.sleep(0.2)

    def debug_tail(self, lines: int = 30) -> str:
        if not self.debug_file.exists():
            return "(no debug log)"
        return "\n".join(self.debug_file.read_text().splitlines()[-lines:])

    def type(self, text: str) -> None:
        """Type ``text`` at the prompt and press Enter."""
        self.tmux("send-keys", "-t", "cc", "-l", text)
        time.sleep(0.3)
        self.tmux("send-keys", "-t", "cc", "Enter")

    def confirm_dev_channels(self) -> None:
        """Accept the development-channels warning the client shows at start."""
        self.wait_for(DEV_CHANNELS_DIALOG)
        self.tmux("send-keys", "-t", "cc", "Enter")

    def kill(self) -> None:
        subprocess.run(["tmux", "-L", self.socket, "kill-server"], capture_output=True, timeout=10)
