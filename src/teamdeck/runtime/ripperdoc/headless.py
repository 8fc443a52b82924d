"""``runtime: ripperdoc``: a member run as one headless Ripperdoc session (``ripperdoc --print``).

What one run is, as the pinned Ripperdoc (0.6.2) behaves (docs/runtime-ripperdoc.md has
the observations behind each choice):

- **The prompt** is the one the claude-code runtime gives (runtime/wake.py: the roster
  prompt on a session's first run, then the unread messages' ``<teammate-message>``
  blocks), written on stdin: ``--input-format=auto`` makes Ripperdoc read stdin as the
  prompt's text (its default, ``stream-json``, wants JSON messages there). Not ``-p``
  (``--prompt``): argv is recorded in run.yaml and shown by ``ps``, and one argument
  longer than 128 KiB cannot be started at all. The runner marks those messages read
  once the process has started (:attr:`Launch.marks_read`).
- **``--print``** makes it one-shot: without it ``--output-format stream-json`` starts
  Ripperdoc's stdio protocol loop, which ignores the prompt and exits on an empty stdin
  with no output. With ``--print``, stream-json needs ``--verbose`` (Ripperdoc refuses
  it otherwise).
- **One session per member**: the first run picks its id (``--session-id``: recorded in
  run.yaml at the start), every later run continues it (``--resume``): the model is
  sent the earlier turns. Ripperdoc looks a session up only among those of the working
  directory (``$RIPPERDOC_CONFIG_DIR/sessions/<cwd's name>/<id>.jsonl``) and fails every
  time on one it does not find ("No session found matching"), so a session it no longer
  has there is not resumed: the run starts a new one, as a first run does.
- **The role prompt** is appended to the system prompt (``--append-system-prompt``) of
  every run: Ripperdoc keeps no system prompt in a session, a resumed run's requests
  carry only what that run is given.
- **teamdeck's MCP server as that member** (runtime/wake.py's ``mcp.json``, through
  ``--mcp-config``) with each of its tools allowed by full name (``--allowedTools``:
  Ripperdoc knows no server-wide rule): in ``--print`` nobody answers a permission
  prompt, and an unapproved ``message_agent`` is refused. Ripperdoc starts the server
  with a minimal environment (no ``PYTHONPATH``), so the config names where this
  teamdeck is imported from.
- **Model and provider** are Ripperdoc's ``RIPPERDOC_*`` variables, set for the run from
  the options (:class:`~teamdeck.model.agents.RipperdocOptions`): ``model``, ``protocol``,
  ``base_url``; the key comes from ``teamdeck run``'s environment (``RIPPERDOC_API_KEY``,
  or the variable ``api_key_env`` names) and is in no file teamdeck writes (argv, which
  run.yaml records, never holds it). ``profile`` picks a profile of Ripperdoc's own
  config (``--model``); ``permission_mode`` is ``--permission-mode``; ``--yolo`` only
  with ``dangerously_skip_permissions: true``.
- **Output**: ``--output-format=stream-json``; :meth:`RipperdocRuntime.outcome` reads the
  session id, usage, cost and errors from its ``result`` line (results.py), ``runs
  show`` and the TUI read the log through stream_json.py.
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import uuid
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path

import teamdeck
from teamdeck.errors import Refused
from teamdeck.model.agents import AgentConfig, RipperdocOptions
from teamdeck.runtime.claude.results import find_result
from teamdeck.runtime.ripperdoc.results import init_session, outcome_from
from teamdeck.runtime.ripperdoc.stream_json import readable_tail
from teamdeck.runtime.spec import Launch, Outcome, Problem, RunRequest, working_dir
from teamdeck.runtime.wake import mcp_tool_names, prompt_of, write_mcp_config

BINARY_ENV = "TEAMDECK_RIPPERDOC"
"""Names the ``ripperdoc`` binary; without it, ``ripperdoc`` is looked up on PATH."""
CONFIG_DIR_ENV = "RIPPERDOC_CONFIG_DIR"
"""Ripperdoc's config directory (default ``~/.ripperdoc``): its sessions are there."""
MODEL_ENV = "RIPPERDOC_MODEL"
PROTOCOL_ENV = "RIPPERDOC_PROTOCOL"
BASE_URL_ENV = "RIPPERDOC_BASE_URL"
API_KEY_ENV = "RIPPERDOC_API_KEY"
PERMISSION_MODES = ("default", "acceptEdits", "plan", "dontAsk", "bypassPermissions")
"""``--permission-mode`` choices of the pinned Ripperdoc (``ripperdoc --help``)."""
PROTOCOLS = ("anthropic", "openai_compatible", "gemini", "oauth")
"""``RIPPERDOC_PROTOCOL`` values the pinned Ripperdoc knows (it ignores any other, with a warning)."""
ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


