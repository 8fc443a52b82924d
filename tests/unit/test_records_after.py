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
