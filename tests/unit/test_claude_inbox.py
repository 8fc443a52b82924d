"""Claude Code inboxes: tolerant reading (B14, B15), the mkdir-locked writer (R4, B13, C10)."""

from __future__ import annotations

import errno
import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from support.locations import FIXTURES

from teamdeck.errors import Busy, InvalidFile, WriteFailed
from teamdeck.formats.claude_code import inbox as inbox_store
from teamdeck.formats.claude_code import json_files as claude_json
from teamdeck.formats.claude_code.inbox import append_message, mark_read, mark_unread, read_inbox, take_unread
from teamdeck.formats.claude_code.json_files import encode_pretty
from teamdeck.formats.inboxes import UnreadableInbox
from teamdeck.store import fs as fs_seam
from teamdeck.store.dirlock import dir_locked, lock_dir_for
from teamdeck.store.lock_owner import owner_path, read_owner

LEAD_INBOX = FIXTURES / "synthesized" / "teams" / "fixture-team" / "inboxes" / "team-lead.json"
NO_RETRY: tuple[float, ...] = ()


def _message(n: int, **extra) -> dict:
    return {
        "from": "worker-a",
        "text": f"message {n}",
        "summary": f"m{n}",
        "timestamp": f"2026-03-01T10:00:{n % 60:02d}.000Z",
        "read": False,
        **extra,
    }


@pytest.fixture
def lead_inbox(tmp_path: Path) -> Path:
    """A private copy of the synthesized lead inbox (five kinds of message)."""
    target = tmp_path / "inboxes" / "team-lead.json"
    target.parent.mkdir()
    shutil.copy(LEAD_INBOX, target)
    return target


# --- reading ------------------------------------------------------------------------


def test_a_missing_inbox_is_empty(tmp_path: Path) -> None:
    inbox = read_inbox(tmp_path / "nobody.json")
    assert inbox.recipient == "nobody" and inbox.entries == []


@pytest.mark.parametrize(
    "content, why",
    [
        (b'{"from": "a"}', "expected a JSON array (got object)"),
        (b"", "empty file"),
        (b'[{"from": "a", "text": "x"', "invalid JSON"),
        (b'"just a string"', "expected a JSON array (got string)"),
    ],
)
def test_b14_unreadable_inbox_names_the_file_and_the_problem(tmp_path: Path, content: bytes, why: str) -> None:
    path = tmp_path / "team-lead.json"
    path.write_bytes(content)
    with pytest.raises(UnreadableInbox) as caught:
        read_inbox(path)
    assert str(caught.value).startswith(f"inbox team-lead.json unreadable: {why}") or (
        why == "invalid JSON" and "invalid JSON" in str(caught.value)
    )
    assert isinstance(caught.value, InvalidFile)
    assert path.read_bytes() == content  # never rewritten


def test_b14_exact_message_for_an_object(tmp_path: Path) -> None:
    path = tmp_path / "team-lead.json"
    path.write_text('{"messages": []}')
    with pytest.raises(
        UnreadableInbox, match=r"^inbox team-lead.json unreadable: expected a JSON array \(got object\)$"
    ):
        read_inbox(path)


