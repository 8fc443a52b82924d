"""The demo's agent program, ``python -m teamdeck.sim.agent``: one turn per run.

``teamdeck demo`` names it in the demo workspace's ``.teamdeck.yaml`` as a ``runtime:
command`` agent (teamdeck/sim/setup.py), so the runner starts it as it starts any
user's agent: a process of its own, with ``TEAMDECK_WORKSPACE``, ``TEAMDECK_TEAM``,
``TEAMDECK_MEMBER`` and ``TEAMDECK_RUN_ID`` in its environment, its stdout written to the
run's ``output.log`` (one line per step: what the TUI's run log shows). It reads its own
messages, as ``teamdeck inbox --inject`` would (the ``command`` runtime leaves that to the
agent), plays one :class:`~teamdeck.sim.turn.Turn` and exits 0. A persona that crashed
exits 1 at once, before it reads anything: the runner records a failed run, retries it,
then asks a person.

The demo's pace and choices come from the environment the runner passes on:
:data:`~teamdeck.sim.setup.ENV_SPEED` and :data:`~teamdeck.sim.setup.ENV_SEED`. Its clock
is the real one: the demo's copy was rebased to now (:mod:`teamdeck.sim.clock`).
"""

from __future__ import annotations

import os
import random
import sys
from collections.abc import Mapping

from teamdeck.errors import TeamdeckError
from teamdeck.runtime.spec import ENV_MEMBER, ENV_RUN_ID, ENV_TEAM, ENV_WORKSPACE
from teamdeck.sim.personas import persona_for
from teamdeck.sim.setup import ENV_SEED, ENV_SPEED
from teamdeck.sim.turn import Turn
from teamdeck.store.workspace import Workspace


def main(environ: Mapping[str, str] = os.environ) -> int:
    """Play one turn as the member the environment names; the exit status."""
    try:
        root, team, member, run_id = (environ[name] for name in (ENV_WORKSPACE, ENV_TEAM, ENV_MEMBER, ENV_RUN_ID))
        speed = float(environ.get(ENV_SPEED) or 1.0)
    except (KeyError, ValueError) as err:
        print(f"teamdeck.sim.agent: not started by a runner as the demo sets it up ({err})", file=sys.stderr)
        return 2
    if persona_for(member).crashed:
        print(f"{team}/{member}: crashed on start (the demo's crashed teammate)", file=sys.stderr)
        return 1
    rng = random.Random(f"{environ.get(ENV_SEED, '0')}:{team}/{member}:{run_id}")
    turn = Turn(Workspace.at(root), team, member, rng, speed=max(speed, 0.01), say=_say)
    try:
        turn.play()
    except TeamdeckError as err:  # a lock held too long, a file a person broke: the run fails, saying why
        print(f"{team}/{member}: {err}", file=sys.stderr)
        return 1
    return 0


def _say(line: str) -> None:
    """One step of the turn on stdout: the run's output.log, read live by the TUI's ``l``."""
    print(line, flush=True)


if __name__ == "__main__":
    sys.exit(main())
