"""Driving the TUI with Textual's Pilot: a fixed size, the watcher off unless a test
turns it on, waits that poll with a deadline, keys typed one by one.

Tests import these by name, so they are not in conftest.py: a run that also collects
tests/unit would find that directory's conftest under the same module name.
:func:`until` is the wait for anything a test expects to happen; a bare ``pilot.pause()``
only lets the messages already posted be handled.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from typing import Any

from textual.command import CommandPalette

from teamdeck.store.workspace import Workspace
from teamdeck.tui.app import TeamdeckApp, create_app
from teamdeck.tui.widgets.confirm_bar import ConfirmBar

SIZE = (120, 36)
DEADLINE_S = 20.0


def lines_of(widget: Any) -> list[str]:
    """What a line-API widget draws, one string per line."""
    return ["".join(segment.text for segment in widget.render_line(y)).rstrip() for y in range(widget.size.height)]


def run(app: TeamdeckApp, scenario: Callable[[Any], Awaitable[None]], size: tuple[int, int] = SIZE) -> None:
    """Run ``scenario(pilot)`` against ``app`` once its first snapshot is on screen."""

    async def main() -> None:
        async with app.run_test(size=size) as pilot:
            await until(pilot, lambda: app.main.ready and app.settled)
            await scenario(pilot)

    asyncio.run(main())


def make_app(ws: Workspace, **options: Any) -> TeamdeckApp:
    options.setdefault("watch", False)
    return create_app(ws, **options)


async def until(pilot: Any, condition: Callable[[], bool], what: str = "the condition") -> None:
    """Let the app run until ``condition()`` holds (fails after :data:`DEADLINE_S`)."""
    deadline = time.monotonic() + DEADLINE_S
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        await pilot.pause(0.02)


def palette_gathered(app: TeamdeckApp) -> bool:
    """Whether the command palette is on top and has listed every match of what is typed
    in it (it gathers them in a worker, a batch at a time, after each key)."""
    palette = app.screen
    return isinstance(palette, CommandPalette) and not any(
        worker.node is palette and not worker.is_finished for worker in app.workers
    )


def busy(app: TeamdeckApp) -> bool:
    """Whether an action or a join is running or a change waits to be read (the watcher
    and the refresher run as long as the app)."""
    return (
        not app.settled or app.acting or any(worker.group == "summary" and worker.is_running for worker in app.workers)
    )


async def type_text(pilot: Any, text: str) -> None:
    """Type ``text`` key by key."""
    keys = {
        " ": "space",
        "\n": "enter",
        ".": "full_stop",
        ",": "comma",
        ":": "colon",
        "!": "exclamation_mark",
        "?": "question_mark",
        "-": "minus",
        "/": "slash",
        "'": "apostrophe",
        "(": "left_parenthesis",
        ")": "right_parenthesis",
    }
    for char in text:
        await pilot.press(keys.get(char, char))


def showing(app: TeamdeckApp, kind: type) -> bool:
    """Whether ``kind`` asks the person now: the main screen's confirm bar (nothing over
    it), or a screen of that type on top."""
    if kind is ConfirmBar:
        return app.screen is app.main and app.main.confirm_bar.asking
    return isinstance(app.screen, kind)
