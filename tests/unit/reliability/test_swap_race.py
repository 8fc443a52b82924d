"""A directory swapped for a symbolic link between the check and the open (docs/reliability.md S10).

S16's check (:func:`beneath`) looks at each component with ``lstat`` and the open came
after it: a link swapped in between was followed. Here the "agent" swaps at the worst
moment, deterministically: the first time teamdeck calls ``os.open`` on a path of the
workspace, which, before the fix, was after every check. Now every open walks from the
root with ``O_NOFOLLOW``, so the open itself meets the link and refuses it.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from teamdeck.errors import TeamdeckError
from teamdeck.formats.claude_code.inbox import read_inbox
from teamdeck.protocol.team.messaging.sending import send_message
from teamdeck.protocol.team.teams import add_member, create_team
from teamdeck.store.paths import EscapesWorkspace, open_beneath, parent_beneath
from teamdeck.store.workspace import Workspace

from .test_containment import contents


@pytest.fixture
def world(ws: Workspace) -> Workspace:
    """Team alpha (lead, bob) with one message to bob."""
    create_team(ws, "alpha")
    add_member(ws, "alpha", "bob")
    send_message(ws, "alpha", "bob", "first", summary="first")
    return ws


def swap_on_first_open(monkeypatch, ws: Workspace, relative: str, outside: Path) -> list[str]:
    """At the first ``os.open`` of a path under the workspace (before the fix: after
    that open's check), move ``relative`` out to ``outside`` and put a link to it in its
    place. Returns the list of what each open made after the swap really opened
    (``/proc/self/fd``), filled in as it goes (empty until the swap)."""
    real_open = os.open
    opened: list[str] = []
    swapped: list[bool] = []

    def hooked(path, *args, **kwargs):
        if not swapped and isinstance(path, (str, os.PathLike)) and str(path).startswith(str(ws.root)):
            swapped.append(True)
            opened.append("(swapped)")
            source = ws.root / relative
            shutil.move(source, outside)
            source.symlink_to(outside)
        fd = real_open(path, *args, **kwargs)
        if swapped:
            opened.append(os.readlink(f"/proc/self/fd/{fd}"))
        return fd

    monkeypatch.setattr(os, "open", hooked)
    return opened


def test_s10_a_team_directory_swapped_during_a_send_is_refused_not_written_through(world, tmp_path, monkeypatch):
    outside = tmp_path / "outside-alpha"
    before = contents(world.root / "teams/alpha")
    opened = swap_on_first_open(monkeypatch, world, "teams/alpha", outside)
    with pytest.raises((TeamdeckError, OSError)):
        send_message(world, "alpha", "bob", "second", summary="second")
    assert opened[:1] == ["(swapped)"]
    assert [path for path in opened if path.startswith(str(outside))] == []  # nothing read or written there
    moved = {path.replace(str(world.root / "teams/alpha"), str(outside)): data for path, data in before.items()}
    assert contents(outside) == moved  # nothing written through the link, no lock file made there


def test_s10_a_read_through_a_directory_swapped_in_is_refused(world, tmp_path, monkeypatch):
    outside = tmp_path / "outside-inboxes"
    opened = swap_on_first_open(monkeypatch, world, "teams/alpha/inboxes", outside)
    with pytest.raises(TeamdeckError, match="teams/alpha/inboxes is a symbolic link to .*; not followed"):
        read_inbox(world.root / "teams/alpha/inboxes/bob.json")
    assert opened[:1] == ["(swapped)"]
    assert [path for path in opened if path.startswith(str(outside))] == []


def test_s10_links_that_stay_inside_are_followed_and_an_exclusive_create_never_is(world):
    shared = world.root / "teams/alpha/shared-notes"
    shared.write_text("inside\n")
    link = world.root / "teams/alpha/notes-link"
    link.symlink_to(shared)
    fd = open_beneath(link, os.O_RDONLY)
    try:
        assert os.read(fd, 100) == b"inside\n"
    finally:
        os.close(fd)
    with pytest.raises(FileExistsError):
        open_beneath(link, os.O_WRONLY | os.O_CREAT | os.O_EXCL)
    with pytest.raises(OSError):
        open_beneath(link, os.O_RDONLY | os.O_NOFOLLOW)  # asked not to follow: refused, as os.open does
    (world.root / "teams/alpha-link").symlink_to(world.root / "teams/alpha")
    with parent_beneath(world.root / "teams/alpha-link/config.json") as (fd, name):
        assert name == "config.json"
        assert os.stat(name, dir_fd=fd).st_ino == (world.root / "teams/alpha/config.json").stat().st_ino


def test_s10_a_file_link_out_of_the_workspace_is_refused_by_the_open(world, tmp_path):
    secret = tmp_path / "secret.txt"
    secret.write_text("outside\n")
    (world.root / "teams/alpha/leak").symlink_to(secret)
    with pytest.raises(EscapesWorkspace, match="teams/alpha/leak is a symbolic link to"):
        open_beneath(world.root / "teams/alpha/leak", os.O_RDONLY)
