"""Notices on screen: a quick run of actions must not stack them over the whole screen
(they would cover the overview line), and warnings and errors are never pushed out."""

from __future__ import annotations

from conftest import make_app, run, until

from teamdeck.tui.app import MAX_NOTICES


def test_the_oldest_information_notices_go_first_and_errors_stay(world) -> None:
    app = make_app(world)

    async def scenario(pilot):
        app.notify("it broke", severity="error", markup=False)
        for number in range(MAX_NOTICES + 3):
            app.notify(f"done {number}", markup=False)
        await until(pilot, lambda: any(n.message == f"done {MAX_NOTICES + 2}" for n in app._notifications))
        shown = [(notice.severity, notice.message) for notice in app._notifications]
        assert len(shown) == MAX_NOTICES
        assert shown[0] == ("error", "it broke")
        assert [message for _, message in shown[1:]] == [f"done {n}" for n in range(4, MAX_NOTICES + 3)]

    run(app, scenario)