class RipperdocRuntime:
    """See the module."""

    name = "ripperdoc"
    options = RipperdocOptions

    def check(self, config: AgentConfig) -> list[Problem]:
        problems = []
        if config.options.get("command"):  # runtime command's option: a `runtime: command` forgotten
            problems.append(Problem("command", "runtime ripperdoc runs Ripperdoc; `command` is for runtime command"))
        options = RipperdocOptions.of(config)
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
        if options.protocol is not None and options.protocol not in PROTOCOLS:
            problems.append(Problem("protocol", f"'{options.protocol}' is not one of {', '.join(PROTOCOLS)}"))
        if options.api_key_env is not None and not ENV_NAME.fullmatch(options.api_key_env):
            problems.append(Problem("api_key_env", "must name an environment variable (the key is never written here)"))
        return problems

    def launch(self, request: RunRequest) -> Launch:
        options = RipperdocOptions.of(request.config)
        env = {**request.base_env(), **options.env, **provider_env(options)}
        seen_env = {**os.environ, **env}
        if options.api_key_env:
            key = seen_env.get(options.api_key_env)
            if not key:
                raise Refused(f"${options.api_key_env} (api_key_env of {request.team}/{request.member}) is not set")
            env[API_KEY_ENV] = key
        cwd = working_dir(request, options.cwd)
        kept = request.session_id and session_kept(config_dir(seen_env), cwd, request.session_id)
        resumed = request.session_id if kept else None
        if resumed is None and request.session_id:
            request = replace(request, session_id=None)  # its session is gone: a new one, as on a first run
        session = resumed or str(uuid.uuid4())
        argv = [
            ripperdoc_binary(seen_env),
            "--print",
            "--input-format=auto",
            "--output-format=stream-json",
            "--verbose",
            *(["--resume", session] if resumed else ["--session-id", session]),
            f"--mcp-config={write_mcp_config(request, env=mcp_server_env(seen_env))}",
            f"--allowedTools={','.join(mcp_tool_names())}",
        ]
        if options.profile:
            argv.append(f"--model={options.profile}")
        if options.permission_mode:
            argv.append(f"--permission-mode={options.permission_mode}")
        if options.dangerously_skip_permissions:
            argv.append("--yolo")
        if request.role_prompt.strip():
            argv.append(f"--append-system-prompt={request.role_prompt.strip()}")
        return Launch(
            argv=tuple(argv),
            env=env,
            cwd=cwd,
            stdin=prompt_of(request).encode("utf-8"),
            marks_read=True,
            session_id=session,
        )

    def outcome(self, request: RunRequest, exit_status: int | None) -> Outcome:
        found = find_result(request.output_log)
        if found.result is not None:
            return outcome_from(found.result)
        error = "Ripperdoc ended without a result line" if exit_status == 0 and found.problem is None else None
        return Outcome(session_id=init_session(request.output_log), error=error, cost_problem=found.problem)

    def read_log(self, log: Path, limit: int) -> str:
        return readable_tail(log, limit)


def provider_env(options: RipperdocOptions) -> dict[str, str]:
    """The ``RIPPERDOC_*`` variables the options set (model, protocol, URL): over any of
    ``teamdeck run``'s environment or ``env``, as the member's own settings."""
    given = {MODEL_ENV: options.model, PROTOCOL_ENV: options.protocol, BASE_URL_ENV: options.base_url}
    return {name: value for name, value in given.items() if value}


def ripperdoc_binary(env: Mapping[str, str]) -> str:
    """``$TEAMDECK_RIPPERDOC``, else ``ripperdoc`` on the run's PATH.

    Raises:
        Refused: neither names a program (the run fails with this message).
    """
    named = env.get(BINARY_ENV)
    if named:
        found = shutil.which(os.path.expanduser(named))
        if found is None:
            raise Refused(f"${BINARY_ENV} names '{named}', which is not an executable file")
        return found
    found = shutil.which("ripperdoc", path=env.get("PATH"))
    if found is None:
        raise Refused(f"Ripperdoc not found: no `ripperdoc` on PATH; install it or name it in ${BINARY_ENV}")
    return found


def config_dir(env: Mapping[str, str]) -> Path | None:
    """Ripperdoc's config directory: ``$RIPPERDOC_CONFIG_DIR``, else ``$HOME/.ripperdoc``
    (None without either)."""
    configured = env.get(CONFIG_DIR_ENV, "").strip()
    if configured:
        return Path(os.path.expanduser(configured))
    home = env.get("HOME")
    return Path(home) / ".ripperdoc" if home else None


def project_dir_name(cwd: Path) -> str:
    """The directory Ripperdoc keeps a working directory's sessions in (its
    ``sanitize_project_path``): the resolved path with every run of other characters
    than ASCII letters and digits made one ``-``, and the first 8 hex digits of its SHA-1."""
    resolved = str(cwd.resolve())
    safe = re.sub(r"[^a-zA-Z0-9]+", "-", resolved).strip("-") or "project"
    return f"{safe}-{hashlib.sha1(resolved.encode('utf-8')).hexdigest()[:8]}"


def session_kept(ripperdoc_dir: Path | None, cwd: Path, session_id: str) -> bool:
    """Whether Ripperdoc has the session where a run in ``cwd`` looks for it (``--resume``
    of one it has not fails every time). Assumed kept when the config directory is unknown."""
    if ripperdoc_dir is None:
        return True
    return (ripperdoc_dir / "sessions" / project_dir_name(cwd) / f"{session_id}.jsonl").is_file()


def mcp_server_env(env: Mapping[str, str]) -> dict[str, str]:
    """What teamdeck's MCP server needs of the environment Ripperdoc does not pass it
    (it starts a server with only HOME, PATH, SHELL, TERM, USER...): ``PYTHONPATH``
    leading to this teamdeck, so the server runs the same code as the runner."""
    source = str(Path(teamdeck.__file__).resolve().parent.parent)
    given = env.get("PYTHONPATH", "")
    paths = [source, *(part for part in given.split(os.pathsep) if part and part != source)]
    return {"PYTHONPATH": os.pathsep.join(paths)}


RIPPERDOC = RipperdocRuntime()
