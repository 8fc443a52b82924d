"""Claude Code inbox costs: reading a busy inbox (B15), building the ledger, appending
through the mkdir-locked writer, and marking read (R4). Prints a table; asserts nothing.

Usage::

    python bench/bench_inbox.py [DIR]     # DIR: where to write (default: a temp dir)

Run it once with DIR on a real disk and once on tmpfs (/dev/shm) to see what fsync costs.
"""

from __future__ import annotations

import shutil
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

from teamdeck.clock import iso
from teamdeck.formats.claude_code.inbox import append_message, mark_read, read_inbox
from teamdeck.formats.claude_code.json_files import encode_pretty
from teamdeck.model.team import IdleNotification
from teamdeck.protocol.team.ledger.build import build_ledger
from teamdeck.protocol.team.teams import add_member, create_team
from teamdeck.store.workspace import Workspace

START = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)


def busy_inbox(count: int, body: int) -> list[dict]:
    """A lead inbox like a busy team's: 40 % idle notifications, the rest reports."""
    entries = []
    for n in range(count):
        at = iso(START + timedelta(seconds=n))
        member = f"worker-{n % 8}"
        text = (
            IdleNotification(from_=member, timestamp=at, idleReason="available").to_text()
            if n % 5 < 2
            else f"report {n}: " + "x" * body
        )
        entries.append({"from": member, "text": text, "summary": f"r{n}", "timestamp": at, "read": n < count - 50})
    return entries


def timed(action, repeat: int = 5) -> float:
    """The best of ``repeat`` runs, in milliseconds."""
    best = float("inf")
    for _ in range(repeat):
        started = time.perf_counter()
        action()
        best = min(best, time.perf_counter() - started)
    return best * 1000


def main(argv: list[str]) -> int:
    base = Path(argv[0]) if argv else Path(tempfile.mkdtemp(prefix="bench-inbox-"))
    base.mkdir(parents=True, exist_ok=True)
    rows = []
    try:
        for count, body in ((1000, 1500), (2000, 1500), (5000, 300)):
            root = base / f"ws-{count}"
            shutil.rmtree(root, ignore_errors=True)
            root.mkdir()
            ws = Workspace.at(root, clock=lambda: START)
            create_team(ws, "bench")
            for n in range(8):
                add_member(ws, "bench", f"worker-{n}")
            path = ws.inbox("bench", "team-lead")
            path.write_bytes(encode_pretty(busy_inbox(count, body)))
            size = path.stat().st_size
            rows.append((f"read_inbox, {count} msgs, {size / 1e6:.1f} MB", timed(lambda: read_inbox(path))))
            rows.append(("  + decode every kind", timed(lambda: [e.kind for e in read_inbox(path).entries])))
            rows.append((f"build_ledger, {count} msgs", timed(lambda: build_ledger(ws, "bench"))))
            message = {"from": "worker-1", "text": "hello", "summary": "s", "timestamp": iso(START), "read": False}
            rows.append(
                (
                    f"append_message (lock, splice, fsync, confirm), {count} msgs",
                    timed(lambda: append_message(path, message)),
                )
            )
            before = path.read_bytes()

            def mark_one() -> None:
                path.write_bytes(before)  # the same unread message each time (restoring costs ~1 ms)
                mark_read(path, lambda raw: raw["text"] == "hello")

            rows.append((f"mark_read one message (full re-encode, fsync), {count} msgs", timed(mark_one, 3)))
    finally:
        if not argv:
            shutil.rmtree(base, ignore_errors=True)
    width = max(len(name) for name, _ in rows)
    print(f"{'operation':<{width}}  best ms")
    for name, ms in rows:
        print(f"{name:<{width}}  {ms:8.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
