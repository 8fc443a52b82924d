"""The process groups a guardian started, stopped with it.

A guardian that starts processes of its own (the ``command`` guardian's check) registers
their group with :func:`stop_on_term`; when the guardian's process is stopped for its
timeout (protocol/guardians/child.py, on SIGTERM), every group still registered is killed,
so nothing a guardian started outlives it.
"""

from __future__ import annotations

import contextlib
import os
import signal

_GROUPS: set[int] = set()


def stop_on_term(pgid: int) -> None:
    """Kill process group ``pgid`` too if this guardian is stopped for its timeout."""
    _GROUPS.add(pgid)


def forget(pgid: int) -> None:
    """``pgid`` has ended; it need not be killed any more."""
    _GROUPS.discard(pgid)


def kill_all() -> None:
    """Kill every process group still registered (the guardian is being stopped)."""
    for pgid in list(_GROUPS):
        with contextlib.suppress(ProcessLookupError):
            os.killpg(pgid, signal.SIGKILL)
