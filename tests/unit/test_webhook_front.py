"""The HTTP side of a Gitea delivery lives in the webhook front: the signature check and
each outcome's status; the protocol only says what happened."""

from __future__ import annotations

import hashlib
import hmac

import pytest

from teamdeck.protocol.forge.deliveries import Outcome
from teamdeck.webhook.app import status_of
from teamdeck.webhook.signature import signed


@pytest.mark.parametrize(
    ("outcome", "status"),
    [
        (Outcome("applied"), 200),
        (Outcome("duplicate"), 200),
        (Outcome("ignored"), 202),
        (Outcome("invalid"), 400),
        (Outcome("failed"), 500),
        (Outcome("failed", busy=True), 503),
    ],
)
def test_each_outcome_has_its_status(outcome: Outcome, status: int) -> None:
    assert status_of(outcome) == status
    assert outcome.to_json()["ok"] is (status < 300)


def test_the_signature_is_the_hmac_of_the_raw_body_under_any_header_case() -> None:
    body = b'{"action":"opened"}'
    good = hmac.new(b"s3cret", body, hashlib.sha256).hexdigest()
    assert signed("s3cret", {"x-gitea-signature": good}, body)
    assert signed("s3cret", {"X-Hub-Signature-256": f"sha256={good}"}, body)
    assert not signed("s3cret", {"X-Gitea-Signature": good}, body + b" ")
    assert not signed("other", {"X-Gitea-Signature": good}, body)
    assert not signed("s3cret", {}, body)
    assert not signed("", {"X-Gitea-Signature": good}, body)


@pytest.mark.parametrize(
    ("header", "form"),
    [
        ("X-Gitea-Signature", "{hex_upper}"),
        ("X-Gitea-Signature", "sha256={hex}"),
        ("X-Gitea-Signature", "SHA256={hex}"),
        ("X-Gitea-Signature", " {hex} "),
        ("X-Gogs-Signature", "sha256={hex}"),
        ("X-Hub-Signature-256", "{hex}"),
        ("X-Hub-Signature-256", "sha256={hex_upper}"),
        ("X-Hub-Signature-256", "SHA256={hex}"),
    ],
)
def test_b31_only_the_exact_form_gitea_sends_is_taken(header: str, form: str) -> None:
    """B31 (docs/reliability.md): Gitea signs with lower-case hex, bare in
    X-Gitea-Signature and X-Gogs-Signature, after ``sha256=`` in X-Hub-Signature-256.
    An upper-case digest or a prefix where none belongs was accepted (the check folded
    case and dropped any ``sha256=``); no Gitea sends it, so it is refused now."""
    body = b'{"action":"opened"}'
    good = hmac.new(b"s3cret", body, hashlib.sha256).hexdigest()
    assert signed("s3cret", {header: form.format(hex=good, hex_upper=good.upper())}, body) is False
