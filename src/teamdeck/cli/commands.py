"""Every ``teamdeck`` command: its name, the modules that define it, and its one-line help.

This table lets ``teamdeck COMMAND`` import only the modules that define COMMAND
(``send`` never loads the read model, ``--help`` loads no command at all): the other
commands are listed from here, by name and help, without importing them. A module
defines ``register_<name>(subparsers, common)`` for each command it defines, which
builds that command's parsers alone with ``help=summary(name)``, so the help a command
shows is the line written here, once.
"""

from __future__ import annotations

from typing import NamedTuple


class Command(NamedTuple):
    """A top-level command: its name, its defining modules, its one-line help (a
    NamedTuple, not a dataclass: importing ``dataclasses`` would cost every command ~8 ms)."""

    name: str
    modules: tuple[str, ...]
    summary: str


_STATUS, _TUI, _TASKS, _JOIN = "teamdeck.cli.status", "teamdeck.cli.tui", "teamdeck.cli.tasks", "teamdeck.cli.join"
_TEAMS, _VERIFY, _COORD = "teamdeck.cli.teams", "teamdeck.cli.verification", "teamdeck.cli.coordination"
_PLANS, _MCP, _DEMO, _FORGE = "teamdeck.cli.plans", "teamdeck.cli.mcp", "teamdeck.cli.demo", "teamdeck.cli.forge"

COMMANDS: tuple[Command, ...] = (
    Command("status", (_STATUS,), "tasks, decisions waiting and teams at a glance"),
    Command(
        "decisions", ("teamdeck.cli.decisions",), "the decisions waiting for a person (the TUI's queue); answer one"
    ),
    Command("tui", (_TUI,), "the live supervisor (a terminal UI)"),
    Command("task", (_TASKS,), "create and change tasks"),
    Command("join", (_JOIN,), "join a task's worker outputs into reports and open gates for blocked workers"),
    Command("gate", (_JOIN,), "list and decide gates (points where a person must decide)"),
    Command("validate", (_JOIN,), "check every file of the workspace; exit 1 if any problem"),
    Command("team", (_TEAMS,), "create, grow, list and delete Claude Code teams"),
    Command("send", (_TEAMS,), "send a message to one member (SendMessage)"),
    Command("broadcast", (_TEAMS,), "send a message to every member but the sender"),
    Command("shutdown", (_TEAMS,), "ask a teammate to shut down; prints the request id"),
    Command("plan", (_TEAMS, _PLANS), "coordinator plans in waves; answers to teammates' plans"),
    Command("permission", (_TEAMS,), "answer a teammate's permission request"),
    Command("inbox", (_TEAMS,), "a member's messages (--inject: deliver unread ones, marking them read)"),
    Command("member", (_TEAMS,), "roster repairs"),
    Command("doctor", ("teamdeck.cli.doctor",), "teams: roster, handshakes, folded idles and delivery problems"),
    Command("verify", (_VERIFY,), "verify a task with a guardian and apply its verdict"),
    Command("verdicts", (_VERIFY,), "a task's guardian verdicts, oldest first"),
    Command("assignments", (_VERIFY,), "a task's guardian assignments, oldest first"),
    Command("guardian", (_VERIFY,), "list guardians, configure how a task is verified"),
    Command(
        "supervise",
        ("teamdeck.cli.supervise",),
        "take the automatic steps: plans advance, tasks get verified, stalled members are nudged",
    ),
    Command("delegate", (_COORD,), "assign a task to a team member (task_assignment in their inbox)"),
    Command("report", (_COORD,), "report_to_parent: write a worker's final.json and tell its delegator"),
    Command("mcp", (_MCP,), "serve the coordination tools over MCP, acting as one member of a team"),
    Command("serve", ("teamdeck.cli.serve",), "the live workspace as a stream of JSON lines, with its actions"),
    Command(
        "web", ("teamdeck.cli.web",), "the decisions, teams and inboxes as a live web page, for a browser or a phone"
    ),
    Command("hosts", ("teamdeck.cli.hosts",), "the hosts watched over ssh (--host, the hosts file) and how each is"),
    Command(
        "hook", ("teamdeck.cli.hook",), "record a Claude Code hook's payload (stdin) as a team event; install the hooks"
    ),
    Command("demo", (_DEMO,), "open the live demo: the demo workspace with simulated agents"),
    Command("forge", (_FORGE,), "issue-driven teams: the Gitea webhook bridge"),
    Command("run", ("teamdeck.cli.runs",), "the runner: start, wake, watch and stop the configured team members"),
    Command("runs", ("teamdeck.cli.runs",), "what the runner ran: every run, its state, cost and output"),
)
"""In the order ``teamdeck --help`` lists them."""

_BY_NAME = {command.name: command for command in COMMANDS}


def summary(name: str) -> str:
    """The one-line help of command ``name``."""
    return _BY_NAME[name].summary


def modules_of(name: str | None) -> tuple[str, ...]:
    """The modules that define command ``name`` (none for an unknown name or none)."""
    command = _BY_NAME.get(name or "")
    return command.modules if command is not None else ()
