"""The demo's agents (docs/protocol.md, "The demo's agents").

``teamdeck demo`` runs them with the runner, as a user's agents are run: each teammate's
turn is a ``runtime: command`` run of ``python -m teamdeck.sim.agent``
(:mod:`teamdeck.sim.agent`, :mod:`teamdeck.sim.turn`, per :mod:`teamdeck.sim.personas`),
set up by :mod:`teamdeck.sim.setup`; :mod:`teamdeck.sim.scenario` plays the lead's side on
a timer. Everything they write goes through the same protocol functions teamdeck uses
(:mod:`teamdeck.sim.acts`, :mod:`teamdeck.sim.outputs`), on the real clock: the demo's
copy of demo-workspace/ is rebased to now (:mod:`teamdeck.sim.clock`).
"""
