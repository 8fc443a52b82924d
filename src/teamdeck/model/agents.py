"""``agents:`` in ``.teamdeck.yaml``: which team members ``teamdeck run`` runs, and how.

```yaml
agents:
  defaults: {runtime: claude-code, max_concurrent: 4, timeout_s: 1800, retries: 3}
  quant/*:            {runtime: claude-code, cwd: ~/src/quant, permission_mode: acceptEdits}
  quant/zhangfei-dev: {model: sonnet, budget_usd: 5}
  perf-audit/*:       {runtime: command, command: [python3, agents/worker.py, "{team}", "{member}"]}
  docs/*:             {runtime: ripperdoc, model: gpt-4o-mini, protocol: openai_compatible, api_key_env: OPENAI_API_KEY}
```

Every key but ``defaults`` is a ``team/member`` pattern (``*`` and ``?`` as in shell
globs, on each side of the ``/``). A member is run when at least one pattern names it;
its settings are ``defaults``, then each matching wildcard pattern in file order, then
its exact ``team/member`` entry, later ones winning field by field.

An entry holds two kinds of settings, written side by side: the runner's
(:class:`RunSettings`: ``runtime``, timeouts, retries, budgets), the same for every
runtime, and its runtime's (``command``, ``cwd``, ``model``...), each runtime's
:class:`RuntimeOptions` model (teamdeck/runtime/spec.py: a runtime names its own). The
options of the built-in runtimes are here because they are part of this published
format (``agents`` in schemas/settings.schema.json); a runtime added by an entry point
brings its own. A setting of another runtime than the member's is allowed and unused (a
``model`` in ``defaults`` is for its claude-code members), as a runtime says otherwise.

Two fields are not a member's but a scope's: ``max_concurrent`` (in ``defaults``: runs at
once in the workspace; in a ``team/*`` entry: runs at once in that team) and
``team_budget_usd`` (in a ``team/*`` entry: the team's total). Naming them in a member
entry is a mistake the check reports.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, Self

from pydantic import ConfigDict, Field, SkipValidation

from teamdeck.model.base import ClosedModel

DEFAULT_RUNTIME = "claude-code"
DEFAULT_TIMEOUT_S = 1800.0
DEFAULT_RETRIES = 3
DEFAULT_BACKOFF_S = 10.0
DEFAULT_GRACE_S = 10.0
DEFAULT_MAX_CONCURRENT = 4

WorkingDir = Annotated[str | None, Field(description="the run's working directory (~ expanded; default: workspace)")]
"""``cwd``, for a runtime whose process runs in a directory of the member's choosing."""
Environment = Annotated[dict[str, str], Field(description="variables added to the run's environment")]
"""``env``, for a runtime that lets the member add variables to its process."""


class RuntimeOptions(ClosedModel):
    """What one runtime reads from a member's settings: subclassed by each runtime,
    every field with a default (a member's options merge from several entries)."""

    @classmethod
    def of(cls, config: AgentConfig) -> Self:
        """This runtime's options of a member's merged settings (the settings of other
        runtimes left out). The values were checked when ``.teamdeck.yaml`` was loaded."""
        return cls.model_validate({name: value for name, value in config.options.items() if name in cls.model_fields})


class CommandOptions(RuntimeOptions):
    """``runtime: command`` (teamdeck/runtime/command.py)."""

    command: list[str] | None = Field(
        default=None,
        min_length=1,
        description="runtime command: the argv; {workspace} {team} {member} {run_id} are replaced",
    )
    cwd: WorkingDir = None
    env: Environment = Field(default_factory=dict)


class ClaudeCodeOptions(RuntimeOptions):
    """``runtime: claude-code`` (teamdeck/runtime/claude/headless.py)."""

    cwd: WorkingDir = None
    env: Environment = Field(default_factory=dict)
    model: str | None = Field(default=None, description="runtime claude-code: the model (--model)")
    permission_mode: str | None = Field(default=None, description="runtime claude-code: --permission-mode")
    dangerously_skip_permissions: bool = Field(
        default=False, description="runtime claude-code: pass --dangerously-skip-permissions (never unless true)"
    )


