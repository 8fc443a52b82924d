"""The workspace: a directory, the places of every file in it, and its settings.

All paths are built here from checked ids, so no other module joins path strings.
See docs/protocol.md for the layout this mirrors.
"""

from __future__ import annotations

import getpass
import os
from pathlib import Path
from typing import Any, NamedTuple

from teamdeck.clock import Clock, utc_now
from teamdeck.errors import ReadOnly
from teamdeck.store.paths import REQUEST_ID_RE, check_id, check_member, check_team, confine_to, inside

SETTINGS_FILE = ".teamdeck.yaml"
ENV_WORKSPACE = "TEAMDECK_WORKSPACE"


def default_actor() -> str:
    """The person at the keyboard, as events record them: ``human:<login>``."""
    try:
        return f"human:{getpass.getuser()}"
    except (KeyError, OSError):
        return "human"


class _WorkspaceFields(NamedTuple):
    """What a :class:`Workspace` holds (its docstring says what each is)."""

    root: Path
    clock: Clock
    actor: str
    read_only: bool
    read_only_reason: str


class Workspace(_WorkspaceFields):
    """A workspace root plus what every operation needs: a clock, an actor, write mode.

    Immutable; ``ws._replace(actor=...)`` is a copy with other settings. A NamedTuple,
    not a dataclass: importing ``dataclasses`` would cost every ``send`` ~8 ms (it
    imports inspect, ast and dis), and agents send on every turn.

    Attributes:
        root: the resolved workspace directory.
        clock: the source of "now" (fixed in tests and snapshots).
        actor: who acts through this front (events' ``actor``; default: :func:`default_actor`).
        read_only: every write is refused when true (``--read-only`` or the setting).
        read_only_reason: what turned writes off, for the message.
    """

    __slots__ = ()

    def __new__(
        cls,
        root: Path,
        clock: Clock = utc_now,
        actor: str | None = None,
        read_only: bool = False,
        read_only_reason: str = "",
    ) -> Workspace:
        confine_to(root)  # every file under the root is opened only through links that stay inside
        actor = default_actor() if actor is None else actor
        return super().__new__(cls, root, clock, actor, read_only, read_only_reason)

    @classmethod
    def at(cls, root: Path | str, **options: Any) -> Workspace:
        """A workspace rooted at ``root`` (resolved), with optional settings."""
        return cls(Path(root).expanduser().resolve(), **options)

    def with_read_only(self, read_only: bool, reason: str = "--read-only") -> Workspace:
        """This workspace with writes refused when ``read_only`` (the ``--read-only``
        flag); itself when writes are off already or stay on."""
        if read_only and not self.read_only:
            return self._replace(read_only=True, read_only_reason=reason)
        return self

    def require_writable(self, action: str) -> None:
        """Refuse ``action`` when writes are off, or the workspace is on a read-only mount.

        Raises:
            ReadOnly: naming what turned writes off.
        """
        if self.read_only:
            why = self.read_only_reason or "read-only mode"
            raise ReadOnly(f"Could not {action}: workspace is read-only ({why}); nothing was written.")
        mounted = read_only_mount(self.root)
        if mounted:
            raise ReadOnly(f"Could not {action}: {mounted}; nothing was written. {READ_ONLY_HINT}")

    def rel(self, path: Path) -> Path:
        """``path`` relative to the root, for messages (absolute if outside)."""
        try:
            return path.relative_to(self.root)
        except ValueError:
            return path

    # --- teamdeck tasks -------------------------------------------------------
    @property
    def tasks_dir(self) -> Path:
        return self.root / "tasks"

    def task_dir(self, task_id: str) -> Path:
        return self.tasks_dir / check_id(task_id, "task id")

    def task_file(self, task_id: str) -> Path:
        return self.task_dir(task_id) / "task.yaml"

    def events_file(self, task_id: str) -> Path:
        return self.task_dir(task_id) / "events.jsonl"

    def agents_dir(self, task_id: str) -> Path:
        return self.task_dir(task_id) / "agents"

    def final_output(self, task_id: str, agent_id: str) -> Path:
        """``agents/<agent>/artifacts/final.json``, refused if it resolves outside the
        agent's own directory, e.g. through a symlink (S8, S9)."""
        agent_dir = self.agents_dir(task_id) / check_id(agent_id, "worker id")
        return inside(self.root, agent_dir / "artifacts" / "final.json", within=agent_dir)

    def shared_dir(self, task_id: str) -> Path:
        return self.task_dir(task_id) / "shared"

    def reports_dir(self, task_id: str) -> Path:
        return self.shared_dir(task_id) / "reports"

    def human_notes(self, task_id: str) -> Path:
        return self.shared_dir(task_id) / "human-notes.md"

    # --- guardian records (seed 003) -------------------------------------------
    def assignments_dir(self, task_id: str) -> Path:
        return self.task_dir(task_id) / "guardian" / "assignments"

    def assignment_file(self, task_id: str, assignment_id: str) -> Path:
        """``guardian/assignments/<id>.json``: one write-once GuardianAssignment."""
        return self.assignments_dir(task_id) / f"{check_id(assignment_id, 'assignment id')}.json"

    def verdicts_dir(self, task_id: str) -> Path:
        return self.task_dir(task_id) / "guardian" / "verdicts"

    def verdict_file(self, task_id: str, verdict_id: str) -> Path:
        """``guardian/verdicts/<id>.json``: one write-once GuardianVerdictSnapshot."""
        return self.verdicts_dir(task_id) / f"{check_id(verdict_id, 'verdict id')}.json"

    # --- coordinator plans (seed 002) ------------------------------------------
    @property
    def plans_dir(self) -> Path:
        return self.root / "plans"

    def plan_dir(self, plan_id: str) -> Path:
        return self.plans_dir / check_id(plan_id, "plan id")

    def plan_file(self, plan_id: str) -> Path:
        """``plans/<plan-id>/plan.yaml``: the plan's folded state."""
        return self.plan_dir(plan_id) / "plan.yaml"

    def plan_events_file(self, plan_id: str) -> Path:
        """``plans/<plan-id>/events.jsonl``: the plan's event log."""
        return self.plan_dir(plan_id) / "events.jsonl"

    # --- issue-driven teams (seed 001) ----------------------------------------
    @property
    def forge_dir(self) -> Path:
        return self.root / "forge"

    @property
    def deliveries_log(self) -> Path:
        """``forge/deliveries.jsonl``: one record per webhook delivery, by X-Gitea-Delivery."""
        return self.forge_dir / "deliveries.jsonl"

    def forge_repo_dir(self, repo_key: str) -> Path:
        return self.forge_dir / check_id(repo_key, "repository key")

    def forge_issue_dir(self, issue_key: str) -> Path:
        """``forge/<owner>__<repo>/issues/<n>/`` for the key ``<owner>__<repo>/<n>``."""
        repo_key, _, number = issue_key.partition("/")
        return self.forge_repo_dir(repo_key) / "issues" / check_id(number, "issue number")

    def forge_issue_file(self, issue_key: str) -> Path:
        return self.forge_issue_dir(issue_key) / "issue.yaml"

    def forge_issue_log(self, issue_key: str) -> Path:
        return self.forge_issue_dir(issue_key) / "events.jsonl"

    # --- teams: teams/<team>/ holds a team's files and teamdeck's own beside them ---
    # (team_config, inboxes_dir, inbox and claude_tasks_dir are Claude Code's layout:
    # formats/claude_code/ reads them; everything else asks the team's format).
    @property
    def teams_dir(self) -> Path:
        return self.root / "teams"

    def team_dir(self, team: str) -> Path:
        return self.teams_dir / check_team(team)

    def team_config(self, team: str) -> Path:
        return self.team_dir(team) / "config.json"

    def inboxes_dir(self, team: str) -> Path:
        return self.team_dir(team) / "inboxes"

    def inbox(self, team: str, member: str) -> Path:
        return self.inboxes_dir(team) / f"{check_member(member)}.json"

    def messages_log(self, team: str) -> Path:
        """teamdeck's append-only log of every message it sent in ``team``."""
        return self.team_dir(team) / "messages.jsonl"

    def observed_log(self, team: str) -> Path:
        """teamdeck's append-only record of every inbox message of ``team`` it saw
        (protocol/team/observed.py): outside ``teams/``, which Claude Code deletes."""
        return self.root / ".teamdeck" / "observed" / f"{check_team(team)}.jsonl"

    def request_record(self, request_id: str, part: str) -> Path:
        """``.teamdeck/requests/<id>.<part>.json``: that a client's request was taken
        (``taken``) and how it ended (``done``), so that a request sent again is
        recognised (protocol/common/requests.py)."""
        return (
            self.root
            / ".teamdeck"
            / "requests"
            / f"{check_id(request_id, 'request id', pattern=REQUEST_ID_RE)}.{part}.json"
        )

    def connections_dir(self, team: str) -> Path:
        """``teams/<team>/connections/``: heartbeats of ``teamdeck mcp --http`` servers."""
        return self.team_dir(team) / "connections"

    def connection_file(self, team: str, member: str) -> Path:
        """The heartbeat of the MCP server acting as ``member`` over HTTP."""
        return self.connections_dir(team) / f"{check_member(member)}.json"

    @property
    def sessions_dir(self) -> Path:
        """``sessions/``: what live Claude Code sessions told teamdeck (hooks, channel prompts)."""
        return self.root / "sessions"

    def session_log(self, team: str) -> Path:
        """``sessions/<team>.jsonl``: the team's session events and permission prompts
        (protocol/team/sessions.py); outside ``teams/``, which Claude Code deletes."""
        return self.sessions_dir / f"{check_team(team)}.jsonl"

    def claude_tasks_dir(self, team: str) -> Path:
        """``tasks/<team>/``: a Claude Code task list (numbered JSON files)."""
        return self.tasks_dir / check_team(team)

    # --- runs of the agents (teamdeck run) ---------------------------------------
    @property
    def runs_dir(self) -> Path:
        """``runs/``: one directory per run, and the runner's lock and decisions."""
        return self.root / "runs"

    def member_runs_dir(self, team: str, member: str) -> Path:
        return self.runs_dir / check_team(team) / check_member(member)

    def run_dir(self, team: str, member: str, run_id: str) -> Path:
        """``runs/<team>/<member>/<run_id>/``: run.yaml, events.jsonl, output.log, stderr.log."""
        return self.member_runs_dir(team, member) / check_id(run_id, "run id")

    @property
    def runner_lock(self) -> Path:
        """``runs/runner.lock``: held (flock) by the one ``teamdeck run`` of the workspace."""
        return self.runs_dir / "runner.lock"

    @property
    def run_decisions_log(self) -> Path:
        """``runs/decisions.jsonl``: decisions the runner asks (failed runs, budgets) and their answers."""
        return self.runs_dir / "decisions.jsonl"


READ_ONLY_HINT = "Use --read-only to look without writing."


def read_only_mount(root: Path) -> str | None:
    """Why ``root`` cannot be written at all (``"/ws is on a read-only file system
    (EROFS)"``), or None. One ``statvfs``: cheap enough to ask before every action."""
    try:
        flags = os.statvfs(root).f_flag
    except OSError:
        return None  # a missing workspace is reported by whatever reads it
    return f"{root} is on a read-only file system (EROFS)" if flags & os.ST_RDONLY else None


def resolve_root(given: str | None) -> Path:
    """The workspace directory: ``--workspace``, else ``$TEAMDECK_WORKSPACE``, else the cwd."""
    return Path(given or os.environ.get(ENV_WORKSPACE) or os.getcwd()).expanduser().resolve()
