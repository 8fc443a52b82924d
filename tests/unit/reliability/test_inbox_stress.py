"""C17: 8 writers x N sends into one inbox, a reader that marks messages read, and a
writer frozen (SIGSTOP) with the lock past its stale time: 0 lost, 0 doubled, and the
reader never sees anything but a JSON array.

N is ``$TEAMDECK_STRESS_SENDS``: 400 in the suite (3,200 sends), 1,000 with ``make
stress`` (the catalogue's size, docs/reliability.md C17). An append parses only what
other writers added after the array it last knew and confirms by finding its own bytes,
where it used to parse the whole growing inbox twice; what is left grows with the inbox
(each send rewrites all of it, as Claude Code's writer does, and each of the reader's
marks re-encodes it), so the cost grows with N squared: at 1,000 it took 150 s of a CI
run of the whole suite, and 705 s on the shared 2-core box at a load average of 20-24.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest

from .procs import WORKER, expect_line, finish, release, spawn
from .stopped import wait_until_stopped

pytestmark = pytest.mark.slow

WRITERS = 8
SENDS = int(os.environ.get("TEAMDECK_STRESS_SENDS", "400"))
STALE_S = 1.0
"""The lock's stale time in this test (10 s in use): the frozen writer's lock is broken after it."""


def test_c17_eight_writers_a_marking_reader_and_a_frozen_writer_lose_and_double_nothing(tmp_path: Path) -> None:
    inbox = tmp_path / "bob.json"
    inbox.write_text("[]")
    frozen = subprocess.Popen(
        [sys.executable, str(WORKER), "stress-sends", str(inbox), "frozen", "1", str(STALE_S)],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "TEAMDECK_STOP_AT": "inbox.after_read"},
    )
    release([frozen])
    wait_until_stopped(frozen.pid)  # it holds the lock, having read the array
    stop = tmp_path / "stop"
    writers = [spawn("stress-sends", inbox, f"w{number}", SENDS, STALE_S) for number in range(WRITERS)]
    reader = spawn("read-and-mark", inbox, stop, STALE_S)
    started = time.monotonic()
    release([*writers, reader])
    time.sleep(STALE_S * 2)  # the others break its lock meanwhile
    os.kill(frozen.pid, signal.SIGCONT)
    busy = 0
    for writer in writers:
        busy += int(expect_line(writer, "done", timeout=3000).split()[2])
        finish(writer)
    assert finish(frozen).strip().startswith("done")
    stop.touch()
    stats = expect_line(reader, "reads").split()
    finish(reader)
    elapsed = time.monotonic() - started

    texts = Counter(entry["text"] for entry in json.loads(inbox.read_text()))
    wanted = {f"w{w}-{n}" for w in range(WRITERS) for n in range(SENDS)} | {"frozen-0"}
    lost = wanted - set(texts)
    doubled = {text: count for text, count in texts.items() if count > 1}
    print(
        f"C17: {WRITERS} x {SENDS} sends + 1 frozen in {elapsed:.1f} s ({busy} busy, retried); reader {' '.join(stats)}"
    )
    assert (lost, doubled) == (set(), {})
    assert set(texts) == wanted
    assert int(stats[3]) == 0, "the reader saw something that is not a JSON array"
    assert int(stats[1]) > 0 and int(stats[5]) > 0  # the reader really read and marked during the sends
