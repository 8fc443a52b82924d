"""Adapters at the edge: the code that talks to the world outside the workspace (Gitea's
REST API). The core (model, store, protocol, view) never imports them; it records what
must leave the machine (protocol/forge/outbox.py) and is handed an adapter through an
interface (``ForgePoster``) by a front, which is where they are chosen and configured."""
