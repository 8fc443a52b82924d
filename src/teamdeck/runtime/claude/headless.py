"""``runtime: claude-code``: a member run as one headless Claude Code session (``claude -p``).

What one run is, as the pinned client (2.1.332) behaves (docs/runtime-claude-code.md
has the observations behind each choice):

- **The prompt** is the member's unread messages, each the ``<teammate-message>`` block
  ``teamdeck inbox --inject`` prints (the runner hands them over in that form), written
  on stdin (not in argv: kept out of ``ps`` and run.yaml). A member's first run starts
  with its roster ``prompt`` (what ``create_agent`` gave it). A headless session never
  polls its mailbox, so what is unread must be in the prompt; the runner marks those
  messages read once the process has started (:attr:`Launch.marks_read`).
- **One session per member**: the first run picks its id (``--session-id``), every later
  run continues it (``--resume``): the client refuses a ``--session-id`` already used.
- **The role prompt** (``templates/roles/<role>.md``, seed 002) is appended to the
  system prompt of the session's first run (``--append-system-prompt``): the client
  keeps it in the session's transcript and a ``--resume`` run's requests still carry it
  (observed with 2.1.332), so later runs do not pass it again; being the system prompt,
  it is no message a long session's compaction could summarise away.
- **Output**: ``--output-format stream-json --verbose`` (the client refuses stream-json
  in ``-p`` without ``--verbose``); the runner keeps stdout as the run's output log and
  :meth:`ClaudeCodeRuntime.outcome` reads the session id, usage and cost from its
  ``result`` line (runtime/claude/results.py). A resumed session's ``total_cost_usd`` counts
  the whole session (its ``usage`` only this run): the run's cost is what it adds to
  the session's total at the end of the member's previous run, noted in
  ``session.json`` at launch. ``runs show`` and the TUI read the log through
  runtime/claude/stream_json.py.
- **teamdeck's MCP server as that member** (``teamdeck mcp --team T --as M``, started
  by the client from ``mcp.json`` in the run's directory) with its tools allowed
  (``--allowedTools mcp__teamdeck``): in ``-p`` nobody is there to approve a tool call,
  and the member's replies (``message_agent``, ``report_to_parent``...) go through it.
- **Model and permission mode** from its options
  (:class:`~teamdeck.model.agents.ClaudeCodeOptions`: ``model``, ``permission_mode``,
  ``dangerously_skip_permissions``, ``cwd``, ``env``); ``--dangerously-skip-permissions``
  only when the config sets ``dangerously_skip_permissions: true``.
- **The teammate flags** (``--agent-id M@T --agent-name M --team-name T``, with
  ``CLAUDE_CODE_EXPERIMENTAL_AGENT_TEAMS=1``) make the session that team's member (the
  team protocol and the lead's name in its system prompt, ``SendMessage`` writing the
  team's inboxes). The client resolves the team under its own config directory
  (``$CLAUDE_CONFIG_DIR`` or ``~/.claude``), so they are passed only when the workspace
  is that directory; elsewhere they would send the member's messages to inboxes nobody
  reads. Never for the team's lead (run by an exact entry): they would make it a
  teammate told to report to itself.
- **A session the client no longer has** (another ``HOME``, its projects cleaned) is
  not resumed, which would fail on every retry ("No conversation found with session
  ID"): the run starts a new one, as a first run does.
"""

from __future__ import annotations

import glob
import json
import os
import shutil
import uuid
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path

from teamdeck.errors import Refused
from teamdeck.model.agents import AgentConfig, ClaudeCodeOptions
from teamdeck.model.reported import read_cost
from teamdeck.runtime.claude.results import find_result, last_result, outcome_from
from teamdeck.runtime.claude.stream_json import readable_tail
from teamdeck.runtime.spec import Launch, Outcome, Problem, RunRequest, working_dir
from teamdeck.runtime.wake import MCP_SERVER, prompt_of, write_mcp_config

BINARY_ENV = "TEAMDECK_CLAUDE"
"""Names the ``claude`` binary; without it, ``claude`` is looked up on PATH."""
SESSION_SO_FAR = "session.json"
"""Written in the run's directory of a resumed session: its cost before this run."""
AGENT_TEAMS_ENV = "CLAUDE_CODE_EXPERIMENTAL_AGENT_TEAMS"
"""Without it the client ignores the teammate flags."""
PERMISSION_MODES = ("acceptEdits", "auto", "bypassPermissions", "manual", "dontAsk", "plan")
"""``--permission-mode`` choices of the pinned client (``claude --help``)."""
INIT_LINE_BYTES = 256 * 1024
"""The most read of the log's first line (the init line lists every tool and skill)."""


