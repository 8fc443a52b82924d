"""``.teamdeck.yaml``: per-workspace settings."""

from __future__ import annotations

from pydantic import Field

from teamdeck.model.agents import AgentsSection
from teamdeck.model.base import OurModel


class ForgeSettings(OurModel):
    """``forge:``: the Gitea bridge of issue-driven teams (seed 001)."""

    agents: dict[str, str] = Field(
        default_factory=dict,
        description="Gitea login -> 'team/member' for agents whose login is not a member name",
    )
    url: str | None = Field(default=None, description="Gitea's base URL, for comments teamdeck posts")


class NotifySettings(OurModel):
    """``notify:``: telling a person who is not looking that a decision waits."""

    command: str | list[str] | None = Field(
        default=None,
        description="run by the TUI for each decision that arrives (and each stuck shutdown or failed run), with "
        "the decision as one JSON object on stdin: an argument list, or one string run by the shell "
        "(ntfy, a Slack webhook, a phone)",
    )
    minIntervalSeconds: float = Field(
        default=5, ge=0, description="the least time between two runs of the command (the rest wait their turn)"
    )
    bell: bool = Field(
        default=True,
        description="ring the terminal bell and send an OSC 9 / OSC 777 desktop notification when a decision "
        "arrives while the terminal is not focused or the queue is not shown",
    )


class AutoworkSettings(OurModel):
    """``autowork:``: what ``teamdeck supervise`` (and the runner) do by themselves
    (protocol/autowork/)."""

    enabled: bool = Field(default=True, description="advance plans, verify on review and catch stalls by themselves")
    everySeconds: float = Field(
        default=5,
        ge=0.2,
        le=3600,
        description="how often `teamdeck run` takes the automatic step (sooner when a stall falls due)",
    )
    stallAfterSeconds: float = Field(
        default=1200,
        gt=0,
        description="a member whose assigned work shows no activity this long is nudged (the first wait)",
    )
    nudges: int = Field(default=2, ge=0, le=10, description="nudges sent before a stall decision waits for a person")
    backoff: float = Field(
        default=2.0, ge=1, description="each further wait is this many times the one before (nudges, then the decision)"
    )


class Settings(OurModel):
    """Settings a workspace may carry; every field is optional."""

    readOnly: bool = Field(default=False, description="refuse every write from every front")
    autoJoin: bool = Field(
        default=True, description="the TUI re-runs join when a worker's final.json appears or changes"
    )
    shutdownTimeoutSeconds: int = Field(
        default=120,
        ge=1,
        description="a shutdown_request unanswered this long is stuck: offered for resend or force, "
        "reported as not offline",
    )
    forge: ForgeSettings = Field(default_factory=ForgeSettings)
    autowork: AutoworkSettings = Field(default_factory=AutoworkSettings)
    staleAfterSeconds: int = Field(
        default=21600,
        ge=1,
        description="a member with no message sent or received this long is stale (its last status is no longer "
        "believed), and a team whose members are all stale or offline has ended",
    )
    hideEndedTeams: bool = Field(
        default=False,
        description="the TUI's roster and teamdeck status leave out teams whose members are all offline or stale",
    )
    notify: NotifySettings = Field(default_factory=NotifySettings)
    stalledAfterSeconds: int = Field(
        default=600,
        ge=1,
        description="a Claude Code team task in_progress whose owner has been idle this long (or is offline) is "
        "flagged stalled",
    )
    agents: AgentsSection = None
