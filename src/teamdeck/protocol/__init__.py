"""The rules of the seeds as plain functions over store and model, one package per seed
plus what they share, layered (the ``protocol-layers`` import contract in pyproject.toml;
each package imports only the ones below it, never a sibling of its layer):

- autowork/: work that moves by itself (seeds 002 and 003), over everything below.
- effects/ | checks/: what crosses domains (what deciding a gate does, a retry, the
  work a member owes, finishing interrupted actions) | the walks over a whole workspace
  (``validate``, hygiene).
- plans/ (seed 002) | forge/ (seed 001) | runs/: coordinator plans, issue-driven teams,
  what ``teamdeck run`` is asked and asks.
- guardians/ (seed 003): verification: guardians, the verification loop, verdicts.
- coordination/ (seed 002): roles, delegation, nudges, stalls, the agents' decision queue.
- team/ (seed 004) | task/ (seed 000): the team protocol | tasks, gates, join.
- common/: what every domain uses (events, intents, what a call wrote, Markdown, problems).
"""
