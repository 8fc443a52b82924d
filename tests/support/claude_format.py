"""What tests/fixtures/claude-code/FORMAT.md lists of Claude Code's team files (every
mailbox frame with its fields; every field by file), and what a recorded history
(tests/support/claude_team_recorder.py) holds, so a test can name what a client version wrote
that FORMAT.md does not know yet."""

from __future__ import annotations

import json
import re

from support.claude_team_recorder import Version
from support.locations import FIXTURES
from teamdeck.model.team import decode_text

FORMAT = FIXTURES / "FORMAT.md"


# --- what FORMAT.md lists -------------------------------------------------------------


def _table(section: str) -> list[list[str]]:
    """The rows (cells) of the first table under the ``## <section>`` heading of FORMAT.md."""
    text = FORMAT.read_text(encoding="utf-8")
    body = text.split(f"\n## {section}\n", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in body.splitlines() if line.startswith("|")][2:]  # after the header and its rule
    return [[cell.strip() for cell in row.strip("|").split("|")] for row in rows]


def _names(cell: str) -> set[str]:
    """The backticked names of a cell, leaving out what parentheses say (values, notes)."""
    while re.search(r"\([^()]*\)", cell):
        cell = re.sub(r"\([^()]*\)", "", cell)
    return set(re.findall(r"`([A-Za-z_][A-Za-z0-9_]*)`", cell))


def listed_frames() -> dict[str, tuple[set[str], str]]:
    """Frame type → (its fields, what teamdeck does with it), from FORMAT.md."""
    return {_names(row[0]).pop(): (_names(row[2]), row[4]) for row in _table("Mailbox frames")}


def listed_fields() -> dict[str, set[str]]:
    """File → the fields FORMAT.md lists for it ("inbox entry", "config.json member"...)."""
    return {row[0]: _names(row[1]) for row in _table("Fields seen")}


# --- what a capture holds -------------------------------------------------------------


def seen_in(versions: list[Version]) -> tuple[dict[str, set[str]], dict[str, set[str]]]:
    """Every frame type with its fields, and every field by file, in ``versions`` (a
    version caught mid-rewrite, not valid JSON, is skipped)."""
    frames: dict[str, set[str]] = {}
    fields: dict[str, set[str]] = {}

    def add(label: str, keys: object) -> None:
        fields.setdefault(label, set()).update(keys)  # type: ignore[arg-type]

    for version in versions:
        if version.text is None or ".tmp." in version.path or not version.path.endswith(".json"):
            continue
        try:
            value = json.loads(version.text)
        except ValueError:  # caught mid-rewrite (the client rewrites config.json in place)
            continue
        if version.path.endswith("/config.json"):
            add("config.json", value)
            add("config.json leadProcess", value.get("leadProcess", {}))
            for member in value["members"]:
                add("config.json member", member)
        elif "/inboxes/" in version.path:
            for entry in value:
                add("inbox entry", entry)
                kind = decode_text(entry["text"])
                if kind.KIND != "plain":
                    raw = kind.to_payload()
                    frames.setdefault(raw["type"], set()).update(raw)
        elif version.path.startswith("tasks/"):
            add("task file", value)
    return frames, fields


def not_in_format(versions: list[Version]) -> list[str]:
    """What ``versions`` hold that FORMAT.md does not list: ``frame <type>``,
    ``<type>.<field>`` and ``<file>: <field>`` (empty when FORMAT.md knows it all)."""
    frames, fields = seen_in(versions)
    known_frames, known_fields = listed_frames(), listed_fields()
    unknown = [f"frame {kind}" for kind in sorted(set(frames) - set(known_frames))]
    unknown += sorted(
        f"{kind}.{name}"
        for kind, names in frames.items()
        if kind in known_frames
        for name in names - known_frames[kind][0]
    )
    unknown += sorted(
        f"{label}: {name}" for label, names in fields.items() for name in names - known_fields.get(label, set())
    )
    return unknown
