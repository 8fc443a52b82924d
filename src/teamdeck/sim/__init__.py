"""Scripted agents for ``teamdeck demo``, tests and benchmarks (docs/protocol.md).

:class:`~teamdeck.sim.simulation.Simulation` writes into a workspace what real agents
write — messages, idle notifications, worker outputs, handshake replies — through the
same protocol functions teamdeck uses, deterministically for a seed.
"""
