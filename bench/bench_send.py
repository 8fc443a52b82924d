"""What one send costs when the recipient's inbox already holds 1 MB (C17's writers pay
this for every message): ``teamdeck send`` as the core runs it (intent, messages.jsonl,
the locked read-check-replace of the inbox, the confirming re-read) and the inbox append
alone, by a process that appended before (it parses only what others added since) and
as the first append of a process (``teamdeck send``: the whole inbox parsed once).
Prints a table; asserts nothing.

Usage::

    python bench/bench_send.py [DIR] [--sends N]   # DIR: where to write (default: a temp dir)
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from teamdeck.formats.claude_code import inbox
from teamdeck.formats.claude_code.inbox import append_message
from teamdeck.formats.claude_code.json_files import encode_pretty
from teamdeck.protocol.team.messaging.sending import send_message
from teamdeck.protocol.team.teams import add_member, create_team
from teamdeck.store.workspace import Workspace

INBOX_BYTES = 1024 * 1024


def filled_inbox(path: Path, size: int) -> int:
    """Write ``path`` as an inbox of about ``size`` bytes; returns its entry count."""
    entry = {"from": "worker", "text": "report " + "x" * 150, "summary": "r", "timestamp": "2026-03-01T09:00:00.000Z"}
    count = max(1, size // len(encode_pretty([{**entry, "read": True}])))
    path.write_bytes(encode_pretty([{**entry, "read": True} for _ in range(count)]))
    return count


def times(action: Callable[[int], object], sends: int) -> list[float]:
    """Milliseconds of each of ``sends`` calls of ``action(n)``."""
    spent = []
    for number in range(sends):
        started = time.perf_counter()
        action(number)
        spent.append((time.perf_counter() - started) * 1000)
    return spent


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("dir", nargs="?", type=Path)
    parser.add_argument("--sends", type=int, default=50)
    args = parser.parse_args()
    base = args.dir or Path(tempfile.mkdtemp(prefix="bench-send-"))
    base.mkdir(parents=True, exist_ok=True)
    ws = Workspace.at(base / "ws", actor="human:bench")
    ws.root.mkdir(exist_ok=True)
    try:
        create_team(ws, "alpha")
        add_member(ws, "alpha", "bob")
        entries = filled_inbox(ws.inbox("alpha", "bob"), INBOX_BYTES)
        sent = times(lambda n: send_message(ws, "alpha", "bob", f"message {n}", summary=f"m{n}"), args.sends)
        alone = base / "alone.json"
        filled_inbox(alone, INBOX_BYTES)
        message = {"from": "lead", "text": "hello", "timestamp": "2026-03-01T09:00:00.000Z", "read": False}
        appended = times(lambda n: append_message(alone, {**message, "text": f"message {n}"}), args.sends)

        def first_of_a_process(n: int) -> None:
            inbox._VALID.clear()  # as `teamdeck send` finds it: nothing known about the file yet
            append_message(alone, {**message, "text": f"fresh {n}"})

        fresh = times(first_of_a_process, args.sends)
        print(
            f"one send into a {INBOX_BYTES // 1024} KiB inbox ({entries:,} entries), {args.sends} sends each, in {base}"
        )
        print(f"{'what':<40} {'median ms':>10} {'p90 ms':>8} {'max ms':>8}")
        rows = (
            ("teamdeck send (core, fsynced)", sent),
            ("inbox append alone (store)", appended),
            ("inbox append, first of a process", fresh),
        )
        for what, spent in rows:
            p90 = statistics.quantiles(spent, n=10)[-1]
            print(f"{what:<40} {statistics.median(spent):>10.2f} {p90:>8.2f} {max(spent):>8.2f}")
    finally:
        if args.dir is None:
            shutil.rmtree(base, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
