"""Is a delivery from Gitea? ``X-Gitea-Signature`` (else ``X-Gogs-Signature``,
``X-Hub-Signature-256``) must be the hex HMAC-SHA256 of the raw body keyed with the
shared secret, compared in constant time. Checked before anything is read or written."""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import Mapping

SIGNATURE_HEADERS = ("X-Gitea-Signature", "X-Gogs-Signature", "X-Hub-Signature-256")


def signature_ok(secret: str, body: bytes, signature: str | None) -> bool:
    """Whether ``signature`` is the hex HMAC-SHA256 of ``body`` keyed with ``secret`` (constant time)."""
    if not signature or not secret:
        return False
    expected = hmac.new(secret.encode("utf-8"), body, hashlib.sha256).hexdigest()
    given = signature.strip().lower().removeprefix("sha256=")
    return hmac.compare_digest(expected.encode("ascii"), given.encode("ascii", "replace"))


def signed(secret: str, headers: Mapping[str, str], body: bytes) -> bool:
    """Whether the delivery's signature header (the first of :data:`SIGNATURE_HEADERS`
    present, any case) signs ``body`` with ``secret``."""
    lowered = {key.lower(): value for key, value in headers.items()}
    signature = next((lowered[name.lower()] for name in SIGNATURE_HEADERS if name.lower() in lowered), None)
    return signature_ok(secret, body, signature)