class RipperdocOptions(RuntimeOptions):
    """``runtime: ripperdoc`` (teamdeck/runtime/ripperdoc/headless.py). The model and its
    provider are Ripperdoc's own ``RIPPERDOC_*`` variables, set for the run; a key is never
    an option (a key in ``.teamdeck.yaml`` is a key in a file): ``api_key_env`` names the
    variable of ``teamdeck run``'s environment that holds it."""

    cwd: WorkingDir = None
    env: Environment = Field(default_factory=dict)
    model: str | None = Field(
        default=None, description="runtime ripperdoc: the provider's model name (RIPPERDOC_MODEL)"
    )
    protocol: str | None = Field(
        default=None,
        description="runtime ripperdoc: the provider's API: anthropic, openai_compatible, gemini, oauth "
        "(RIPPERDOC_PROTOCOL)",
    )
    base_url: str | None = Field(default=None, description="runtime ripperdoc: the provider's URL (RIPPERDOC_BASE_URL)")
    api_key_env: str | None = Field(
        default=None,
        description="runtime ripperdoc: the variable of teamdeck run's environment holding the key "
        "(given to the run as RIPPERDOC_API_KEY)",
    )
    profile: str | None = Field(
        default=None, description="runtime ripperdoc: a model profile of Ripperdoc's own config (--model)"
    )
    permission_mode: str | None = Field(default=None, description="runtime ripperdoc: --permission-mode")
    dangerously_skip_permissions: bool = Field(
        default=False, description="runtime ripperdoc: pass --yolo (never unless true)"
    )


class RunSettings(ClosedModel):
    """The runner's settings of an entry, the same for every runtime; unset: inherited."""

    timeout_s: float | None = Field(default=None, gt=0, description="a run longer than this is stopped (failed)")
    grace_s: float | None = Field(default=None, ge=0, description="between SIGTERM and SIGKILL when a run is stopped")
    retries: int | None = Field(default=None, ge=0, description="failed runs retried this many times, then a decision")
    backoff_s: float | None = Field(default=None, ge=0, description="first retry's delay; doubled for each next one")
    budget_usd: float | None = Field(default=None, gt=0, description="the member's total reported cost allowed")
    max_concurrent: int | None = Field(
        default=None, ge=1, description="defaults: runs at once in the workspace; team/*: runs at once in the team"
    )
    team_budget_usd: float | None = Field(default=None, gt=0, description="team/*: the team's total cost allowed")


class AgentEntry(RunSettings):
    """One entry of ``agents:`` as written: its runner settings, and its runtime
    settings in ``options`` (checked against the runtimes' models by
    teamdeck/runtime/config.py, which splits an entry's keys)."""

    runtime: str | None = Field(default=None, description="how the member runs: a registered runtime's name")
    options: dict[str, Any] = Field(default_factory=dict, description="the runtime settings written")


SCOPE_FIELDS = ("max_concurrent", "team_budget_usd")
MEMBER_FIELDS = ("runtime", *(name for name in RunSettings.model_fields if name not in SCOPE_FIELDS))
"""The runner settings that merge into a member's :class:`AgentConfig` (its options merge
too, setting by setting)."""


class AgentConfig(ClosedModel):
    """A member's settings once ``defaults``, its patterns and its own entry are merged:
    what a runtime gets (see teamdeck/runtime/spec.py). ``options``: the runtime settings
    merged (every runtime's: :meth:`RuntimeOptions.of` takes a runtime's own)."""

    runtime: str = DEFAULT_RUNTIME
    options: dict[str, Any] = Field(default_factory=dict)
    timeout_s: float = DEFAULT_TIMEOUT_S
    grace_s: float = DEFAULT_GRACE_S
    retries: int = DEFAULT_RETRIES
    backoff_s: float = DEFAULT_BACKOFF_S
    budget_usd: float | None = None
    sources: tuple[str, ...] = Field(default=(), description="the entries merged, in order (for messages)")


class CommandEntry(RunSettings, CommandOptions):
    """An entry of a ``runtime: command`` member, as the schema shows it."""

    runtime: Literal["command"] | None = None


class ClaudeCodeEntry(RunSettings, ClaudeCodeOptions):
    """An entry of a ``runtime: claude-code`` member (the default), as the schema shows it."""

    runtime: Literal["claude-code"] | None = None


class RipperdocEntry(RunSettings, RipperdocOptions):
    """An entry of a ``runtime: ripperdoc`` member, as the schema shows it."""

    runtime: Literal["ripperdoc"] | None = None


class PluggedRuntimeEntry(RunSettings):
    """An entry of a runtime an entry point adds: its settings are its own."""

    model_config = ConfigDict(extra="allow")
    runtime: Annotated[str, Field(json_schema_extra={"not": {"enum": ["command", "claude-code", "ripperdoc"]}})]


AgentsSection = Annotated[
    dict[str, CommandEntry | ClaudeCodeEntry | RipperdocEntry | PluggedRuntimeEntry] | None,
    SkipValidation,
    Field(
        description="who `teamdeck run` runs and how: 'defaults' and 'team/member' patterns, each an entry of "
        "the runner's settings and its runtime's (checked by `teamdeck run`, docs/protocol.md)"
    ),
]
"""``agents:`` as settings.schema.json publishes it (teamdeck/model/settings.py): an entry
is one runtime's shape. Never validated by the settings loader: teamdeck/runtime/config.py
checks it, in teamdeck's words, where it is used."""
