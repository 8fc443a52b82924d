"""teamdeck's ULIDs (src/teamdeck/ulids.py): the spec's encoding, unique and sorted by
time, and strictly increasing within one millisecond (R5: identity is the ULID, readers
count each id once)."""

from __future__ import annotations

import itertools
import re
from datetime import UTC, datetime, timedelta

import pytest

from teamdeck import ulids
from teamdeck.ulids import Generator, encode, new_ulid

SHAPE = re.compile(r"^[0-9A-HJKMNP-TV-Z]{26}$")
"""What model/team_log.py's ``id`` pattern accepts."""


def test_the_time_part_is_the_specs_encoding() -> None:
    # the example of https://github.com/ulid/spec: 1469918176385 ms is "01ARYZ6S41"
    assert encode(1469918176385, 0) == "01ARYZ6S410000000000000000"
    assert encode((1 << 48) - 1, (1 << 80) - 1) == "7ZZZZZZZZZZZZZZZZZZZZZZZZZ"
    assert encode(0, 31) == "0000000000000000000000000Z"


def test_ids_are_well_formed_unique_and_sorted_by_time() -> None:
    start = datetime(2026, 3, 1, 9, tzinfo=UTC)
    made = [new_ulid(start + timedelta(milliseconds=ms)) for ms in range(0, 50, 7)]
    assert all(SHAPE.fullmatch(one) for one in made)
    assert made == sorted(made) and len(set(made)) == len(made)
    assert SHAPE.fullmatch(new_ulid())


def test_ids_of_one_millisecond_count_up_from_the_first() -> None:
    counter = itertools.count(10)
    generator = Generator(randomness=lambda: next(counter))
    moment = datetime(2026, 3, 1, 9, tzinfo=UTC)
    first, second, third = (generator.new(moment) for _ in range(3))
    assert first < second < third
    assert [one[10:] for one in (first, second, third)] == [encode(0, n)[10:] for n in (10, 11, 12)]
    later = generator.new(moment + timedelta(milliseconds=1))
    assert later[10:] == encode(0, 11)[10:]  # a new millisecond draws again (the count-ups drew nothing)


def test_a_millisecond_whose_random_part_is_exhausted_is_refused() -> None:
    generator = Generator(randomness=lambda: (1 << 80) - 1)
    moment = datetime(2026, 3, 1, 9, tzinfo=UTC)
    generator.new(moment)
    with pytest.raises(ValueError, match="exhausted"):
        generator.new(moment)


def test_the_process_generator_can_be_replaced(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ulids, "generator", Generator(clock=lambda: 1469918176385, randomness=lambda: 1))
    assert new_ulid() == "01ARYZ6S410000000000000001"
