"""Reading and writing MCP server heartbeats (model/connection.py).

A heartbeat is one small JSON file, replaced atomically; readers never need a lock.
"""

from __future__ import annotations

from teamdeck.errors import InvalidFile
from teamdeck.model.connection import Connection
from teamdeck.store.atomic import atomic_replace
from teamdeck.store.files import ensure_dir, list_entries, read_optional
from teamdeck.store.loaders import dumps_json, parse_json, validate_raw
from teamdeck.store.paths import InvalidId, check_member
from teamdeck.store.workspace import Workspace

MAX_BYTES = 64 * 1024


def write_connection(ws: Workspace, connection: Connection) -> None:
    """Replace the member's heartbeat file with ``connection``.

    Raises:
        ReadOnly, InvalidId, WriteFailed.
    """
    ws.require_writable(f"record the MCP connection of '{connection.member}'")
    path = ws.connection_file(connection.team, connection.member)
    ensure_dir(path.parent)
    data = (dumps_json(connection.model_dump(mode="json", exclude_none=True), indent=2) + "\n").encode()
    atomic_replace(path, data, crash_prefix="connection")


def remove_connection(ws: Workspace, team: str, member: str) -> None:
    """Remove the member's heartbeat file (gone already is fine)."""
    ws.connection_file(team, member).unlink(missing_ok=True)


def read_connections(ws: Workspace, team: str) -> tuple[dict[str, Connection], list[str]]:
    """Every heartbeat of ``team``: member name (as in the file name) → heartbeat, and
    one line per file that could not be read."""
    found: dict[str, Connection] = {}
    problems: list[str] = []
    directory = ws.connections_dir(team)
    try:
        entries = list_entries(directory)
    except InvalidFile as err:
        return {}, [str(err)]
    for entry in entries:
        if not entry.name.endswith(".json") or entry.name.startswith("."):
            continue
        name = entry.name[: -len(".json")]
        shown = ws.rel(entry.path)
        try:
            check_member(name)
            data = read_optional(entry.path, MAX_BYTES, shown=shown)
            if data is None:
                continue
            found[name] = validate_raw(Connection, parse_json(data, shown), shown)
        except InvalidId as err:
            problems.append(f"{shown}: {err}; ignored")
        except InvalidFile as err:
            problems.append(str(err))
    return found, problems
