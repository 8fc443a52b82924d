"""``teamdeck hook install``: teamdeck's entries merged into a Claude Code settings.json.

Claude Code reads hooks from ``~/.claude/settings.json`` (``--user``) and a project's
``.claude/settings.json`` (``--project``), as::

    {"hooks": {"TeammateIdle": [{"hooks": [{"type": "command", "command": "..."}]}],
               "PostToolUse": [{"matcher": "*", "hooks": [...]}], ...}}

The merge keeps every other key and every other hook as it is, adds one group per event
that has no hook running the same command yet (so a second install changes nothing),
copies the file aside (``settings.json.bak-<UTC time>``) before it writes, and writes
through a temp file and a rename. A file that is not JSON, or whose ``hooks`` is not
the shape above, is refused in one line naming the file and the place; nothing is
written then.
"""

from __future__ import annotations

import json
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from teamdeck.errors import Refused
from teamdeck.store.atomic import atomic_replace

EVENTS: tuple[tuple[str, bool], ...] = (
    ("TeammateIdle", False),
    ("TaskCreated", False),
    ("TaskCompleted", False),
    ("Notification", False),
    ("Elicitation", False),
    ("PermissionRequest", True),
    ("PostToolUse", True),
    ("PostToolUseFailure", True),
    ("PermissionDenied", True),
)
"""The events teamdeck records, and whether each is a tool event (matched by tool name:
``"*"`` takes every tool)."""


@dataclass(frozen=True)
class Installed:
    """What an install did: the file, the events added (none: it was there already),
    and the backup made before writing (None when nothing was written)."""

    path: Path
    added: tuple[str, ...]
    backup: Path | None


def _load(path: Path) -> dict[str, Any]:
    if not path.exists():
        return {}
    text = path.read_text(encoding="utf-8")
    if not text.strip():
        return {}
    try:
        settings = json.loads(text)
    except ValueError as err:
        where = f"line {err.lineno} column {err.colno}" if isinstance(err, json.JSONDecodeError) else "?"
        raise Refused(f"{path}: {where}: not valid JSON ({_reason(err)}); nothing was written") from err
    if not isinstance(settings, dict):
        raise Refused(f"{path}: the top level is not an object; nothing was written")
    return settings


def _reason(err: ValueError) -> str:
    return err.msg if isinstance(err, json.JSONDecodeError) else str(err)


def _groups(path: Path, hooks: dict[str, Any], event: str) -> list[Any]:
    groups = hooks.setdefault(event, [])
    if not isinstance(groups, list):
        raise Refused(f"{path}: $.hooks.{event} is not a list; nothing was written")
    for number, group in enumerate(groups):
        if not isinstance(group, dict) or not isinstance(group.get("hooks", []), list):
            raise Refused(f"{path}: $.hooks.{event}[{number}] is not a hook group; nothing was written")
    return groups


def _has(groups: list[Any], command: str) -> bool:
    return any(
        isinstance(hook, dict) and hook.get("command") == command for group in groups for hook in group.get("hooks", [])
    )


def install(path: Path, command: str, stamp: str, timeout_s: int | None = None) -> Installed:
    """Merge teamdeck's hook entries, running ``command``, into the settings file ``path``.

    Args:
        path: the settings.json (made, with its directory, when missing).
        command: the hook command line (``/venv/bin/teamdeck hook --workspace /ws``).
        stamp: the backup's suffix (UTC, ``20261126T180000Z``).
        timeout_s: the hook's ``timeout`` (seconds), for a command that may wait (``--gate``).

    Raises:
        Refused: the file cannot be read as settings (file, place, problem); nothing written.
        WriteFailed: the disk refused.
    """
    settings = _load(path)
    hooks = settings.setdefault("hooks", {})
    if not isinstance(hooks, dict):
        raise Refused(f"{path}: $.hooks is not an object; nothing was written")
    added = []
    for event, tool_event in EVENTS:
        groups = _groups(path, hooks, event)
        if _has(groups, command):
            continue
        group: dict[str, Any] = {"matcher": "*"} if tool_event else {}
        hook: dict[str, Any] = {"type": "command", "command": command}
        if timeout_s is not None:
            hook["timeout"] = timeout_s
        group["hooks"] = [hook]
        groups.append(group)
        added.append(event)
    if not added:
        return Installed(path, (), None)
    backup = None
    if path.exists():
        backup = path.with_name(f"{path.name}.bak-{stamp}")
        shutil.copy2(path, backup)
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_replace(path, (json.dumps(settings, indent=2, ensure_ascii=False) + "\n").encode(), crash_prefix="settings")
    return Installed(path, tuple(added), backup)
