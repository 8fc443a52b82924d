"""``agents:`` in ``.teamdeck.yaml``: which team members ``teamdeck run`` runs, and how.

```yaml
agents:
  defaults: {runtime: claude-code, max_concurrent: 4, timeout_s: 1800, retries: 3}
  quant/*:            {runtime: claude-code, cwd: ~/src/quant, permission_mode: acceptEdits}
  quant/zhangfei-dev: {model: sonnet, budget_usd: 5}
  perf-audit/*:       {runtime: command, command: [python3, agents/worker.py, "{team}", "{member}"]}
```

Every key but ``defaults`` is a ``team/member`` pattern (``*`` and ``?`` as in shell
globs, on each side of the ``/``). A member is run when at least one pattern names it;
its settings are ``defaults``, then each matching wildcard pattern in file order, then
its exact ``team/member`` entry, later ones winning field by field. A wildcard never
matches a team's lead (usually the person's own session): name the lead exactly to run it.

Two fields are not a member's but a scope's: ``max_concurrent`` (in ``defaults``: runs at
once in the workspace; in a ``team/*`` entry: runs at once in that team) and
``team_budget_usd`` (in a ``team/*`` entry: the team's total). Naming them in a member
entry is a mistake the check reports.
"""

from __future__ import annotations

from pydantic import Field

from teamdeck.model.base import ClosedModel

DEFAULT_RUNTIME = "claude-code"
DEFAULT_TIMEOUT_S = 1800.0
DEFAULT_RETRIES = 3
DEFAULT_BACKOFF_S = 10.0
DEFAULT_GRACE_S = 10.0
DEFAULT_MAX_CONCURRENT = 4


class AgentEntry(ClosedModel):
    """One entry of ``agents:`` as written: every field optional (unset: inherited)."""

    runtime: str | None = Field(default=None, description="how the member runs: a registered runtime's name")
    command: list[str] | None = Field(
        default=None,
        min_length=1,
        description="runtime command: the argv; {workspace} {team} {member} {run_id} are replaced",
    )
    cwd: str | None = Field(default=None, description="the run's working directory (~ expanded; default: workspace)")
    env: dict[str, str] | None = Field(default=None, description="variables added to the run's environment")
    model: str | None = Field(default=None, description="runtime claude-code: the model (--model)")
    permission_mode: str | None = Field(default=None, description="runtime claude-code: --permission-mode")
    dangerously_skip_permissions: bool | None = Field(
        default=None, description="runtime claude-code: pass --dangerously-skip-permissions (never unless true)"
    )
    timeout_s: float | None = Field(default=None, gt=0, description="a run longer than this is stopped (failed)")
    grace_s: float | None = Field(default=None, ge=0, description="between SIGTERM and SIGKILL when a run is stopped")
    retries: int | None = Field(default=None, ge=0, description="failed runs retried this many times, then a decision")
    backoff_s: float | None = Field(default=None, ge=0, description="first retry's delay; doubled for each next one")
    budget_usd: float | None = Field(default=None, gt=0, description="the member's total reported cost allowed")
    max_concurrent: int | None = Field(
        default=None, ge=1, description="defaults: runs at once in the workspace; team/*: runs at once in the team"
    )
    team_budget_usd: float | None = Field(default=None, gt=0, description="team/*: the team's total cost allowed")


MEMBER_FIELDS = tuple(name for name in AgentEntry.model_fields if name not in ("max_concurrent", "team_budget_usd"))
"""The fields that merge into a member's :class:`AgentConfig`."""


class AgentConfig(ClosedModel):
    """A member's settings once ``defaults``, its patterns and its own entry are merged:
    what a runtime gets (see teamdeck/runtime/spec.py)."""

    runtime: str = DEFAULT_RUNTIME
    command: list[str] | None = None
    cwd: str | None = None
    env: dict[str, str] = Field(default_factory=dict)
    model: str | None = None
    permission_mode: str | None = None
    dangerously_skip_permissions: bool = False
    timeout_s: float = DEFAULT_TIMEOUT_S
    grace_s: float = DEFAULT_GRACE_S
    retries: int = DEFAULT_RETRIES
    backoff_s: float = DEFAULT_BACKOFF_S
    budget_usd: float | None = None
    sources: tuple[str, ...] = Field(default=(), description="the entries merged, in order (for messages)")
