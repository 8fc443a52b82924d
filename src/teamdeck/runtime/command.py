"""``runtime: command``: any program, run with the member's argv template.

``command: [python3, agents/worker.py, "{team}", "{member}"]``: the placeholders
``{workspace} {team} {member} {run_id}`` are replaced in every argument (``{{`` and
``}}`` stand for braces); the environment carries ``TEAMDECK_WORKSPACE``,
``TEAMDECK_TEAM``, ``TEAMDECK_MEMBER`` and ``TEAMDECK_RUN_ID``; for a member with a
role (seed 002), ``TEAMDECK_ROLE_PROMPT`` names ``role.md`` in the run's directory, its
role prompt (a command has no session: every run gets it). The agent reads its own
work (``teamdeck inbox TEAM MEMBER --inject`` or the MCP tools), so the runner does not
mark anything read for it. It may report its session, usage and cost by printing a
stream-json ``result`` line, as Claude Code does (runtime/claude/results.py). Its log is
whatever it prints, read as plain text (runtime/log_text.py).

Its options (:class:`~teamdeck.model.agents.CommandOptions`): ``command``, ``cwd``, ``env``.
"""

from __future__ import annotations

import string
from pathlib import Path

from teamdeck.errors import Refused
from teamdeck.model.agents import AgentConfig, CommandOptions
from teamdeck.runtime import log_text
from teamdeck.runtime.claude.results import outcome_of
from teamdeck.runtime.spec import Launch, Outcome, Problem, RunRequest, working_dir

PLACEHOLDERS = ("workspace", "team", "member", "run_id")
ENV_ROLE_PROMPT = "TEAMDECK_ROLE_PROMPT"
ROLE_FILE = "role.md"
"""Written in the run's directory for a member with a role: its role prompt."""


def unknown_placeholder(argument: str) -> str | None:
    """The first ``{name}`` of ``argument`` that is no placeholder (or a malformed
    brace: ``"single '}'"``), or None when every one is known."""
    try:
        fields = [name for _, name, _, _ in string.Formatter().parse(argument) if name is not None]
    except ValueError as err:
        return f"a lone brace ({err}): write {{{{ or }}}} for a brace"
    for name in fields:
        if name not in PLACEHOLDERS:
            return f"{{{name}}} is no placeholder (known: {', '.join('{' + p + '}' for p in PLACEHOLDERS)})"
    return None


class CommandRuntime:
    """See the module."""

    name = "command"
    options = CommandOptions

    def check(self, config: AgentConfig) -> list[Problem]:
        command = CommandOptions.of(config).command
        if not command:
            return [Problem("command", "runtime command needs `command: [program, arg...]`")]
        return [Problem("command", why) for why in map(unknown_placeholder, command) if why]

    def launch(self, request: RunRequest) -> Launch:
        options = CommandOptions.of(request.config)
        command = options.command
        if not command:
            raise Refused(f"{request.team}/{request.member} has runtime command but no `command`")
        values = request.placeholders()
        argv = tuple(argument.format(**values) for argument in command)
        env = {**request.base_env(), **options.env}
        if request.role_prompt.strip():
            role = request.run_dir / ROLE_FILE
            role.write_text(request.role_prompt, encoding="utf-8")
            env[ENV_ROLE_PROMPT] = str(role)
        return Launch(argv=argv, env=env, cwd=working_dir(request, options.cwd))

    def outcome(self, request: RunRequest, exit_status: int | None) -> Outcome:
        return outcome_of(request.output_log)

    def read_log(self, log: Path, limit: int) -> str:
        return log_text.readable_tail(log, limit)


COMMAND = CommandRuntime()
