"""A recorded Gitea delivery: a folder holding ``headers.json`` (header name → value) and
the exact ``body.json`` bytes, as in tests/fixtures/gitea/. ``teamdeck forge replay``
posts them to a running server; tests read them too."""

from __future__ import annotations

import json
from pathlib import Path

from teamdeck.errors import InvalidFile
from teamdeck.store.files import read_optional

SKIPPED_HEADERS = frozenset({"content-length", "host", "transfer-encoding", "connection"})
"""Headers of the recording that belong to the connection it came on, not to the delivery."""


def read_delivery(folder: Path) -> tuple[dict[str, str], bytes]:
    """The headers and body bytes of a recorded delivery folder.

    Raises:
        InvalidFile: a file is missing, or headers.json is not an object of strings.
    """
    body = read_optional(folder / "body.json")
    raw_headers = read_optional(folder / "headers.json")
    if body is None or raw_headers is None:
        raise InvalidFile(folder, "", "a delivery folder needs headers.json and body.json")
    try:
        headers = json.loads(raw_headers)
    except ValueError as err:
        raise InvalidFile(folder / "headers.json", "", f"not JSON: {err}") from None
    if not isinstance(headers, dict) or not all(isinstance(v, str) for v in headers.values()):
        raise InvalidFile(folder / "headers.json", "", "must be an object of header name -> string")
    return {name: value for name, value in headers.items() if name.lower() not in SKIPPED_HEADERS}, body
