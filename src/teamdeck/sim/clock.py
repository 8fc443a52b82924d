"""The demo's clock: the bundled world's "now", moving forward in real time.

demo-workspace/ is generated with a fixed clock (its history ends just before
:data:`DEMO_NOW`), so ages in it ("gate waiting 45 min") only read right if the
viewer's "now" is near that moment. ``teamdeck demo`` therefore runs everything — the
TUI, the runner, the scenario and every agent process the runner starts — on one clock:
the wall clock shifted by a fixed number of seconds, chosen when the demo starts so that
it answers :data:`DEMO_NOW` then. The shift travels to the agent processes in the
environment (:data:`ENV_SHIFT`, inherited through the runner, which passes its
environment to every run), so a message an agent writes and the run record the runner
writes are stamped on the same clock, and the bundled history and the live one stay in
order.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

from teamdeck.clock import Clock, utc_now

DEMO_NOW = datetime(2026, 3, 1, 12, 0, 0, tzinfo=UTC)
"""The moment demo-workspace/ was "captured" (its last file is a few minutes older)."""

ENV_SHIFT = "TEAMDECK_DEMO_CLOCK_SHIFT_S"
"""Seconds the demo's clock is ahead of the wall clock (negative: behind), for the agent
processes of a demo. Unset: they run on the wall clock (a demo on an existing workspace)."""


@dataclass(frozen=True)
class ShiftedClock:
    """The wall clock plus ``shift_s`` seconds. A class, not a closure, so a workspace
    with it can be pickled."""

    shift_s: float

    def __call__(self) -> datetime:
        return utc_now() + timedelta(seconds=self.shift_s)


def shift_to(start: datetime = DEMO_NOW, *, now: datetime | None = None) -> float:
    """The shift that makes :class:`ShiftedClock` answer ``start`` at this moment."""
    return (start - (now or utc_now())).total_seconds()


def clock_from_env(environ: Mapping[str, str] = os.environ) -> Clock:
    """The demo's clock when :data:`ENV_SHIFT` is set, else the wall clock.

    Raises:
        ValueError: the variable is set but is not a number.
    """
    value = environ.get(ENV_SHIFT)
    if not value:
        return utc_now
    return ShiftedClock(float(value))
