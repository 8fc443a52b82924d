"""``teamdeck``: parse the command line, run the command, print, exit.

Errors a person can act on (:class:`~teamdeck.errors.TeamdeckError`) print as one line
on stderr with a non-zero exit; any other exception is reported as an internal error
in one line too, with the traceback only under ``--debug``. A disk that refused a write
no layer expected (a read-only mount, EACCES, a link out of the workspace) is not an
internal error: it prints as one line naming the path.
"""

from __future__ import annotations

import argparse
import errno
import importlib
import json
import logging
import os
import sys
import traceback
from collections.abc import Sequence

from teamdeck import __version__
from teamdeck.cli.commands import COMMANDS, modules_of
from teamdeck.cli.common import Output, common_options, workspace_from
from teamdeck.errors import TeamdeckError
from teamdeck.store.workspace import READ_ONLY_HINT, Workspace


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The ``teamdeck`` parser, with the parsers of ``command`` complete.

    Every command is listed (``teamdeck --help``), but only the modules that define
    ``command`` are imported, and each builds the parsers of ``command`` alone (its
    ``register_<command>``): the others are name and help alone, so a command pays for
    its own imports and parsers and nobody else's. ``None`` registers none.
    A known ``command`` lists no other: the 29 parsers that would only name them cost
    ~9 ms of every ``send`` (each asks gettext for its words), and nobody sees them
    once the command is given.
    """
    common = common_options()
    parser = argparse.ArgumentParser(
        prog="teamdeck",
        description="A terminal supervisor for teams of AI agents that coordinate through files.",
        parents=[common],
    )
    parser.add_argument("--version", action="version", version=f"teamdeck {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    modules = modules_of(command)
    for name in modules:
        getattr(importlib.import_module(name), f"register_{command}")(subparsers, common)
    if modules and command in subparsers.choices:
        return parser
    for listed in COMMANDS:
        if listed.name not in subparsers.choices:
            subparsers.add_parser(listed.name, help=listed.summary, parents=[common])
    return parser


_REFUSALS = {errno.EROFS, errno.EACCES, errno.EPERM, errno.ENOSPC, errno.EDQUOT, errno.EXDEV, errno.ELOOP}
"""What a disk or a planted link can refuse: the person can act on each."""


def disk_refusal(err: BaseException) -> str | None:
    """One line for an ``OSError`` the disk raised (``Read-only file system (EROFS) on
    /ws/tasks/t1; the command stopped there. Use --read-only ...``), or None for anything else."""
    if not isinstance(err, OSError) or err.errno not in _REFUSALS:
        return None
    where = f" on {err.filename}" if err.filename else ""
    hint = f" {READ_ONLY_HINT}" if err.errno == errno.EROFS else ""
    return f"{err.strerror} ({errno.errorcode[err.errno]}){where}; the command stopped there.{hint}"


def command_named(argv: Sequence[str]) -> str | None:
    """The command ``argv`` names (the first word that is not a common option or its value)."""
    first = argparse.ArgumentParser(add_help=False, parents=[common_options()])
    first.add_argument("command", nargs="?")
    first.add_argument("rest", nargs=argparse.REMAINDER)
    try:
        known, _unknown = first.parse_known_args(argv)
    except SystemExit:  # a malformed option: the full parser will say what is wrong
        return None
    command: str | None = known.command
    return command


def _finish_interrupted(ws: Workspace) -> list[str]:
    """Finish the actions a crash interrupted (protocol/effects/interrupted.py), before the
    command runs, so it sees their result; what was done becomes warnings."""
    from teamdeck.protocol.effects.interrupted import complete_pending

    return complete_pending(ws)


def main(argv: Sequence[str] | None = None) -> int:
    """Run one command; returns the process exit code."""
    argv = sys.argv[1:] if argv is None else argv
    parser = build_parser(command_named(argv))
    args = parser.parse_args(argv)
    handler = getattr(args, "handler", None)
    if handler is None:
        parser.print_help()
        return 2
    debug = getattr(args, "debug", False)
    logging.basicConfig(level=logging.DEBUG if debug else logging.WARNING, format="teamdeck: %(message)s")
    try:
        ws = workspace_from(args)
        finished = _finish_interrupted(ws) if getattr(args, "finish_interrupted", True) else []
        output: Output = handler(args, ws)
        output.warnings[:0] = finished
    except TeamdeckError as err:
        if getattr(args, "json", False):
            print(json.dumps({"ok": False, "error": str(err), "kind": type(err).__name__}))
        print(f"teamdeck: {err}", file=sys.stderr)
        return err.exit_code
    except KeyboardInterrupt:
        return 130
    except Exception as err:  # noqa: BLE001 - the one place that turns surprises into one line
        refusal = disk_refusal(err)
        if refusal is not None:
            print(f"teamdeck: {refusal}", file=sys.stderr)
            return 1
        if debug:
            traceback.print_exc()
        print(
            f"teamdeck: internal error: {type(err).__name__}: {err} (run with --debug for a traceback)", file=sys.stderr
        )
        return 70
    for warning in output.warnings:
        print(f"teamdeck: warning: {warning}", file=sys.stderr)
    try:
        if getattr(args, "json", False):
            print(
                json.dumps(output.data, indent=2)
            )  # ASCII-only: agent text may hold C1 controls or bidi marks (S1, S6)
        elif output.text:
            print(output.text)
        sys.stdout.flush()
    except BrokenPipeError:
        # The reader went away (`teamdeck status | head`): stop quietly, like other Unix tools.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141
    return output.exit_code
