"""watch.py: batches of changed paths, noise dropped, a stop event that ends it."""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path

import pytest

from teamdeck.store.atomic import atomic_replace
from teamdeck.watch import filesystem_type, is_ignored, needs_polling, watch_batches


@pytest.mark.parametrize(
    ("name", "ignored"),
    [
        ("tasks/t1/task.yaml", False),
        ("tasks/t1/.task.yaml.abc123.tmp", True),
        ("tasks/t1/task.yaml.lock", True),
        ("teams/a/inboxes/bob.json.lock", True),
        ("teams/a/inboxes/bob.json.lock/owner", True),
        ("teams/a/inboxes/bob.json", False),
        (".teamdeck.yaml", False),
    ],
)
def test_noise_is_ignored(tmp_path: Path, name: str, ignored: bool) -> None:
    assert is_ignored(tmp_path / name, tmp_path) is ignored


def test_local_disk_is_not_polled(tmp_path: Path) -> None:
    assert filesystem_type(tmp_path) is not None
    assert needs_polling(tmp_path) is False


@pytest.mark.parametrize("polling", [False, True])
def test_an_atomic_replace_arrives_as_one_batch_without_temp_files(tmp_path: Path, polling: bool) -> None:
    stop = threading.Event()
    batches: list[frozenset[Path]] = []
    target = tmp_path / "task.yaml"

    def collect() -> None:
        for batch in watch_batches(tmp_path, stop, force_polling=polling):
            batches.append(batch)

    thread = threading.Thread(target=collect)
    thread.start()
    try:
        deadline = time.monotonic() + 10
        while not any(target in batch for batch in batches):
            atomic_replace(target, b"state: working\n")
            time.sleep(0.3)  # the watcher needs a moment to start; writes repeat until seen
            assert time.monotonic() < deadline, "no batch arrived"
    finally:
        stop.set()
        thread.join(timeout=5)
    assert not thread.is_alive(), "the stop event did not end the watcher"
    assert all(not path.name.endswith(".tmp") for batch in batches for path in batch)


def test_files_written_at_once_into_a_new_directory_are_reported(tmp_path):
    """A worker's final.json written right after `mkdir -p agents/w/artifacts` is seen,
    even when inotify had no watch on the new directory yet (the walk of added dirs)."""
    import threading
    import time

    from teamdeck.watch import watch_batches

    stop = threading.Event()
    seen: set = set()
    expected = {tmp_path / f"w{index}" / "artifacts" / "final.json" for index in range(20)}

    def consume() -> None:
        for batch in watch_batches(tmp_path, stop, force_polling=False):
            seen.update(batch)
            if expected <= seen:
                stop.set()

    thread = threading.Thread(target=consume, daemon=True)
    thread.start()
    time.sleep(0.3)  # let the watcher start before the writes it must see
    for path in sorted(expected):  # as agents write: mkdir -p, then temp + rename
        path.parent.mkdir(parents=True)
        temp = path.with_name(".final.json.tmp")
        temp.write_text('{"status": "completed", "summary": "ok"}')
        os.replace(temp, path)
    thread.join(timeout=10)
    stop.set()
    assert expected <= seen, f"missed {len(expected - seen)} of {len(expected)}"
