"""Ages gives what age gives, at every moment, while working each text out once."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from hypothesis import given
from hypothesis import strategies as st

from teamdeck.clock import iso
from teamdeck.view.overview import Ages, age

BASE = datetime(2026, 3, 1, 9, 0, tzinfo=UTC)
moments = st.integers(min_value=-5, max_value=4 * 86400)


@given(
    stamps=st.lists(moments, min_size=1, max_size=6),
    steps=st.lists(st.integers(min_value=0, max_value=90_000), min_size=1, max_size=12),
    junk=st.booleans(),
)
def test_ages_equal_age_at_every_moment(stamps: list[int], steps: list[int], junk: bool) -> None:
    since = [iso(BASE + timedelta(seconds=offset, milliseconds=offset % 1000)) for offset in stamps]
    if junk:
        since.append("not a timestamp")
    ages, now = Ages(), BASE
    for step in steps:
        now += timedelta(seconds=step)
        at = ages.at(now)
        assert [at(text) for text in since] == [age(text, now) for text in since]


def test_a_known_age_is_not_worked_out_again_within_its_unit() -> None:
    ages = Ages()
    since = iso(BASE)
    first = ages.at(BASE + timedelta(days=3, hours=1))
    assert first(since) == "3d"
    entry = ages._known[since]
    later = ages.at(BASE + timedelta(days=3, hours=20))
    assert later(since) == "3d" and ages._known[since] is entry
    assert ages.at(BASE + timedelta(days=4))(since) == "4d"
