"""``teamdeck forge replay DIR...``: post recorded deliveries to a running server.

A delivery folder holds ``headers.json`` (the headers Gitea sent) and ``body.json``
(the exact bytes), as in tests/fixtures/gitea/. The bytes are posted unchanged with
the recorded headers (Content-Length is computed again), so the recorded signature
still matches when the server has the same secret.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx2

from teamdeck.errors import WriteFailed
from teamdeck.protocol.forge.recorded import read_delivery

TIMEOUT_S = 30.0


@dataclass(frozen=True)
class Replayed:
    """One delivery posted: its folder, the HTTP status and the server's answer."""

    folder: Path
    status: int
    answer: dict[str, Any]


def replay(url: str, folders: list[Path]) -> list[Replayed]:
    """Post each delivery folder to ``url`` in order.

    Raises:
        InvalidFile: a folder is not a delivery (checked before anything is posted).
        WriteFailed: the server could not be reached.
    """
    deliveries = [(folder, *read_delivery(folder)) for folder in folders]
    done: list[Replayed] = []
    with httpx2.Client(timeout=TIMEOUT_S) as client:
        for folder, headers, body in deliveries:
            try:
                response = client.post(url, content=body, headers=headers)
            except httpx2.HTTPError as err:
                raise WriteFailed(f"Could not post {folder} to {url}: {type(err).__name__}: {err}") from err
            try:
                answer = response.json()
            except ValueError:
                answer = {"detail": response.text[:200]}
            done.append(Replayed(folder, response.status_code, answer if isinstance(answer, dict) else {}))
    return done
