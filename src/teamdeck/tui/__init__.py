"""The live supervisor: ``teamdeck tui`` (Textual). A thin app over the read model
(view/) and the protocol functions; it never writes a file itself."""

from __future__ import annotations

import gc
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from teamdeck.store.workspace import Workspace
    from teamdeck.tui.app import TeamdeckApp


def open_app(
    ws: Workspace, *, watch: bool = True, read_only: bool = False, force_polling: bool | None = None
) -> TeamdeckApp:
    """The app as the commands start it: :func:`teamdeck.tui.app.create_app`, with the
    first snapshot read by a forked child meanwhile (tui/first_read.py) and the
    garbage collector off from before Textual is imported until the first screen is
    drawn. Start-up allocates what the app keeps for its whole life (classes, the
    widget tree, the first snapshot), so collections meanwhile free nothing and cost
    ~45 ms of a start; once the first snapshot is drawn and the refresher holds its
    state, the live workspace freezes what the app holds and turns collection back on
    (and on if that first read fails)."""
    gc.disable()
    from teamdeck.tui.first_read import FirstRead, before_the_fork

    ws = ws.with_read_only(read_only)
    before_the_fork()
    first_read = FirstRead.start(ws)  # before Textual is imported: the process has one thread
    from teamdeck.tui.app import create_app

    return create_app(ws, watch=watch, force_polling=force_polling, first_read=first_read)
