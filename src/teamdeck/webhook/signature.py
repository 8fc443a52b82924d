"""Is a delivery from Gitea? ``X-Gitea-Signature`` (else ``X-Gogs-Signature``,
``X-Hub-Signature-256``) must be the hex HMAC-SHA256 of the raw body keyed with the
shared secret, compared in constant time. Checked before anything is read or written.

Only the exact form Gitea sends is taken (B31): lower-case hex, bare in
``X-Gitea-Signature`` and ``X-Gogs-Signature``, after ``sha256=`` in
``X-Hub-Signature-256``. An upper-case digest, a ``sha256=`` where none belongs, or
spaces around it are no signature Gitea makes, and are refused."""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Mapping

SIGNATURE_HEADERS = {"X-Gitea-Signature": "", "X-Gogs-Signature": "", "X-Hub-Signature-256": "sha256="}
"""Each header Gitea signs a delivery in, in the order looked for, with what it puts
before the hex digest."""


def signature_ok(secret: str, body: bytes, signature: str | None, prefix: str = "") -> bool:
    """Whether ``signature`` is exactly ``prefix`` and the lower-case hex HMAC-SHA256 of
    ``body`` keyed with ``secret`` (compared in constant time)."""
    if not signature or not secret:
        return False
    expected = prefix + hmac.new(secret.encode("utf-8"), body, hashlib.sha256).hexdigest()
    return hmac.compare_digest(expected.encode("ascii"), signature.encode("ascii", "replace"))


def signed(secret: str, headers: Mapping[str, str], body: bytes) -> bool:
    """Whether the delivery's signature header (the first of :data:`SIGNATURE_HEADERS`
    present, any case) signs ``body`` with ``secret`` in that header's form."""
    lowered = {key.lower(): value for key, value in headers.items()}
    for name, prefix in SIGNATURE_HEADERS.items():
        if name.lower() in lowered:
            return signature_ok(secret, body, lowered[name.lower()], prefix)
    return False