def test_a_half_written_inbox_is_retried_until_it_is_whole(tmp_path: Path, monkeypatch) -> None:
    path = tmp_path / "w.json"
    whole = encode_pretty([_message(1)])
    path.write_bytes(whole[: len(whole) // 2])
    reads = []
    real = claude_json.read_capped

    def read_capped(target, limit):
        reads.append(target)
        if len(reads) == 2:  # the writer finishes between our first and second attempt
            path.write_bytes(whole)
        return real(target, limit)

    monkeypatch.setattr(claude_json, "read_capped", read_capped)
    inbox = read_inbox(path)
    assert [entry.message.text for entry in inbox.messages] == ["message 1"]
    assert len(reads) == 2


def test_entries_that_are_not_messages_are_reported_and_kept(tmp_path: Path) -> None:
    path = tmp_path / "w.json"
    path.write_text(json.dumps([_message(1), "stray", {"from": "x", "timestamp": "t"}, _message(2)]))
    inbox = read_inbox(path)
    assert [entry.index for entry in inbox.messages] == [0, 3]
    assert inbox.problems == ["entry 2: not a JSON object", "entry 3: text: Field required"]
    append_message(path, _message(3))
    after = json.loads(path.read_text())
    assert after[1] == "stray" and after[2] == {"from": "x", "timestamp": "t"} and len(after) == 5


def test_b15_an_inbox_of_1_8_mb_and_thousands_of_messages_loads(tmp_path: Path) -> None:
    path = tmp_path / "team-lead.json"
    body = "x" * 1500
    messages = [_message(n, text=f"{n} {body}") for n in range(1200)]
    path.write_bytes(encode_pretty(messages))
    assert path.stat().st_size > 1_800_000
    inbox = read_inbox(path)
    assert len(inbox.messages) == 1200 and len(inbox.unread) == 1200
    assert inbox.messages[-1].message.text.startswith("1199 ")


# --- writing ------------------------------------------------------------------------


def test_r4_append_creates_the_inbox_and_writes_like_claude_code(tmp_path: Path) -> None:
    path = tmp_path / "inboxes" / "worker-a.json"
    delivery = append_message(path, _message(1))
    assert delivery.confirmed and delivery.attempts == 1
    data = path.read_bytes()
    assert data == json.dumps([_message(1)], indent=2, ensure_ascii=False).encode()
    assert not data.endswith(b"\n")
    assert sorted(os.listdir(path.parent)) == ["worker-a.json"]  # no lock dir, no temp file left


def test_b13_rewriting_keeps_every_field_of_every_other_message(lead_inbox: Path) -> None:
    before = json.loads(lead_inbox.read_text())
    before[0]["futureField"] = {"nested": [1, 2, {"deep": None}]}
    before[2]["messageId"] = "m-77"
    lead_inbox.write_text(json.dumps(before))
    append_message(lead_inbox, _message(9, color="green"))
    after = json.loads(lead_inbox.read_text())
    assert after[:-1] == before
    assert after[-1] == _message(9, color="green")


def test_mark_read_touches_only_the_selected_messages(lead_inbox: Path) -> None:
    before = json.loads(lead_inbox.read_text())
    taken = mark_read(lead_inbox, lambda raw: "plan_approval_request" in raw["text"])
    assert len(taken) == 1 and taken[0]["read"] is False
    after = json.loads(lead_inbox.read_text())
    assert after[2]["read"] is True
    assert [entry for i, entry in enumerate(after) if i != 2] == [entry for i, entry in enumerate(before) if i != 2]


def test_take_unread_marks_everything_read_once(lead_inbox: Path) -> None:
    first = take_unread(lead_inbox)
    assert [json.loads(raw["text"])["type"] for raw in first] == ["plan_approval_request", "permission_request"]
    assert take_unread(lead_inbox) == []
    assert read_inbox(lead_inbox).unread == []


def test_f22_mark_unread_gives_back_only_the_selected_read_messages(lead_inbox: Path) -> None:
    """A retry gets back the messages its failed attempt read (F22): those selected are
    unread again, every other entry keeps its bytes' meaning, and a second call changes
    nothing."""
    taken = take_unread(lead_inbox)
    marked_read = json.loads(lead_inbox.read_text())
    given = mark_unread(lead_inbox, lambda raw: raw["text"] == taken[0]["text"])
    assert [raw["text"] for raw in given] == [taken[0]["text"]] and given[0]["read"] is True
    after = json.loads(lead_inbox.read_text())
    assert [entry for entry in after if entry.get("read") is False] == [{**given[0], "read": False}]
    assert [e for e in after if e["text"] != given[0]["text"]] == [
        e for e in marked_read if e["text"] != given[0]["text"]
    ]
    assert mark_unread(lead_inbox, lambda raw: raw["text"] == taken[0]["text"]) == []


def test_nothing_is_written_when_nothing_changes(lead_inbox: Path) -> None:
    take_unread(lead_inbox)
    stamp = lead_inbox.stat().st_mtime_ns, lead_inbox.stat().st_ino
    assert mark_read(lead_inbox, lambda raw: True) == []
    assert (lead_inbox.stat().st_mtime_ns, lead_inbox.stat().st_ino) == stamp


def test_an_unreadable_inbox_is_not_rewritten(tmp_path: Path) -> None:
    path = tmp_path / "w.json"
    path.write_text('{"oops": true}')
    with pytest.raises(UnreadableInbox):
        append_message(path, _message(1))
    assert path.read_text() == '{"oops": true}'
    assert not lock_dir_for(path).exists()


def test_c10_a_message_another_writer_lost_is_appended_again(tmp_path: Path, monkeypatch) -> None:
    path = tmp_path / "w.json"
    real = inbox_store._confirmed
    calls = {"n": 0}

    def losing_confirm(target, message):
        calls["n"] += 1
        if calls["n"] == 1:  # before the confirming re-read after the first append: another writer clobbered it
            path.write_text("[]")
        return real(target, message)

    monkeypatch.setattr(inbox_store, "_confirmed", losing_confirm)
    delivery = append_message(path, _message(1))
    assert delivery.confirmed and delivery.attempts == 2
    assert json.loads(path.read_text()) == [_message(1)]


def test_c10_a_message_that_keeps_vanishing_is_flagged_unconfirmed(tmp_path: Path, monkeypatch) -> None:
    path = tmp_path / "w.json"
    real = inbox_store._confirmed

    def vanishing(target, message):
        path.write_text("[]")  # a writer that ignores the lock rewrites it without ours, every time
        return real(target, message)

    monkeypatch.setattr(inbox_store, "_confirmed", vanishing)
    delivery = append_message(path, _message(1), attempts=3)
    assert not delivery.confirmed and delivery.attempts == 3


def test_the_recipient_marking_our_message_read_still_confirms_it(tmp_path: Path, monkeypatch) -> None:
    path = tmp_path / "w.json"
    real = inbox_store._confirmed

    def after_recipient(target, message):
        marked = [dict(m, read=True) for m in json.loads(path.read_text())]
        path.write_text(json.dumps(marked))  # marked read (and rewritten compactly) before our re-read
        return real(target, message)

    monkeypatch.setattr(inbox_store, "_confirmed", after_recipient)
    assert append_message(path, _message(1)).attempts == 1


# --- the mkdir lock -----------------------------------------------------------------


def test_a_held_fresh_lock_makes_writers_wait_then_report_busy(lead_inbox: Path) -> None:
    before = lead_inbox.read_bytes()
    lock_dir_for(lead_inbox).mkdir()
    with pytest.raises(Busy, match=r"inbox team-lead.json is busy: lock team-lead.json.lock held by another writer"):
        with dir_locked(lead_inbox, timeout=0.2, what="inbox team-lead.json"):
            pass
    assert lead_inbox.read_bytes() == before
    assert lock_dir_for(lead_inbox).is_dir()  # a fresh lock is not broken


def test_r4_a_stale_lock_is_broken(lead_inbox: Path) -> None:
    lock = lock_dir_for(lead_inbox)
    lock.mkdir()
    old = time.time() - 11
    os.utime(lock, (old, old))  # Claude Code's rule: older than 10 s is stale
    append_message(lead_inbox, _message(1))
    assert json.loads(lead_inbox.read_text())[-1] == _message(1)
    assert not lock.exists()


def _lock_left_by_a_killed_writer(inbox: Path) -> Path:
    holder = subprocess.run(
        [
            sys.executable,
            "-c",
            "import os, signal, sys; from pathlib import Path; from teamdeck.store.dirlock import dir_locked\n"
            "with dir_locked(Path(sys.argv[1])):\n    os.kill(os.getpid(), signal.SIGKILL)",
            str(inbox),
        ],
        capture_output=True,
        timeout=30,
    )
    assert holder.returncode == -signal.SIGKILL
    lock = lock_dir_for(inbox)
    assert lock.is_dir()  # the dead writer's lock is left behind
    return lock


def test_r4_a_lock_without_an_owner_is_broken_after_the_stale_time(lead_inbox: Path) -> None:
    lock = _lock_left_by_a_killed_writer(lead_inbox)
    owner_path(lock).unlink()  # as Claude Code leaves its locks: no owner recorded
    taken_at = lock.stat().st_mtime
    delivery = append_message(lead_inbox, _message(1), stale_after=0.3)
    assert delivery.confirmed
    assert 0.3 <= time.time() - taken_at < 5  # it waited for the lock to go stale, then broke it
    assert not lock_dir_for(lead_inbox).exists()


def test_f10_a_lock_whose_recorded_owner_died_is_broken_at_once(lead_inbox: Path, caplog) -> None:
    lock = _lock_left_by_a_killed_writer(lead_inbox)
    owner = read_owner(lock)
    assert owner is not None and owner.alive() is False
    started = time.monotonic()
    assert append_message(lead_inbox, _message(1), stale_after=30).confirmed
    assert time.monotonic() - started < 2  # not the 30 s stale time
    assert f"owner: pid {owner.pid} on host" in caplog.text
    assert not lock.exists() and not owner_path(lock).exists()


def test_inbox_is_created_where_hard_links_are_not_supported(tmp_path: Path, monkeypatch) -> None:
    def no_links(src, dst):
        raise OSError(errno.EPERM, "Operation not permitted")

    monkeypatch.setattr(os, "link", no_links)
    path = tmp_path / "w.json"
    assert append_message(path, _message(1)).confirmed
    assert json.loads(path.read_text()) == [_message(1)]
    assert sorted(os.listdir(tmp_path)) == ["w.json"]


def test_f7_a_read_only_filesystem_fails_the_append_cleanly(lead_inbox: Path) -> None:
    class ReadOnlyFs(fs_seam.OsFs):
        def mkdir(self, path, mode=0o755):
            raise OSError(errno.EROFS, "Read-only file system")

    before = lead_inbox.read_bytes()
    with fs_seam.installed(ReadOnlyFs()):
        with pytest.raises(
            WriteFailed,
            match=r"^could not lock inbox team-lead.json: Read-only file system creating "
            r"team-lead.json.lock; nothing was written$",
        ):
            append_message(lead_inbox, _message(1))
    assert lead_inbox.read_bytes() == before


def test_r4_appends_to_a_claude_code_file_give_exactly_what_claude_code_would_write(tmp_path: Path) -> None:
    path = tmp_path / "w.json"
    existing = [_message(1), _message(2, futureField={"nested": ["ünïcode", 1.5, None]})]
    path.write_bytes(encode_pretty(existing))
    added = [_message(3, text="line one\nline two \u2603"), _message(4, color="pink")]
    for message in added:
        append_message(path, message)
    assert path.read_bytes() == encode_pretty(existing + added)


def test_appends_keep_the_bytes_of_a_file_formatted_otherwise(lead_inbox: Path) -> None:
    before = lead_inbox.read_bytes()
    append_message(lead_inbox, _message(1))
    after = lead_inbox.read_bytes()
    assert after.startswith(before.rstrip()[:-1].rstrip())
    assert json.loads(after) == json.loads(before) + [_message(1)]


def test_a_read_given_an_earlier_read_takes_over_only_the_unchanged_entries(tmp_path: Path) -> None:
    """Entries equal at their place are the earlier read's objects (their decoded kind
    with them); a changed or appended entry is parsed anew; the result reads the same
    as a read from scratch."""
    path = tmp_path / "worker-b.json"
    path.write_text(json.dumps([_message(1), _message(2)]))
    earlier = read_inbox(path)
    path.write_text(json.dumps([_message(1), _message(2, read=True), _message(3)]))
    again = read_inbox(path, earlier)
    assert again.entries[0] is earlier.entries[0]
    assert again.entries[1] is not earlier.entries[1] and again.entries[1].message.read
    assert [entry.raw for entry in again.entries] == [entry.raw for entry in read_inbox(path).entries]
    assert not again.extends(earlier)
    path.write_text(json.dumps([_message(1), _message(2, read=True), _message(3), _message(4)]))
    grown = read_inbox(path, again)
    assert grown.extends(again) and len(grown.entries) == 4


def test_c17_an_append_parses_only_what_others_added_since_and_still_refuses_a_broken_array(
    tmp_path: Path, monkeypatch
) -> None:
    """C17: a writer appending again parses only the entries appended after the array it
    last knew (the stress test's 8,000 sends into one inbox parsed all of it, twice, each
    time); what it does not parse whole is still checked, and a broken tail is refused."""
    path = tmp_path / "w.json"
    append_message(path, _message(1))
    parsed: list[int] = []
    real = inbox_store.parse_json
    monkeypatch.setattr(
        inbox_store, "parse_json", lambda data, *a, **k: parsed.append(len(data)) or real(data, *a, **k)
    )
    others = json.loads(path.read_text()) + [_message(n) for n in range(2, 40)]
    path.write_bytes(encode_pretty(others))  # other writers appended, as Claude Code formats
    append_message(path, _message(40))
    assert json.loads(path.read_text()) == [*others, _message(40)]
    assert parsed and max(parsed) < path.stat().st_size * 0.99  # a part, not the file
    broken = path.read_bytes()[:-1].rstrip() + b',\n  {"from": "x", "from": "y"}\n]'
    path.write_bytes(broken)  # a duplicate key appended after what we knew
    with pytest.raises(UnreadableInbox):
        append_message(path, _message(41))
    assert path.read_bytes() == broken
