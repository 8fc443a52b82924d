"""The demo scenario's clockwork (teamdeck.sim.engine)."""

from __future__ import annotations

import threading
import time

import pytest

from teamdeck.errors import Busy
from teamdeck.sim.engine import Scheduler


def test_actions_run_in_time_order_then_schedule_order():
    scheduler = Scheduler()
    ran: list[str] = []
    scheduler.after(2.0, "late", lambda: ran.append("late"))
    scheduler.after(1.0, "first", lambda: ran.append("first"))
    scheduler.after(1.0, "second", lambda: ran.append("second"))
    scheduler.advance(1.5)
    assert ran == ["first", "second"]
    assert scheduler.now == 1.5
    scheduler.advance(2.0)
    assert ran == ["first", "second", "late"]
    assert [(happened.at, happened.label) for happened in scheduler.history] == [
        (1.0, "first"),
        (1.0, "second"),
        (2.0, "late"),
    ]


def test_an_action_can_schedule_more_within_the_same_advance():
    scheduler = Scheduler()
    ticks: list[float] = []

    def tick() -> None:
        ticks.append(scheduler.now)
        scheduler.after(1.0, "tick", tick)

    scheduler.after(0.0, "tick", tick)
    scheduler.advance(3.0)
    assert ticks == [0.0, 1.0, 2.0, 3.0]


def test_a_failing_action_is_recorded_and_the_rest_still_run():
    scheduler = Scheduler()
    ran: list[str] = []

    def fail() -> None:
        raise Busy("inbox team-lead.json is busy")

    scheduler.after(1.0, "send", fail)
    scheduler.after(2.0, "after", lambda: ran.append("after"))
    scheduler.advance(5.0)
    assert scheduler.errors == ["send: inbox team-lead.json is busy"]
    assert ran == ["after"]
    assert [happened.label for happened in scheduler.history] == ["after"]


def test_a_bug_in_an_action_is_not_swallowed():
    scheduler = Scheduler()
    scheduler.after(0.0, "bug", lambda: 1 / 0)
    with pytest.raises(ZeroDivisionError):
        scheduler.advance(1.0)


def test_run_stops_promptly_when_the_stop_event_is_set():
    scheduler = Scheduler()
    stop = threading.Event()
    seen = threading.Event()

    def tick() -> None:
        seen.set()
        scheduler.after(1.0, "tick", tick)

    scheduler.after(0.0, "tick", tick)
    thread = threading.Thread(target=scheduler.run, args=(stop,), kwargs={"speed": 100.0})
    thread.start()
    assert seen.wait(5.0)
    started = time.monotonic()
    stop.set()
    thread.join(5.0)
    assert not thread.is_alive()
    assert time.monotonic() - started < 1.0


def test_run_advances_speed_times_faster_than_real_time_and_ends_after_duration():
    fake = {"now": 0.0}
    scheduler = Scheduler()
    ran: list[float] = []
    for at in (5.0, 15.0, 25.0):
        scheduler.after(at, f"at {at}", lambda at=at: ran.append(at))

    class FakeStop(threading.Event):
        def wait(self, timeout: float | None = None) -> bool:  # time passes instead of sleeping
            fake["now"] += timeout or 0.0
            return False

    scheduler.run(FakeStop(), speed=10.0, duration=2.0, monotonic=lambda: fake["now"])
    assert ran == [5.0, 15.0]  # 2 real seconds x 10 = 20 simulated seconds
    assert fake["now"] == pytest.approx(2.0)


def test_run_refuses_a_speed_that_is_not_positive():
    with pytest.raises(ValueError):
        Scheduler().run(threading.Event(), speed=0)
