"""Verifying a webhook delivery: Standard Webhooks signature, then the typed event.

Anyone can POST to a webhook receiver, so every malformed input (a body that is not UTF-8,
a signature header without its comma, a timestamp that is not a number, a bad secret) is a
`WebhookVerificationError` in our words, never Python's. What the `standardwebhooks` package
accepts is accepted here too: it reads the timestamp as a number (`"1795737732.0"`
included) and signs its whole seconds."""

from __future__ import annotations

import math
from collections.abc import Mapping
from datetime import UTC, datetime

from pydantic import ValidationError
from standardwebhooks.webhooks import EmptyWebhookSecretError, Webhook
from standardwebhooks.webhooks import WebhookVerificationError as _SignatureError

from vidrouter.client.errors import WebhookVerificationError
from vidrouter.client.types import Generation, WebhookEvent


def verify_webhook(
    body: bytes | str, headers: Mapping[str, str] | Mapping[bytes, bytes], secret: str
) -> WebhookEvent:
    """The event of a delivery whose signature (any of them, during a secret rotation) matches
    `secret` (`whsec_...`) and whose timestamp is within five minutes; else
    `WebhookVerificationError`. Pass the body exactly as received, before any JSON parsing."""
    lowered = {_text(k).lower(): _text(v) for k, v in headers.items()}
    try:
        text = body.decode("utf-8") if isinstance(body, bytes) else body
    except UnicodeDecodeError:
        raise WebhookVerificationError("webhook not verified: the body is not UTF-8") from None
    try:
        webhook = Webhook(secret)
    except (EmptyWebhookSecretError, ValueError, TypeError):
        raise WebhookVerificationError(
            "the webhook secret is not a Standard Webhooks secret (whsec_ and base64)"
        ) from None
    try:
        webhook.verify(text, lowered, json_parse=False)
    except _SignatureError as exc:
        raise WebhookVerificationError(f"webhook not verified: {exc}") from None
    except (ValueError, TypeError):  # the signature header's parts are not `v1,<base64>`
        raise WebhookVerificationError(
            "webhook not verified: the webhook-signature header is malformed "
            "(expected space-separated v1,<base64> signatures)"
        ) from None
    try:
        generation = Generation.model_validate_json(text)
    except ValidationError as exc:
        first = exc.errors(include_url=False, include_input=False)[0]
        raise WebhookVerificationError(
            f"webhook body is not a generation: {first['msg']}"
        ) from None
    # Verified, so the timestamp is a number of seconds that standardwebhooks read as such.
    seconds = math.floor(float(lowered["webhook-timestamp"]))
    return WebhookEvent(
        id=lowered["webhook-id"],
        timestamp=datetime.fromtimestamp(seconds, UTC),
        generation=generation,
    )


def _text(value: str | bytes) -> str:
    """A header name or value as text (some servers hand them over as bytes)."""
    return value.decode("latin-1") if isinstance(value, bytes) else str(value)
