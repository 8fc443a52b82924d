"""store.jsonl.records_after: what a document has not applied yet, read from the log's end."""

from __future__ import annotations

import json

import pytest

from teamdeck.store.jsonl import records_after


def _write(path, ids, tail=b""):
    lines = [json.dumps({"id": record_id, "type": "x", "payload": {"n": index}}) for index, record_id in enumerate(ids)]
    path.write_bytes(("\n".join(lines) + "\n").encode() + tail)


@pytest.mark.parametrize("block", [16, 64, 64 * 1024])
def test_returns_the_records_after_the_named_one_across_block_boundaries(tmp_path, block):
    path = tmp_path / "events.jsonl"
    ids = [f"E{index:03d}" for index in range(50)]
    _write(path, ids)
    assert [record["id"] for record in records_after(path, "E046", block=block)] == ["E047", "E048", "E049"]
    assert records_after(path, "E049", block=block) == []
    assert [record["id"] for record in records_after(path, "E000", block=block)] == ids[1:]


def test_an_id_quoted_in_a_later_payload_is_not_mistaken_for_the_record(tmp_path):
    path = tmp_path / "events.jsonl"
    path.write_text('{"id":"A","type":"x"}\n{"id":"B","type":"y","payload":{"ref":"A"}}\n')
    assert [record["id"] for record in records_after(path, "A", block=8)] == ["B"]


def test_unknown_id_or_missing_file_says_so_with_none(tmp_path):
    path = tmp_path / "events.jsonl"
    assert records_after(path, "A") is None
    _write(path, ["A", "B"])
    assert records_after(path, "Z") is None


def test_torn_last_line_and_duplicates_are_left_out(tmp_path):
    """F3 and C9 hold for the backwards reader too."""
    path = tmp_path / "events.jsonl"
    _write(path, ["A", "B", "B", "C"], tail=b'{"id":"D","ty')
    assert [record["id"] for record in records_after(path, "A", block=10)] == ["B", "C"]


def test_b18_a_line_over_the_record_cap_is_skipped_and_reported_without_being_held(tmp_path):
    """B18: one 5 MB line costs reading it once, never a growing buffer
    (the old reader prepended each block and split the whole buffer again: quadratic)."""
    import tracemalloc

    from teamdeck.store.jsonl import MAX_RECORD_BYTES

    path = tmp_path / "events.jsonl"
    big = json.dumps({"id": "BIG", "type": "x", "pad": "x" * 5_000_000}).encode()
    path.write_bytes(b'{"id":"A","type":"x"}\n' + big + b'\n{"id":"C","type":"x"}\n')
    problems: list = []
    tracemalloc.start()
    try:
        after = records_after(path, "A", problems=problems)
        _current, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert [record["id"] for record in after] == ["C"]
    assert peak < 8 * MAX_RECORD_BYTES  # a few blocks, not the 5 MB line
    assert [problem.why for problem in problems] == [
        f"record is {MAX_RECORD_BYTES + 1:,} bytes, over the limit of {MAX_RECORD_BYTES:,}; skipped"
    ]


def test_b18_every_reader_skips_and_reports_a_line_over_the_cap(tmp_path):
    from teamdeck.store.jsonl import MAX_RECORD_BYTES, read_records

    path = tmp_path / "events.jsonl"
    big = json.dumps({"id": "BIG", "pad": "x" * MAX_RECORD_BYTES}).encode()
    path.write_bytes(b'{"id":"A"}\n' + big + b'\n{"id":"C"}\n')
    records, problems = read_records(path)
    assert [record["id"] for record in records] == ["A", "C"]
    assert [(problem.where, problem.why) for problem in problems] == [
        ("line 2", f"record is {len(big) + 1:,} bytes, over the limit of {MAX_RECORD_BYTES:,}; skipped")
    ]
    assert records_after(path, "BIG") is None  # an oversize line is never parsed, so never found


@pytest.mark.parametrize("block", [7, 64, 1000])
def test_lines_over_the_cap_at_every_block_boundary(tmp_path, block, monkeypatch):
    from teamdeck.store import jsonl

    monkeypatch.setattr(jsonl, "MAX_RECORD_BYTES", 40)
    path = tmp_path / "events.jsonl"
    lines = [
        b'{"id":"A"}',
        b'{"id":"B","pad":"' + b"y" * 60 + b'"}',
        b'{"id":"C"}',
        b'{"id":"D","p":"' + b"z" * 20 + b'"}',
    ]
    path.write_bytes(b"\n".join(lines) + b"\n" + b'{"id":"torn')
    problems: list = []
    assert [record["id"] for record in records_after(path, "A", block=block, problems=problems)] == ["C", "D"]
    assert len(problems) == 1
