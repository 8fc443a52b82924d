"""SendMessage for Claude Code teams (seed 004 §4-§6), one module per responsibility.

- names.py: which member a name means in a team (``name``, ``NAME``, ``name@team``,
  ``team-lead``), shared by every module here and by protocol's other team functions.
- sending.py: messages, broadcasts and structured protocol messages, logged first in
  ``messages.jsonl`` and then appended to each recipient's inbox (:class:`Sent`).
- reading.py: a member's inbox as it is, for the CLI and the MCP server (marks nothing).
- handshake_writes.py: the shutdown and plan-approval handshakes answered and asked, and
  taking a member offline (what the ledger reads of them is ledger/handshake_reads.py).
- injection.py: a member's unread messages taken for its next turn (:class:`Injected`).

The writers (sending, handshake_writes, injection) are apart from what only reads (names,
reading), so the read model may use the one and never the other (the ``view-reads``
import contract).
"""
