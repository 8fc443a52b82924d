"""The demo's time: the moment demo-workspace/ was captured, and a copy of it moved to now.

demo-workspace/ is generated with a fixed clock (its history ends just before
:data:`DEMO_NOW`), so its ages ("gate waiting 45 min") read right only at that moment.
``teamdeck demo`` therefore rebases the copy it makes (:func:`rebase`): every timestamp
in it moves by the same amount, :data:`DEMO_NOW` becoming the moment of the copy. The
relative ages are kept, and from then on everything is on the real clock: the TUI, the
runner, the agents it runs, and a ``teamdeck send`` or ``teamdeck status`` typed in
another shell, which know no other clock. The demo is one world. The shipped directory
stays as it is (tests and snapshots read it on a fixed clock at :data:`DEMO_NOW`).

What moves, in every UTF-8 file of the copy (JSON, JSONL, YAML, and the dates
human-notes.md writes), each kept in its own form (fraction digits, offset, ``T`` or a
space; inside JSON that a message's text holds too):

* ISO-8601 timestamps: ``2026-03-01T11:15:00.000Z``, ``2026-11-23T09:12:40+08:00``,
  ``2026-03-01 09:21:00`` (no offset: UTC);
* epoch milliseconds within :data:`EPOCH_MS_SPAN` of :data:`DEMO_NOW`: a team's
  ``createdAt``, a member's ``joinedAt``, the time in a request id
  (``shutdown-1772365800000@test-writer``), the same everywhere it is written, so a
  request and its answer still match.

A gate remembers the digest of the final.json that raised it (``outputDigest``): a file
whose bytes moved has its old digest replaced by the new one wherever it is written, so
the TUI's first join sees the outputs it already joined and opens no gate anew. ULIDs
keep their time part: nothing reads a time from one, and those made later still sort
after them.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

from teamdeck.protocol.task.worker_outputs import output_digest

DEMO_NOW = datetime(2026, 3, 1, 12, 0, 0, tzinfo=UTC)
"""The moment demo-workspace/ was "captured" (its last file is a few minutes older)."""

EPOCH_MS_SPAN = timedelta(days=3650)
"""How far from :data:`DEMO_NOW` a 13-digit number may be and still be taken for a
moment in epoch milliseconds (any other number is left as it is)."""

_ISO = re.compile(
    r"(?<!\d)(?P<date>\d{4}-\d{2}-\d{2})(?P<sep>[T ])(?P<time>\d{2}:\d{2}:\d{2})"
    r"(?:\.(?P<frac>\d{1,6}))?(?P<zone>Z|[+-]\d{2}:\d{2})?(?!\d|\.\d)"
)
_EPOCH_MS = re.compile(r"(?<![0-9A-Za-z])\d{13}(?![0-9A-Za-z])")


def rebase(root: Path, *, to: datetime, start: datetime = DEMO_NOW) -> timedelta:
    """Move every timestamp in the files under ``root`` by ``to - start``, in whole
    seconds (see the module's docstring); the amount moved.

    Raises:
        OSError: a file could not be read or written.
    """
    delta = timedelta(seconds=round((to - start).total_seconds()))
    before: dict[Path, bytes] = {}
    after: dict[Path, str] = {}
    for path in sorted(root.rglob("*")):
        if path.is_symlink() or not path.is_file():
            continue
        data = path.read_bytes()
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            continue
        before[path], after[path] = data, shift_text(text, delta, start=start)
    digests = {
        output_digest(data): output_digest(after[path].encode("utf-8"))
        for path, data in before.items()
        if after[path].encode("utf-8") != data
    }
    for path, text in after.items():
        for old, new in digests.items():
            text = text.replace(old, new)
        if text.encode("utf-8") != before[path]:
            path.write_text(text, encoding="utf-8", newline="")
    return delta


def shift_text(text: str, delta: timedelta, *, start: datetime = DEMO_NOW) -> str:
    """``text`` with every ISO-8601 timestamp and every epoch-milliseconds moment near
    ``start`` moved by ``delta``, each written in the form it had."""
    text = _ISO.sub(lambda match: _shift_iso(match, delta), text)
    low = int((start - EPOCH_MS_SPAN).timestamp() * 1000)
    high = int((start + EPOCH_MS_SPAN).timestamp() * 1000)
    shift_ms = round(delta.total_seconds() * 1000)

    def epoch(match: re.Match[str]) -> str:
        value = int(match.group())
        return str(value + shift_ms) if low <= value <= high else match.group()

    return _EPOCH_MS.sub(epoch, text)


def _shift_iso(match: re.Match[str], delta: timedelta) -> str:
    """One matched timestamp moved by ``delta``, in its own offset and precision (as
    it was when it is not a real date, such as ``2026-13-45 99:00:00``)."""
    frac, zone = match["frac"] or "", match["zone"]
    if zone is None or zone == "Z":
        tz = UTC
    else:
        sign = -1 if zone[0] == "-" else 1
        tz = timezone(sign * timedelta(hours=int(zone[1:3]), minutes=int(zone[4:6])))
    try:
        moment = datetime.fromisoformat(f"{match['date']}T{match['time']}.{frac.ljust(6, '0')}").replace(tzinfo=tz)
    except ValueError:
        return match.group()
    moved = (moment + delta).astimezone(tz)
    text = moved.strftime(f"%Y-%m-%d{match['sep']}%H:%M:%S")
    if frac:
        text += "." + f"{moved.microsecond:06d}"[: len(frac)]
    return text + (zone or "")
