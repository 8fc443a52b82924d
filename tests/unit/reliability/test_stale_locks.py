"""C16: a writer stopped past the lock's stale time never writes an old
inbox back.

A writer frozen (SIGSTOP, Ctrl-Z, a suspended laptop) after reading the array under the
lock loses the lock to the next writers once it is stale; when it resumes, it must see
that the inbox changed (or that the lock is no longer its own) and start over, instead of
replacing the file with the array it read before the others wrote.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from teamdeck.formats.claude_code.inbox import append_message, mark_read

from .stopped import wait_until_stopped

# The stopped writer freezes itself right after reading the array under the lock. The
# patch works on any version of the inbox writer (it wraps the read), so this test shows
# the loss on the code before the fix too.
STOPPING_WRITER = """
import os, signal, sys
from pathlib import Path
from teamdeck.formats.claude_code import inbox

read = inbox._load_with_bytes
def read_then_freeze(path, *args, **kwargs):
    result = read(path, *args, **kwargs)
    if not getattr(read_then_freeze, "done", False):
        read_then_freeze.done = True
        os.kill(os.getpid(), signal.SIGSTOP)
    return result
inbox._load_with_bytes = read_then_freeze
inbox.load_inbox_array = lambda path, **kw: read(path)[1]
{action}
"""


def _message(sender: str, n: int) -> dict:
    return {"from": sender, "text": f"message {n}", "timestamp": "2026-03-01T10:00:00.000Z", "read": False}


def _stopped_writer(path: Path, action: str) -> subprocess.Popen[bytes]:
    writer = subprocess.Popen(
        [sys.executable, "-c", STOPPING_WRITER.format(action=action), str(path)], stderr=subprocess.PIPE
    )
    wait_until_stopped(writer.pid)
    return writer


def _resume(writer: subprocess.Popen[bytes]) -> None:
    os.kill(writer.pid, signal.SIGCONT)
    _, err = writer.communicate(timeout=30)
    assert writer.returncode == 0, err.decode()


def test_c16_a_send_stopped_past_the_stale_time_does_not_write_its_old_array_back(tmp_path: Path) -> None:
    path = tmp_path / "bob.json"
    path.write_text("[]")
    writer = _stopped_writer(
        path,
        "inbox.append_message(Path(sys.argv[1]), "
        "{'from': 'stopped', 'text': 'message 0', 'timestamp': '2026-03-01T10:00:00.000Z', 'read': False}, "
        "stale_after=0.5)",
    )
    try:
        for n in range(1, 4):  # each waits for the frozen writer's lock to go stale, then breaks it
            assert append_message(path, _message("live", n), stale_after=0.5).confirmed
    finally:
        _resume(writer)
    texts = [entry["text"] for entry in json.loads(path.read_text())]
    assert sorted(texts) == ["message 0", "message 1", "message 2", "message 3"]  # 0 lost, 0 doubled


def test_c16_a_mark_read_stopped_past_the_stale_time_keeps_the_messages_sent_meanwhile(tmp_path: Path) -> None:
    path = tmp_path / "bob.json"
    path.write_text(json.dumps([_message("live", 0)]))
    writer = _stopped_writer(
        path, "inbox.mark_read(Path(sys.argv[1]), lambda entry: entry['text'] == 'message 0', stale_after=0.5)"
    )
    try:
        assert append_message(path, _message("live", 1), stale_after=0.5).confirmed
    finally:
        _resume(writer)
    entries = json.loads(path.read_text())
    assert [(entry["text"], entry["read"]) for entry in entries] == [("message 0", True), ("message 1", False)]
    assert mark_read(path, lambda _entry: True) == [entries[1]]


def test_c16_a_live_holder_keeps_its_lock_fresh_past_the_stale_time(tmp_path: Path) -> None:
    from teamdeck.store.dirlock import dir_locked, lock_dir_for

    path = tmp_path / "bob.json"
    path.write_text("[]")
    with dir_locked(path, stale_after=0.3) as held:
        time.sleep(0.8)  # well past the stale time: refreshed meanwhile
        assert time.time() - lock_dir_for(path).stat().st_mtime < 0.3
        assert held.still_ours()
