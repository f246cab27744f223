"""Standard Webhooks signing (https://www.standardwebhooks.com), over the reference package."""

from __future__ import annotations

from datetime import datetime

from standardwebhooks.webhooks import Webhook


def signature_headers(
    secret: str, message_id: str, timestamp: datetime, body: str
) -> dict[str, str]:
    """The three headers a receiver verifies; `webhook-id` stays the same across retries."""
    signature = Webhook(secret).sign(message_id, timestamp, body)
    return {
        "webhook-id": message_id,
        "webhook-timestamp": str(int(timestamp.timestamp())),
        "webhook-signature": signature,
    }
