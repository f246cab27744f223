"""Replicate's webhooks: Standard Webhooks signatures, checked with our own clock."""

from __future__ import annotations

import hmac
from collections.abc import Mapping
from datetime import UTC, datetime, timedelta

from standardwebhooks.webhooks import EmptyWebhookSecretError, Webhook


def verify_webhook(
    secret: str,
    headers: Mapping[str, str],
    body: bytes | str,
    *,
    now: datetime | None = None,
    tolerance: timedelta = timedelta(minutes=5),
) -> bool:
    """Whether a webhook is Replicate's: Standard Webhooks `webhook-id`, `webhook-timestamp`
    and `webhook-signature` (space-separated `v1,<base64>`) over "id.timestamp.body", HMAC-SHA256
    with the account's `whsec_` secret (GET /v1/webhooks/default/secret); the clock is ours."""
    lowered = {key.lower(): value for key, value in headers.items()}
    message_id = lowered.get("webhook-id")
    stamp = lowered.get("webhook-timestamp", "")
    signatures = lowered.get("webhook-signature")
    if not message_id or not signatures or not stamp.isdigit():
        return False
    sent = datetime.fromtimestamp(int(stamp), UTC)
    if abs((now or datetime.now(UTC)) - sent) > tolerance:
        return False
    try:
        text = body if isinstance(body, str) else body.decode("utf-8")
        expected = str(Webhook(secret).sign(message_id, sent, text)).partition(",")[2]
    except (ValueError, TypeError, EmptyWebhookSecretError):  # undecodable body or secret
        return False
    return any(
        version == "v1" and hmac.compare_digest(signature.encode(), expected.encode())
        for version, _, signature in (item.partition(",") for item in signatures.split())
    )
