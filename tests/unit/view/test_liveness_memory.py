"""The overview's staleness, remembered per team view (the overview judged every
member at each change and each tick of the clock, 2,000 members at 10x).

The answer kept for a team holds only while no member's quiet time crosses the stale
time, so asking at any moment gives what judging every member afresh gives.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from teamdeck.view.figures.liveness import has_ended, is_stale, stale_in
from teamdeck.view.snapshot.workspace import MemberView, TeamView

AFTER = timedelta(hours=6)
T0 = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)


def team() -> TeamView:
    members = (
        MemberView(team="alpha", name="lead", status="idle", last_activity="2026-03-01T12:00:00.000Z"),
        MemberView(team="alpha", name="bob", status="working", last_activity="2026-03-01T14:00:00.000Z"),
        MemberView(team="alpha", name="gone", status="offline", last_activity="2026-03-01T09:00:00.000Z"),
        MemberView(team="alpha", name="quiet", status="idle"),  # no activity: judged by the team's newest
    )
    return TeamView(name="alpha", members=members)


def afresh(view: TeamView, now: datetime) -> list[str]:
    return [member.name for member in view.members if is_stale(member, view, now, AFTER)]


def test_the_remembered_answer_is_the_fresh_one_at_every_moment_back_and_forth():
    view = team()
    moments = [T0 + timedelta(hours=h, seconds=s) for h in (0, 5, 6, 7, 8, 9, 3, 8, 6) for s in (-1, 0, 1)]
    for now in moments:
        assert [member.name for member in stale_in(view, now, AFTER)] == afresh(view, now), now
    assert [member.name for member in stale_in(view, T0 + timedelta(hours=6), AFTER)] == ["lead"]
    assert [member.name for member in stale_in(view, T0 + timedelta(hours=8), AFTER)] == ["lead", "bob", "quiet"]
    assert has_ended(view, T0 + timedelta(hours=8), AFTER)
    assert not has_ended(view, T0 + timedelta(hours=7, minutes=59), AFTER)


def test_another_stale_time_is_judged_on_its_own():
    view = team()
    now = T0 + timedelta(hours=3)
    assert stale_in(view, now, AFTER) == []
    assert [member.name for member in stale_in(view, now, timedelta(hours=2))] == ["lead"]
    assert stale_in(view, now, AFTER) == []
