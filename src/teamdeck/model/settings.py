"""``.teamdeck.yaml``: per-workspace settings."""

from __future__ import annotations

from pydantic import Field

from teamdeck.model.base import OurModel


class Settings(OurModel):
    """Settings a workspace may carry; every field is optional."""

    readOnly: bool = Field(default=False, description="refuse every write from every front")
    autoJoin: bool = Field(
        default=True, description="the TUI re-runs join when a worker's final.json appears or changes"
    )
    stalledAfterSeconds: int = Field(
        default=600,
        ge=1,
        description="a Claude Code team task in_progress whose owner has been idle this long (or is offline) is "
        "flagged stalled",
    )
