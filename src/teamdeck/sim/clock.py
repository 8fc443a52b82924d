"""The demo's clock: the bundled world's "now", moving forward in real time.

demo-workspace/ is generated with a fixed clock (its history ends just before
:data:`DEMO_NOW`), so ages in it ("gate waiting 45 min") only read right if the
viewer's "now" is near that moment. ``teamdeck demo`` therefore gives the simulated
agents and the TUI one shared clock that starts at :data:`DEMO_NOW` and runs at real
speed: everything the agents and the person write during the demo is stamped on it,
so the bundled history and the live one stay in order.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from datetime import UTC, datetime, timedelta

from teamdeck.clock import Clock

DEMO_NOW = datetime(2026, 3, 1, 12, 0, 0, tzinfo=UTC)
"""The moment demo-workspace/ was "captured" (its last file is a few minutes older)."""


def running_clock(start: datetime = DEMO_NOW, *, monotonic: Callable[[], float] = time.monotonic) -> Clock:
    """A clock that answers ``start`` now and advances with real (monotonic) time.

    Args:
        start: the first moment it answers.
        monotonic: the source of elapsed seconds (tests pass a fake).

    Returns:
        A :data:`~teamdeck.clock.Clock` usable as ``Workspace.clock``.
    """
    origin = monotonic()
    return lambda: start + timedelta(seconds=monotonic() - origin)
