"""Many writers on one Claude Code inbox (docs/reliability.md C1, C2, C10).

C1/C10: six processes append 100 messages each through our writer while a seventh
keeps marking messages read (what a teammate does); a reader checks the file between
writes. Every message must be there exactly once and the file must always parse.
C2 keeps the harness honest: the same load through a writer that skips the lock (and
rewrites in place, as Claude Code does) must be *detected* as losing messages.
"""

from __future__ import annotations

import json
import multiprocessing
import os
import shutil
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from teamdeck.formats.claude_code.inbox import append_message, mark_read

WRITERS = 6
PER_WRITER = 100
_ctx = multiprocessing.get_context("fork")


def _message(writer: int, n: int) -> dict:
    return {
        "from": f"w{writer}",
        "text": f"w{writer}-{n}",
        "summary": "s",
        "timestamp": "2026-03-01T10:00:00.000Z",
        "read": False,
    }


def locked_append(path: Path, message: dict) -> None:
    """Our writer: mkdir lock, re-read, append, temp + replace, confirm."""
    append_message(path, message)


def unlocked_append(path: Path, message: dict) -> None:
    """A writer without the lock that rewrites the file in place (C2's control)."""
    try:
        array = json.loads(path.read_text())
    except ValueError:
        array = []
    array.append(message)
    path.write_text(json.dumps(array, indent=2))


def _writer(path: Path, writer: int, append: Callable[[Path, dict], None], start) -> None:
    start.wait()
    for n in range(PER_WRITER):
        append(path, _message(writer, n))


def _marker(path: Path, stop, start) -> None:
    """A teammate consuming its inbox: marks every unread message of writer 0 read."""
    start.wait()
    while not stop.wait(0.02):  # between turns
        mark_read(path, lambda raw: raw.get("from") == "w0")


def run_load(
    path: Path, append: Callable[[Path, dict], None], *, with_marker: bool
) -> tuple[list[dict] | None, int, int]:
    """Run the writers (and the marker) and watch the file.

    Returns:
        (the final array or None if it does not parse, reads that saw invalid JSON, reads).
    """
    path.write_text("[]")
    parties = WRITERS + (1 if with_marker else 0)
    start, stop = _ctx.Barrier(parties), _ctx.Event()
    writers = [_ctx.Process(target=_writer, args=(path, i, append, start)) for i in range(WRITERS)]
    marker = _ctx.Process(target=_marker, args=(path, stop, start)) if with_marker else None
    for process in writers + ([marker] if marker else []):
        process.start()
    invalid = reads = 0
    while any(process.is_alive() for process in writers):
        reads += 1
        try:
            json.loads(path.read_bytes())
        except ValueError:
            invalid += 1
        time.sleep(0.002)  # leave the CPUs to the writers
    for process in writers:
        process.join(60)
    if marker:
        stop.set()
        marker.join(60)
        assert marker.exitcode == 0
    try:
        final = json.loads(path.read_bytes())
    except ValueError:
        final = None
    return final, invalid, reads


@pytest.fixture
def fast_dir(tmp_path: Path):
    """A directory on tmpfs when there is one: these tests are about the lock, and
    fsync on a real disk (~5 ms) would make 600 serialised writes take seconds."""
    shm = Path("/dev/shm")
    if not (shm.is_dir() and os.access(shm, os.W_OK)):
        yield tmp_path
        return
    directory = Path(tempfile.mkdtemp(prefix="teamdeck-c1-", dir=shm))
    try:
        yield directory
    finally:
        shutil.rmtree(directory, ignore_errors=True)


def lost_messages(final: list[dict] | None) -> int:
    """How many of the expected messages are missing (all, if the file is invalid)."""
    if final is None:
        return WRITERS * PER_WRITER
    present = {entry["text"] for entry in final if isinstance(entry, dict)}
    return sum(1 for w in range(WRITERS) for n in range(PER_WRITER) if f"w{w}-{n}" not in present)


@pytest.mark.slow
def test_c1_c10_six_writers_and_a_reader_marking_read_lose_nothing(fast_dir: Path) -> None:
    path = fast_dir / "team-lead.json"
    final, invalid, reads = run_load(path, locked_append, with_marker=True)
    assert final is not None and invalid == 0 and reads > 0
    assert lost_messages(final) == 0
    texts = [entry["text"] for entry in final]
    assert len(texts) == len(set(texts)) == WRITERS * PER_WRITER  # each exactly once
    marked = [entry for entry in final if entry["read"]]
    assert all(entry["from"] == "w0" for entry in marked)  # the marker changed only what it meant to
    assert [p.name for p in fast_dir.iterdir()] == ["team-lead.json"]  # no lock or temp file left


@pytest.mark.slow
def test_c2_the_harness_detects_loss_when_the_lock_is_skipped(fast_dir: Path) -> None:
    path = fast_dir / "team-lead.json"
    final, invalid, _reads = run_load(path, unlocked_append, with_marker=False)
    assert lost_messages(final) > 0 or invalid > 0
