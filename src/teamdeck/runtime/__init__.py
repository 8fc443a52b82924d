"""How ``teamdeck run`` starts a member: the runtime interface (spec.py), the runtimes
(command.py, ...), their registry (registry.py) and the ``agents:`` settings (config.py)."""
