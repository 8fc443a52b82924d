"""The demo's agents, set up in a workspace: the ``agents:`` section of its
``.teamdeck.yaml`` (every teammate of every team runs ``python -m teamdeck.sim.agent``
with ``runtime: command``) and the environment their runs inherit.

The section is written into the file, not handed to the runner, so the runner reads it
as it reads a user's (``teamdeck run`` on a copy kept with ``--keep`` runs the same
agents), and the interpreter is named by its absolute path: the runner runs argv as it
is, with no shell and no virtualenv activation. It is sized for a small box: two runs at
once (each run is a fresh Python process; a wake waits its turn in the runner's queue),
and a crashed agent is retried once before the runner asks a person. ``*/*`` never names
a team's lead, so the replies and idle notifications the agents send the lead are no
work for the runner: they wake nothing, and no run leads to another by itself.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import yaml

from teamdeck.store.loaders import read_capped
from teamdeck.store.workspace import SETTINGS_FILE
from teamdeck.store.yaml_text import parse_yaml

ENV_SPEED = "TEAMDECK_DEMO_SPEED"
"""How much faster than real time the demo's agents think, work and wait."""
ENV_SEED = "TEAMDECK_DEMO_SEED"
"""Fixes the demo agents' choices (words, delays) for a given run id."""

MAX_CONCURRENT = 2
TIMEOUT_S = 120.0
RETRIES = 1
BACKOFF_S = 5.0
GRACE_S = 2.0


def agents_section(python: str = sys.executable) -> dict[str, Any]:
    """The ``agents:`` section that runs every teammate with the demo's agent program
    (the runner's settings are what a user would write: ``--speed`` does not change them)."""
    return {
        "defaults": {
            "runtime": "command",
            "max_concurrent": MAX_CONCURRENT,
            "timeout_s": TIMEOUT_S,
            "retries": RETRIES,
            "backoff_s": BACKOFF_S,
            "grace_s": GRACE_S,
        },
        "*/*": {"command": [python, "-m", "teamdeck.sim.agent"]},
    }


def install_agents(root: Path, python: str = sys.executable) -> str:
    """Give ``root``'s ``.teamdeck.yaml`` the demo's ``agents:`` unless it has its own
    (a workspace that says how its agents run keeps saying it). What it did, in words.

    Raises:
        InvalidFile: the file is there but is not YAML.
        OSError: it could not be written.
    """
    path = root / SETTINGS_FILE
    section = yaml.safe_dump({"agents": agents_section(python)}, sort_keys=False)
    try:
        raw = parse_yaml(read_capped(path), Path(SETTINGS_FILE))
    except FileNotFoundError:
        path.write_text("# Written by teamdeck demo: every teammate runs the demo's agent program.\n" + section)
        return f"the demo's agents written into {path}"
    if isinstance(raw, dict) and raw.get("agents") is not None:
        return f"the agents {path} names"
    text = path.read_text(encoding="utf-8")
    path.write_text(text + ("" if text.endswith("\n") or not text else "\n") + section, encoding="utf-8")
    return f"the demo's agents added to {path}"


def environment(*, speed: float, seed: int) -> dict[str, str]:
    """The variables the demo's runs need (set in the demo's own environment, which the
    runner passes on to every run): pace and seed. No clock: the demo's copy is rebased
    to now (teamdeck/sim/clock.py), so its runs are on the real clock like everything else."""
    return {ENV_SPEED: repr(speed), ENV_SEED: str(seed)}
