"""teamdeck: a terminal supervisor for teams of AI agents that coordinate through files."""

__version__ = "0.1.0"
