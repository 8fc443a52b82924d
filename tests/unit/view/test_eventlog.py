"""The events tail: read tail-first, then incrementally; older lines on demand."""

from __future__ import annotations

import json
import os
from pathlib import Path

from teamdeck.view.readers.log_source import LogSource
from teamdeck.view.snapshot.events import event_row, message_row


def _line(n: int, **extra) -> bytes:
    record = {
        "id": f"E{n:08d}",
        "ts": f"2026-03-01T10:{n // 60 % 60:02d}:{n % 60:02d}.000Z",
        "type": "task.state_changed",
        "actor": "human:t",
        "payload": {"n": n},
        **extra,
    }
    return (json.dumps(record) + "\n").encode()


def _write(path: Path, start: int, stop: int) -> None:
    with open(path, "ab") as handle:
        handle.write(b"".join(_line(n) for n in range(start, stop)))


def _source(path: Path, tail_lines: int = 5) -> LogSource:
    return LogSource(path, "tasks/t1/events.jsonl", "task t1", event_row, tail_lines)


def test_reads_only_the_tail_at_start(tmp_path: Path) -> None:
    path = tmp_path / "events.jsonl"
    _write(path, 0, 1000)
    source = _source(path)
    assert [row.id for row in source.rows] == [f"E{n:08d}" for n in range(995, 1000)]
    assert not source.complete
    assert source.rows[-1].text == "n=999"
    assert source.rows[-1].kind == "task.state_changed"


def test_small_file_is_read_whole(tmp_path: Path) -> None:
    path = tmp_path / "events.jsonl"
    _write(path, 0, 3)
    source = _source(path)
    assert len(source.rows) == 3 and source.complete


def test_new_lines_are_read_incrementally_and_a_torn_line_waits(tmp_path: Path) -> None:
    path = tmp_path / "events.jsonl"
    _write(path, 0, 10)
    source = _source(path)
    assert source.read_new() == []
    line = _line(10)
    with open(path, "ab") as handle:
        handle.write(line[:20])
    assert source.read_new() == []
    with open(path, "ab") as handle:
        handle.write(line[20:])
    assert [row.id for row in source.read_new()] == ["E00000010"]
    assert source.read_new() == []


def test_torn_last_line_at_start_is_not_read(tmp_path: Path) -> None:
    path = tmp_path / "events.jsonl"
    _write(path, 0, 3)
    with open(path, "ab") as handle:
        handle.write(_line(3)[:15])
    source = _source(path)
    assert [row.id for row in source.rows] == ["E00000000", "E00000001", "E00000002"]


def test_load_older_walks_back_to_the_start(tmp_path: Path) -> None:
    path = tmp_path / "events.jsonl"
    _write(path, 0, 5000)  # more than one 64 KiB block
    source = _source(path, tail_lines=10)
    older = source.load_older(2000)
    assert [row.id for row in older][:1] == ["E00002990"] and len(older) == 2000
    rest = source.load_older(10_000)
    assert len(rest) == 2990 and source.complete
    assert [row.id for row in source.rows] == [f"E{n:08d}" for n in range(5000)]
    assert source.load_older(10) == []


def test_c9_duplicate_lines_count_once(tmp_path: Path) -> None:
    path = tmp_path / "events.jsonl"
    _write(path, 0, 3)
    with open(path, "ab") as handle:
        handle.write(_line(2))
    source = _source(path)
    assert [row.id for row in source.rows] == ["E00000000", "E00000001", "E00000002"]
    with open(path, "ab") as handle:
        handle.write(_line(2) + _line(3))
    assert [row.id for row in source.read_new()] == ["E00000003"]


def test_f14_replaced_log_is_read_again_without_duplicates(tmp_path: Path) -> None:
    path = tmp_path / "events.jsonl"
    _write(path, 0, 10)
    source = _source(path)
    generation = source.generation
    replacement = tmp_path / "new.jsonl"
    _write(replacement, 100, 103)
    os.replace(replacement, path)
    rows = source.read_new()
    assert [row.id for row in rows] == ["E00000100", "E00000101", "E00000102"]
    assert source.generation != generation
    assert "truncated or replaced" in (source.notice or "")
    assert [row.id for row in source.rows] == ["E00000100", "E00000101", "E00000102"]


def test_f14_truncated_log_is_read_again(tmp_path: Path) -> None:
    path = tmp_path / "events.jsonl"
    _write(path, 0, 10)
    source = _source(path)
    with open(path, "r+b") as handle:
        handle.truncate(0)
    _write(path, 50, 51)
    assert [row.id for row in source.read_new()] == ["E00000050"]


def test_bad_lines_are_problems_and_the_rest_is_read(tmp_path: Path) -> None:
    path = tmp_path / "events.jsonl"
    path.write_bytes(_line(0) + b"{not json\n" + b"[1,2]\n" + b"\n" + _line(1))
    source = _source(path)
    assert [row.id for row in source.rows] == ["E00000000", "E00000001"]
    assert len(source.problems) == 2
    assert all(str(problem.path) == "tasks/t1/events.jsonl" for problem in source.problems)


def test_missing_file_appears_later(tmp_path: Path) -> None:
    path = tmp_path / "events.jsonl"
    source = _source(path)
    assert source.rows == [] and source.read_new() == []
    _write(path, 0, 2)
    assert [row.id for row in source.read_new()] == ["E00000000", "E00000001"]


def test_message_rows_show_sender_and_recipient() -> None:
    row = message_row(
        {
            "id": "M1",
            "ts": "2026-03-01T10:00:00.000Z",
            "type": "message",
            "from": "team-lead",
            "to": ["alice"],
            "summary": "hi",
        },
        "team alpha",
        "teams/alpha/messages.jsonl",
    )
    assert row.actor == "team-lead → alice" and row.text == "summary=hi" and row.kind == "message"
