"""The handshake ledger and delivery diagnostics of a team (seed 004 §6-§8).

Built from what is on disk - config.json, every inbox, and teamdeck's messages.jsonl -
it correlates every request with its reply by request id and classifies what went
wrong with the seed's failure classes:

- ``not_enqueued`` (未入队): teamdeck logged a send that is not in the recipient's inbox
  (the delivery failed, or another writer lost it).
- ``not_injected`` (未注入): a message is still unread although its recipient went idle
  *after* it arrived (a turn ended without seeing it).
- ``not_consumed`` (未消费): a shutdown request was read, the member went idle after it,
  and no reply came.
- ``not_offline`` (未下线): a member approved its shutdown yet is still active, or a
  shutdown request has waited past the timeout (``shutdownTimeoutSeconds``, default
  2 min) with no reply and no finer class (the handshake is ``overdue``: resend or force).
- ``team_delete_blocked`` (TeamDelete 被阻塞): a delete was refused and active members
  still block it.

A shutdown request named in a ``shutdown_superseded`` record of messages.jsonl (it was
resent under a new id) and a permission request its requester asked again (same
``tool_use_id``) or that an offline member left behind are ``superseded``: closed.

It also folds idle notifications per member (count, last reason, idle since), and
lists messages addressed to names that are not members, inboxes that cannot be read,
and entries that are not messages. Pure reading: nothing is written.

- :mod:`.results`: what a ledger holds (handshakes, findings, idle folds, the roster)
  and the codes they use.
- :mod:`.moments`: timestamps as the rules compare them (an unreadable one never wins).
- :mod:`.fold`: the incremental fold: each inbox folded once per read, only the log
  records appended since, and each recipient's delivery findings kept until what they
  depend on changes (the live view keeps one :class:`~.fold.LedgerFold` per team).
- :mod:`.handshake_reads`: the rules that pair requests with replies and classify them
  (the handshakes are written by protocol/team/messaging/handshake_writes.py).
- :mod:`.build`: :func:`~.build.build_ledger`, the ledger of one team.
"""
