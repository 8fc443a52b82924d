"""What every command shares: common options, the workspace, and how results print.

A command module exposes ``register(subparsers, common)``; each of its parsers sets
``handler=function``. A handler takes ``(args, ws)`` and returns an :class:`Output`:
``data`` is printed as JSON with ``--json``, ``text`` otherwise.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass, field
from typing import Any

from teamdeck.errors import InvalidFile
from teamdeck.store.workspace import SETTINGS_FILE, Workspace, resolve_root


@dataclass
class Output:
    """A command's result: ``data`` for --json, ``text`` for people, and the exit code."""

    data: Any
    text: str = ""
    exit_code: int = 0
    warnings: list[str] = field(default_factory=list)


def common_options() -> argparse.ArgumentParser:
    """Options accepted before or after the command name (defaults suppressed so the
    value given at either place wins)."""
    parent = argparse.ArgumentParser(add_help=False)
    parent.add_argument(
        "--workspace",
        "-w",
        metavar="DIR",
        default=argparse.SUPPRESS,
        help="the workspace directory (default: $TEAMDECK_WORKSPACE, else the current directory)",
    )
    parent.add_argument("--json", action="store_true", default=argparse.SUPPRESS, help="print machine-readable JSON")
    parent.add_argument("--read-only", action="store_true", default=argparse.SUPPRESS, help="refuse every write")
    parent.add_argument(
        "--debug", action="store_true", default=argparse.SUPPRESS, help="show tracebacks of internal errors"
    )
    return parent


def workspace_from(args: argparse.Namespace) -> Workspace:
    """The :class:`Workspace` the options name, with read-only mode applied."""
    from teamdeck.store.settings import load_settings

    root = resolve_root(getattr(args, "workspace", None))
    try:
        settings = load_settings(root)
    except InvalidFile:
        if not getattr(args, "settings_may_be_broken", False):
            raise
        # a read-only command that reports the broken file itself (``teamdeck validate``)
        return Workspace(root, read_only=True, read_only_reason=f"{SETTINGS_FILE} is invalid")
    if getattr(args, "read_only", False):
        return Workspace(root, read_only=True, read_only_reason="--read-only")
    if settings.readOnly:
        return Workspace(root, read_only=True, read_only_reason="readOnly in .teamdeck.yaml")
    return Workspace(root)


def command_group(
    subparsers: argparse._SubParsersAction, name: str, common: argparse.ArgumentParser, *, help: str
) -> argparse._SubParsersAction:
    """The actions of command ``name`` (``teamdeck plan ACTION``), made on first use.

    Several modules may add actions to one command (``plan approve`` sends a Claude Code
    plan answer, ``plan import`` imports a coordinator plan): each calls this and adds
    its own actions, so none needs to know the others or the order they register in.
    """
    parser = subparsers.choices.get(name)
    if parser is None:
        parser = subparsers.add_parser(name, help=help, parents=[common])
        return parser.add_subparsers(dest=f"{name}_command", metavar="ACTION", required=True)
    return next(action for action in parser._actions if isinstance(action, argparse._SubParsersAction))
