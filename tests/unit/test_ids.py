"""Record ids (src/teamdeck/ids.py): ULIDs whose time part is the workspace clock's,
distinct across writers (C9: readers count each id once, so two records must never share
one) and reproducible on request (the demo workspace, snapshots)."""

from __future__ import annotations

import os
import re
from datetime import UTC, datetime, timedelta

import pytest
from ulid_transform import ulid_to_timestamp

from teamdeck import ids

CROCKFORD = re.compile(r"[0-9A-HJKMNP-TV-Z]{26}")
MOMENT = datetime(2026, 3, 1, 9, 0, 0, 123_456, tzinfo=UTC)


def test_an_id_is_a_ulid_of_its_moment_to_the_millisecond() -> None:
    made = ids.new_ulid(MOMENT)
    assert CROCKFORD.fullmatch(made)
    assert ulid_to_timestamp(made) == round(MOMENT.replace(microsecond=123_000).timestamp() * 1000)  # milliseconds


def test_ids_sort_by_their_moment() -> None:
    moments = [MOMENT + timedelta(milliseconds=step) for step in (0, 1, 2, 1000, 86_400_000)]
    made = [ids.new_ulid(moment) for moment in moments]
    assert sorted(made) == made


def test_ids_of_one_millisecond_are_made_in_order() -> None:
    """The read model orders records of one millisecond by id (view/refresh/log_merge.py): a
    gate's approval must show before the state change it caused."""
    made = [ids.new_ulid(MOMENT) for _ in range(10_000)]
    assert sorted(made) == made and len(set(made)) == len(made)


def test_a_forked_child_and_its_parent_never_make_the_same_id() -> None:
    """C9: a sequence whose state a fork copies (ulid-transform's own per-thread generator,
    or the last id of the same millisecond) would go on the same on both sides of it, and
    a reader would drop one of the two records."""
    ids.new_ulid(MOMENT)  # the parent's randomness is in use before the fork
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: its ids, then out without running the parent's cleanup
        os.close(read_end)
        os.write(write_end, " ".join(ids.new_ulid(MOMENT) for _ in range(100)).encode())
        os._exit(0)
    os.close(write_end)
    with os.fdopen(read_end, "rb") as pipe:
        child = set(pipe.read().decode().split())
    os.waitpid(pid, 0)
    parent = {ids.new_ulid(MOMENT) for _ in range(100)}
    assert len(child) == 100
    assert not child & parent


def test_reproducible_ids_take_their_random_part_from_the_source_given() -> None:
    ids.reproducible(lambda size: bytes(range(1, size + 1)))
    try:
        first, second = ids.new_ulid(MOMENT), ids.new_ulid(MOMENT)
    finally:
        ids.reproducible(None)
    # 2026-03-01T09:00:00.123Z in 48 bits, then the bytes 01..0a, in Crockford base 32:
    assert (first, second) == ("01KJMA0FQV041061050R3GG28A", "01KJMA0FQV041061050R3GG28B")
    assert ids.new_ulid(MOMENT) != first  # random again


def test_a_moment_before_1970_is_refused() -> None:
    with pytest.raises(OverflowError):
        ids.new_ulid(datetime(1969, 12, 31, tzinfo=UTC))
