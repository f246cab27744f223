"""Verifying a webhook delivery: Standard Webhooks signature, then the typed event."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime

from pydantic import ValidationError
from standardwebhooks.webhooks import Webhook
from standardwebhooks.webhooks import WebhookVerificationError as _SignatureError

from vidrouter.client.errors import WebhookVerificationError
from vidrouter.client.types import Generation, WebhookEvent


def verify_webhook(body: bytes | str, headers: Mapping[str, str], secret: str) -> WebhookEvent:
    """The event of a delivery whose signature (any of them, during a secret rotation) matches
    `secret` (`whsec_...`) and whose timestamp is within five minutes; else
    `WebhookVerificationError`. Pass the body exactly as received, before any JSON parsing."""
    lowered = {k.lower(): v for k, v in headers.items()}
    text = body.decode("utf-8") if isinstance(body, bytes) else body
    try:
        Webhook(secret).verify(text, lowered, json_parse=False)
    except (_SignatureError, ValueError) as exc:  # ValueError: a malformed header or secret
        raise WebhookVerificationError(f"webhook not verified: {exc}") from exc
    try:
        generation = Generation.model_validate_json(text)
    except ValidationError as exc:
        raise WebhookVerificationError(f"webhook body is not a generation: {exc}") from exc
    return WebhookEvent(
        id=lowered["webhook-id"],
        timestamp=datetime.fromtimestamp(int(lowered["webhook-timestamp"]), UTC),
        generation=generation,
    )