class ClaudeCodeRuntime:
    """See the module."""

    name = "claude-code"
    options = ClaudeCodeOptions

    def check(self, config: AgentConfig) -> list[Problem]:
        problems = []
        if config.options.get("command"):  # runtime command's option: a `runtime: command` forgotten
            problems.append(
                Problem("command", "runtime claude-code runs Claude Code; `command` is for runtime command")
            )
        options = ClaudeCodeOptions.of(config)
        mode = options.permission_mode
        if mode is not None and mode not in PERMISSION_MODES:
            problems.append(Problem("permission_mode", f"'{mode}' is not one of {', '.join(PERMISSION_MODES)}"))
        if mode == "bypassPermissions" and not options.dangerously_skip_permissions:
            problems.append(
                Problem(
                    "permission_mode",
                    "bypassPermissions skips every permission check: say so with dangerously_skip_permissions: true",
                )
            )
        return problems

    def launch(self, request: RunRequest) -> Launch:
        options = ClaudeCodeOptions.of(request.config)
        env = {**request.base_env(), **options.env}
        seen_env = {**os.environ, **env}
        claude_dir = claude_config_dir(seen_env)
        resumed = request.session_id if request.session_id and session_kept(claude_dir, request.session_id) else None
        if resumed is None and request.session_id:
            request = replace(request, session_id=None)  # its session is gone: a new one, as on a first run
        session = resumed or str(uuid.uuid4())
        argv = [
            claude_binary(seen_env),
            "--print",
            "--output-format=stream-json",
            "--verbose",
            *(["--resume", session] if resumed else ["--session-id", session]),
            f"--mcp-config={write_mcp_config(request)}",
            f"--allowedTools=mcp__{MCP_SERVER}",
        ]
        if options.model:
            argv.append(f"--model={options.model}")
        if options.permission_mode:
            argv.append(f"--permission-mode={options.permission_mode}")
        if options.dangerously_skip_permissions:
            argv.append("--dangerously-skip-permissions")
        if resumed:
            note_session_so_far(request)
        elif request.role_prompt.strip():
            argv.append(f"--append-system-prompt={request.role_prompt.strip()}")
        if request.member != request.lead and teammate_flags_hold(claude_dir, request.workspace):
            argv += ["--agent-id", f"{request.member}@{request.team}", "--agent-name", request.member]
            argv += ["--team-name", request.team]
            env[AGENT_TEAMS_ENV] = "1"
        return Launch(
            argv=tuple(argv),
            env=env,
            cwd=working_dir(request, options.cwd),
            stdin=prompt_of(request).encode("utf-8"),
            marks_read=True,
            session_id=session,
        )

    def outcome(self, request: RunRequest, exit_status: int | None) -> Outcome:
        found = find_result(request.output_log)
        if found.result is None:
            error = "Claude Code ended without a result line" if exit_status == 0 and found.problem is None else None
            session = _init_session(request.output_log)
            return Outcome(session_id=session, error=error, cost_problem=found.problem)
        reported = outcome_from(found.result)
        if reported.cost_usd is None:
            return reported
        before = _cost_before(request.run_dir / SESSION_SO_FAR)
        return replace(reported, cost_usd=max(0.0, reported.cost_usd - before))

    def read_log(self, log: Path, limit: int) -> str:
        return readable_tail(log, limit)


def claude_binary(env: Mapping[str, str]) -> str:
    """``$TEAMDECK_CLAUDE``, else ``claude`` on the run's PATH.

    Raises:
        Refused: neither names a program (the run fails with this message).
    """
    named = env.get(BINARY_ENV)
    if named:
        found = shutil.which(os.path.expanduser(named))
        if found is None:
            raise Refused(f"${BINARY_ENV} names '{named}', which is not an executable file")
        return found
    found = shutil.which("claude", path=env.get("PATH"))
    if found is None:
        raise Refused(f"Claude Code not found: no `claude` on PATH; install it or name it in ${BINARY_ENV}")
    return found


def claude_config_dir(env: Mapping[str, str]) -> Path | None:
    """The client's config directory: ``$CLAUDE_CONFIG_DIR``, else ``$HOME/.claude``
    (None without either). Its teams are where the teammate flags look; its
    ``projects/<cwd>/<session>.jsonl`` are the sessions ``--resume`` continues."""
    configured = env.get("CLAUDE_CONFIG_DIR")
    if configured:
        return Path(os.path.expanduser(configured))
    home = env.get("HOME")
    return Path(home) / ".claude" if home else None


def teammate_flags_hold(claude_dir: Path | None, workspace: Path) -> bool:
    """Whether the workspace is the client's config directory, where a teammate session
    finds its team."""
    return claude_dir is not None and claude_dir.resolve() == workspace.resolve()


def session_kept(claude_dir: Path | None, session_id: str) -> bool:
    """Whether the client still has the session (``--resume`` of one it has not fails
    every time: "No conversation found with session ID"). Assumed kept when the config
    directory is unknown."""
    if claude_dir is None:
        return True
    return any((claude_dir / "projects").glob(f"*/{glob.escape(session_id)}.jsonl"))


def note_session_so_far(request: RunRequest) -> None:
    """Write ``session.json`` in the run's directory: the resumed session's total cost
    as its latest earlier run of the member reported it (0 when none did)."""
    so_far = 0.0
    earlier = sorted((run for run in request.run_dir.parent.iterdir() if run.name != request.run_id), reverse=True)
    for run in earlier:
        result = last_result(run / request.output_log.name)
        total = read_cost(result.get("total_cost_usd"), "total_cost_usd").usd if result else None
        if result and result.get("session_id") == request.session_id and total is not None:
            so_far = total
            break
    note = {"sessionId": request.session_id, "costBeforeUsd": so_far}
    (request.run_dir / SESSION_SO_FAR).write_text(json.dumps(note) + "\n", encoding="utf-8")


def _cost_before(note: Path) -> float:
    """``costBeforeUsd`` of a run's ``session.json`` (0 for a first run, or a note unread)."""
    try:
        value = json.loads(note.read_text(encoding="utf-8")).get("costBeforeUsd")
    except (OSError, ValueError, AttributeError):
        return 0.0
    return read_cost(value, "costBeforeUsd").usd or 0.0


def _init_session(log: Path) -> str | None:
    """The session id of the log's first line (the client's ``system/init``), for a run
    that ended before its result line; None when it cannot be read."""
    try:
        with open(log, "rb") as handle:
            first = json.loads(handle.readline(INIT_LINE_BYTES))
    except (OSError, ValueError):
        return None
    session = first.get("session_id") if isinstance(first, dict) and first.get("subtype") == "init" else None
    return session if isinstance(session, str) else None


CLAUDE_CODE = ClaudeCodeRuntime()
