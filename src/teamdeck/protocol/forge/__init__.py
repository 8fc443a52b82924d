"""Issue-driven teams (seed 001): Gitea issues as the team's blackboard.

- :mod:`.issues`: the issue documents (``forge/<owner>__<repo>/issues/<n>/``).
- :mod:`.parse`: parent, depends, closes and @mentions in titles and bodies.
- :mod:`.agents`: which Gitea logins are agents (team members).
- :mod:`.notify`: the inbox messages, one template per kind under ``templates/forge/``.
- :mod:`.rules`: seed 001 §11-§17, what each delivery does.
- :mod:`.deliveries`: receiving a delivery once (dedupe, the log; the webhook front
  checks the signature and answers with HTTP statuses).
- :mod:`.round_review`: the round-review gate in the decision queue.
- :mod:`.outbox`: what must reach Gitea, recorded; delivered by an adapter at the edge
  (teamdeck/adapters/), never from here.
"""
