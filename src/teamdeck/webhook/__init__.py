"""The Gitea webhook front: an HTTP server (Starlette on Uvicorn) that hands each
delivery to :func:`teamdeck.protocol.forge.deliveries.receive`, and a client that
replays recorded deliveries to it."""
