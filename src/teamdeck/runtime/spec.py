"""What a runtime is: how ``teamdeck run`` turns "wake this member" into a process, how
that process's log reads, and what the process reported once it ended.

The runner (teamdeck/runner/) decides *when* a member runs, owns the process (its own
process group, the timeout, SIGTERM/SIGKILL), records the run under
``runs/<team>/<member>/<run_id>/`` (``runtime`` in run.yaml names the runtime) and writes
the process's stdout to ``output.log`` and its stderr to ``stderr.log`` there. A runtime
decides only *what* runs, and how to read what it wrote:

- :attr:`Runtime.options` is its settings model (a :class:`RuntimeOptions`): the keys of
  a member's ``agents:`` entry it reads, strictly typed; ``.teamdeck.yaml`` is checked
  against it when loaded (teamdeck/runtime/config.py);
- :meth:`Runtime.check` says what else is wrong with a member's settings for this runtime
  (``command`` missing...), once, when ``.teamdeck.yaml`` is loaded;
- :meth:`Runtime.launch` turns a :class:`RunRequest` into a :class:`Launch` (argv, env,
  cwd, stdin) without starting anything; it may write files into ``request.run_dir``
  (an MCP config, say) and nowhere else;
- :meth:`Runtime.outcome` reads the ended run's output log into an :class:`Outcome`
  (session id, usage, cost, an error the exit status does not show);
- :meth:`Runtime.read_log` turns the end of a run's output log into the lines ``runs
  show``, the TUI's run log and the give-up decision show.

A runtime is registered once, by name, in teamdeck/runtime/registry.py (the built-ins),
or by a package of its own under the ``teamdeck.runtimes`` entry-point group.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from teamdeck.model.agents import AgentConfig, RuntimeOptions

ENV_WORKSPACE = "TEAMDECK_WORKSPACE"
ENV_TEAM = "TEAMDECK_TEAM"
ENV_MEMBER = "TEAMDECK_MEMBER"
ENV_RUN_ID = "TEAMDECK_RUN_ID"
ENV_RUN_MESSAGES = "TEAMDECK_RUN_MESSAGES"


@dataclass(frozen=True)
class Message:
    """One unread inbox message the run is woken for (shutdown requests first, then in
    inbox order), as a runtime may inject it.

    Attributes:
        sender: ``from``.
        kind: the decoded kind (``message``, ``shutdown_request``, ``task_assignment``...).
        timestamp: as the inbox has it.
        text: the raw ``text`` (a structured message is its JSON text).
        block: the ``<teammate-message teammate_id=... summary=...>`` block Claude Code
            shows an agent (attributes escaped).
        summary, color, request_id: as the inbox has them (None when absent).
    """

    sender: str
    kind: str
    timestamp: str
    text: str
    block: str
    summary: str | None = None
    color: str | None = None
    request_id: str | None = None

    @classmethod
    def from_json(cls, raw: dict[str, Any]) -> Message:
        """The message :meth:`to_json` wrote (a run's messages.json)."""

        def text(name: str) -> str:
            value = raw.get(name)
            return value if isinstance(value, str) else ""

        def optional(name: str) -> str | None:
            value = raw.get(name)
            return value if isinstance(value, str) else None

        return cls(
            text("from"), text("type"), text("timestamp"), text("text"), text("block"),
            optional("summary"), optional("color"), optional("requestId"),
        )  # fmt: skip

    def to_json(self) -> dict[str, str | None]:
        return {
            "from": self.sender,
            "type": self.kind,
            "timestamp": self.timestamp,
            "summary": self.summary,
            "color": self.color,
            "requestId": self.request_id,
            "text": self.text,
            "block": self.block,
        }


@dataclass(frozen=True)
class RunRequest:
    """Everything a runtime gets to build one run.

    Attributes:
        workspace: the workspace root (absolute).
        team: the team's name.
        member: the member's name (as in the roster).
        run_id: this run's id (``r-<ulid>``): unique, sortable by start.
        run_dir: ``<workspace>/runs/<team>/<member>/<run_id>/``, made before ``launch``:
            the runtime may write its own files here (and nowhere else).
        config: the member's merged settings (``agents:`` in ``.teamdeck.yaml``); a
            runtime reads its own options with ``MyOptions.of(config)``.
        messages: the unread messages this run is woken for (may be empty: a wake by
            hand, or the first run of a member ``create_agent`` made).
        session_id: the session id the member's last run reported (None on a first
            run): a runtime with sessions resumes it.
        prompt: the member's ``prompt`` from the roster (what ``create_agent`` gave it).
        role_prompt: the member's role prompt (``templates/roles/<role>.md``; "" for no
            role): a runtime with sessions gives it on a session's first run, the
            ``command`` runtime on every run (runtime/command.py).
        lead: the team's lead (who a member reports to).
        trigger: why it runs: ``message``, ``created``, ``wake`` (by a person),
            ``retry`` (of a failed run).
        attempt: 1 for a first run, 2.. for its retries.
    """

    workspace: Path
    team: str
    member: str
    run_id: str
    run_dir: Path
    config: AgentConfig
    messages: tuple[Message, ...] = ()
    session_id: str | None = None
    prompt: str = ""
    role_prompt: str = ""
    lead: str = ""
    trigger: str = "message"
    attempt: int = 1

    @property
    def output_log(self) -> Path:
        """Where the runner writes the process's stdout."""
        return self.run_dir / "output.log"

    @property
    def messages_file(self) -> Path:
        """``messages.json``: :attr:`messages` as a JSON array (``from``, ``type``,
        ``timestamp``, ``text``, ``block``...), written by the runner before the start: a
        retried run finds there the messages its failed attempt had read."""
        return self.run_dir / "messages.json"

    def placeholders(self) -> dict[str, str]:
        """``{workspace} {team} {member} {run_id}`` for argv templates."""
        return {"workspace": str(self.workspace), "team": self.team, "member": self.member, "run_id": self.run_id}

    def base_env(self) -> dict[str, str]:
        """The variables every run gets: ``TEAMDECK_WORKSPACE/TEAM/MEMBER/RUN_ID`` and
        ``TEAMDECK_RUN_MESSAGES`` (:attr:`messages_file`)."""
        return {
            ENV_WORKSPACE: str(self.workspace),
            ENV_TEAM: self.team,
            ENV_MEMBER: self.member,
            ENV_RUN_ID: self.run_id,
            ENV_RUN_MESSAGES: str(self.messages_file),
        }


def working_dir(request: RunRequest, cwd: str | None) -> Path:
    """A runtime's ``cwd`` option (``~`` expanded, relative to the workspace), else the workspace."""
    if not cwd:
        return request.workspace
    return request.workspace / Path(os.path.expanduser(cwd))


@dataclass(frozen=True)
class Launch:
    """The process a runtime asks for (nothing is started yet).

    Attributes:
        argv: the program and its arguments (no shell).
        env: added to the runner's own environment, after :meth:`RunRequest.base_env`
            and the config's ``env`` (the runtime includes them: it decides what wins).
        cwd: the working directory.
        stdin: bytes written to the process's stdin, which is then closed (None: stdin
            is /dev/null).
        marks_read: the runner marks ``request.messages`` read in the inbox once the
            process has started (a runtime that injects them itself, as its prompt);
            False when the agent reads its inbox itself (``teamdeck inbox --inject``).
        session_id: the session the run will have when the runtime picks it before the
            start (``--session-id``): recorded in run.yaml at once.
    """

    argv: tuple[str, ...]
    env: Mapping[str, str]
    cwd: Path
    stdin: bytes | None = None
    marks_read: bool = False
    session_id: str | None = None


@dataclass(frozen=True)
class Outcome:
    """What a runtime read from an ended run's output.

    Attributes:
        session_id: the session the run reported (kept for the member's next run).
        usage: token counts as the runtime reports them (``input_tokens``...), or None.
        cost_usd: the run's reported cost (counted against budgets), or None.
        cost_problem: why the cost the run reported cannot be read (a value that is
            no cost, a result line that could not be read: model/reported.py), or None.
            The runner records it and holds a member with a budget for a person.
        error: why the run failed although it exited 0 (``is_error`` in a result), or
            None. A run with an error is retried like a non-zero exit.
        result: the run's last words (a result text), for the roster and ``runs show``.
    """

    session_id: str | None = None
    usage: Mapping[str, Any] | None = None
    cost_usd: float | None = None
    cost_problem: str | None = None
    error: str | None = None
    result: str | None = None


@dataclass(frozen=True)
class Problem:
    """A mistake in a member's settings for a runtime: the field and what is wrong."""

    field: str
    why: str


class Runtime(Protocol):
    """A way to run a member (see the module). Implementations are stateless."""

    @property
    def name(self) -> str:
        """The name ``runtime:`` gives in ``.teamdeck.yaml`` (``command``, ``claude-code``)."""
        ...

    @property
    def options(self) -> type[RuntimeOptions]:
        """The settings it reads from a member's entry (``RuntimeOptions.of(config)``)."""
        ...

    def check(self, config: AgentConfig) -> list[Problem]:
        """What is wrong with ``config`` for this runtime beyond its options' types
        (empty: nothing)."""
        ...

    def launch(self, request: RunRequest) -> Launch:
        """The process to start for ``request``.

        Raises:
            TeamdeckError: the run cannot be built (a binary not found...): the runner
                records the run as failed with this message, and retries it.
        """
        ...

    def outcome(self, request: RunRequest, exit_status: int | None) -> Outcome:
        """What the ended run reported, read from ``request.output_log`` (and any file
        of ``request.run_dir``). ``exit_status``: the process's return code (negative:
        killed by that signal), None when unknown (a run adopted after a runner
        restart). Must not raise on a torn or foreign log: report what can be read."""
        ...

    def read_log(self, log: Path, limit: int) -> str:
        """The last ``limit`` characters of the run's output log made readable (whole
        lines, each sanitised: the log is agent-written), "" without a log. Must not
        raise on a torn or foreign log."""
        ...
