"""Standard Webhooks signing (https://www.standardwebhooks.com), over the reference package."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from standardwebhooks.webhooks import Webhook


def signature_headers(
    secrets: str | Sequence[str], message_id: str, timestamp: datetime, body: str
) -> dict[str, str]:
    """The three headers a receiver verifies; `webhook-id` stays the same across retries.
    With several secrets (a rotation's overlap) `webhook-signature` lists one `v1,<sig>`
    per secret, space-separated: a receiver holding any one of them verifies."""
    keys = (secrets,) if isinstance(secrets, str) else tuple(secrets)
    return {
        "webhook-id": message_id,
        "webhook-timestamp": str(int(timestamp.timestamp())),
        "webhook-signature": " ".join(Webhook(k).sign(message_id, timestamp, body) for k in keys),
    }
