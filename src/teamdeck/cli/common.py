"""What every command shares: common options, the workspace, and how results print.

A command module exposes ``register_<command>(subparsers, common)`` for each command it
defines (cli/commands.py); each of its parsers sets ``handler=function``. A handler takes ``(args, ws)`` and returns an :class:`Output`:
``data`` is printed as JSON with ``--json``, ``text`` otherwise.
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import Any

from teamdeck.errors import InvalidFile, Refused, TeamdeckError
from teamdeck.store.workspace import ENV_WORKSPACE, SETTINGS_FILE, Workspace, resolve_root

WORKSPACE_MARKERS = ("tasks", "teams", SETTINGS_FILE)
"""What makes a directory a workspace: any of these in it."""


class NotAWorkspace(TeamdeckError):
    """The workspace named does not exist, is not a directory, or is a level inside one."""


class Output:
    """A command's result: ``data`` for --json, ``text`` for people, and the exit code.

    Mutable (a command adds warnings, or a line of text, to what it built); a plain
    class, not a dataclass: ``dataclasses`` would cost every command ~8 ms of imports.
    """

    __slots__ = ("data", "text", "exit_code", "warnings")

    def __init__(self, data: Any, text: str = "", exit_code: int = 0, warnings: list[str] | None = None) -> None:
        self.data = data
        self.text = text
        self.exit_code = exit_code
        self.warnings = [] if warnings is None else warnings


def not_done(owed: tuple[str, ...] | list[str]) -> list[str]:
    """The line that says a recorded action is not done while ``owed`` (its effects that
    failed, said in the warnings) is not empty; a command that prints it exits 3, as a
    send not yet confirmed delivered does (F24)."""
    if not owed:
        return []
    return [
        f"NOT DONE YET: {len(owed)} of its effects failed (the warnings say which); "
        "`teamdeck doctor --repair` or the next command finishes them"
    ]


class _Workspaces(argparse.Action):
    """``-w DIR``: the workspace (the last given), and every one given, in order
    (``args.workspaces``): ``status``, ``decisions`` and ``hosts`` take several
    (cli/hosts.py); every other command refuses a second (:func:`workspace_from`)."""

    def __call__(
        self, parser: argparse.ArgumentParser, namespace: argparse.Namespace, values: Any, option: str | None = None
    ) -> None:
        namespace.workspace = values
        namespace.workspaces = [*getattr(namespace, "workspaces", []), values]


WORKSPACE_HELP = "the workspace directory (default: $TEAMDECK_WORKSPACE, else the current directory)"


def common_options(workspace_help: str = WORKSPACE_HELP) -> argparse.ArgumentParser:
    """Options accepted before or after the command name (defaults suppressed so the
    value given at either place wins). ``workspace_help``: what ``--workspace`` means,
    for a command that reads it otherwise (``teamdeck demo``: a temporary copy by
    default)."""
    parent = argparse.ArgumentParser(add_help=False)
    parent.add_argument(
        "--workspace",
        "-w",
        metavar="DIR",
        action=_Workspaces,
        default=argparse.SUPPRESS,
        help=workspace_help,
    )
    parent.add_argument("--json", action="store_true", default=argparse.SUPPRESS, help="print machine-readable JSON")
    parent.add_argument("--read-only", action="store_true", default=argparse.SUPPRESS, help="refuse every write")
    parent.add_argument(
        "--debug", action="store_true", default=argparse.SUPPRESS, help="show tracebacks of internal errors"
    )
    return parent


def workspace_from(args: argparse.Namespace) -> Workspace:
    """The :class:`Workspace` the options name, with read-only mode applied.

    Raises:
        Refused: ``-w`` given more than once to a command that works on one workspace.
    """
    named = list(dict.fromkeys(getattr(args, "workspaces", [])))
    if len(named) > 1 and not getattr(args, "several_workspaces", False):
        raise Refused(f"this command works on one workspace; -w was given {len(named)} times ({', '.join(named)})")
    root = resolve_root(getattr(args, "workspace", None))
    check_root(root, may_create=getattr(args, "creates_workspace", False))
    if not os.path.lexists(root / SETTINGS_FILE):  # a link goes the long way: it may be refused
        # the defaults, without importing the settings model and PyYAML (agents and hooks
        # run ``send``, ``inbox --inject`` and ``hook`` on every turn)
        return Workspace(root, read_only=bool(getattr(args, "read_only", False)), read_only_reason="--read-only")
    from teamdeck.store.settings import load_settings

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


def is_workspace(path: Path) -> bool:
    """Whether ``path`` has anything teamdeck shows (tasks/, teams/ or settings)."""
    return any((path / name).exists() for name in WORKSPACE_MARKERS)


def refuse_outside_a_workspace(args: argparse.Namespace, ws: Workspace, command: str) -> None:
    """Refuse ``teamdeck COMMAND`` run where there is no workspace: none was named
    (``--workspace`` or the environment variable) and the current directory holds
    nothing teamdeck shows. There ``status`` reported "0 team(s)" and exited 0, and the
    TUI opened an empty screen, as if the workspace were empty; a directory named on
    purpose is taken as the empty workspace it is.

    Raises:
        NotAWorkspace: with how to point teamdeck at one.
    """
    if getattr(args, "workspace", None) or os.environ.get(ENV_WORKSPACE) or is_workspace(ws.root):
        return
    raise NotAWorkspace(
        f"{ws.root} is not a teamdeck workspace (no tasks/, teams/ or {SETTINGS_FILE}). "
        f"Point teamdeck at one with `teamdeck {command} --workspace DIR` or ${ENV_WORKSPACE}; "
        f"for your Claude Code teams: `teamdeck {command} --workspace ~/.claude`."
    )


def _holds(workspace: Path, path: Path) -> bool:
    """Whether ``path`` lies in the tasks/ or teams/ of the workspace ``workspace``."""
    return is_workspace(workspace) and path.relative_to(workspace).parts[0] in ("tasks", "teams")


def check_root(root: Path, *, may_create: bool = False) -> None:
    """Refuse a workspace that cannot be the one meant, in one line with a hint.

    A missing directory is a typo far more often than a wish (``status`` would report
    an empty world and exit 0); only a command that makes a workspace (``may_create``:
    ``team create``, ``task create``, ``demo``) accepts one. A directory inside a
    workspace (``W/teams``, ``~/.claude/teams/alpha``) would show nothing: the message
    names the workspace above it.

    Raises:
        NotAWorkspace: with the hint.
    """
    above = next((parent for parent in list(root.parents)[:4] if _holds(parent, root)), None)
    if above is not None and not is_workspace(root):
        raise NotAWorkspace(f"{root} is a level inside the workspace {above}: did you mean `--workspace {above}`?")
    if root.is_dir() or (may_create and not root.exists()):
        return
    if root.exists():
        raise NotAWorkspace(f"{root} is not a directory: --workspace names the directory that holds tasks/ and teams/")
    hint = ""
    if root.name == ".claude":
        hint = " (Claude Code makes ~/.claude the first time it runs as this user)"
    elif is_workspace(root.parent):
        hint = f" (did you mean the workspace {root.parent}?)"
    elif root.parent.is_dir():
        try:
            siblings = [entry.name for entry in root.parent.iterdir() if entry.is_dir()]
        except OSError:
            siblings = []
        import difflib  # only to name a near miss

        close = difflib.get_close_matches(root.name, siblings, n=1)
        hint = f" (did you mean {root.parent / close[0]}?)" if close else ""
    raise NotAWorkspace(f"no workspace at {root}: the directory does not exist{hint}")


def command_group(
    subparsers: argparse._SubParsersAction[argparse.ArgumentParser],
    name: str,
    common: argparse.ArgumentParser,
    *,
    help: str,
    description: str | None = None,
) -> argparse._SubParsersAction[argparse.ArgumentParser]:
    """The actions of command ``name`` (``teamdeck plan ACTION``), made on first use.

    Several modules may add actions to one command (``plan approve`` sends a Claude Code
    plan answer, ``plan import`` imports a coordinator plan): each calls this and adds
    its own actions, so none needs to know the others or the order they register in.
    ``description`` is what ``teamdeck NAME --help`` says above the actions (given by
    the first module to register, as ``help`` is).
    """
    parser = subparsers.choices.get(name)
    if parser is None:
        parser = subparsers.add_parser(name, help=help, description=description, parents=[common])
        return parser.add_subparsers(dest=f"{name}_command", metavar="ACTION", required=True)
    return next(action for action in parser._actions if isinstance(action, argparse._SubParsersAction))
