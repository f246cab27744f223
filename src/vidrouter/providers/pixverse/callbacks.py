"""PixVerse's signed webhooks (docs.platform.pixverse.ai, "Webhook integration").

A delivery is a JSON POST with `Webhook-Timestamp` (Unix seconds), `Webhook-Nonce` (32
alphanumerics) and `Webhook-Signature`: Base64(HMAC-SHA256(secret, timestamp + "\\n" + nonce
+ "\\n" + payload)), where payload is the body's fields as a query string, keys sorted, values
URL-encoded (`has_audio=true&id=123456789&status=1&url=https%3A%2F%2F...`). PixVerse wants the
literal body `ok` back (`ACK`), else it retries for hours. The webhook's `id` is the video id
(a string there), and a delivery only ever tells us to poll that video now.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
import time
from collections.abc import Mapping
from urllib.parse import urlencode

SECRET_ENV = "PIXVERSE_WEBHOOK_SECRET"  # the console's webhook Secret Key
TIMESTAMP = "webhook-timestamp"
NONCE = "webhook-nonce"
SIGNATURE = "webhook-signature"
TOLERANCE_SECONDS = 300.0  # PixVerse's advice: refuse deliveries older than about 5 minutes
ACK = b"ok"


def signing_payload(body: Mapping[str, object]) -> str:
    """The body's fields as PixVerse signs them: sorted `key=value`, values URL-encoded
    (booleans `true`/`false`, numbers as JSON writes them)."""
    return urlencode([(key, _text(body[key])) for key in sorted(body)])


def sign(secret: str, timestamp: str, nonce: str, body: Mapping[str, object]) -> str:
    message = f"{timestamp}\n{nonce}\n{signing_payload(body)}".encode()
    digest = hmac.new(secret.encode(), message, hashlib.sha256).digest()
    return base64.b64encode(digest).decode("ascii")


def verify_webhook(
    secret: str,
    headers: Mapping[str, str],
    body: bytes,
    *,
    now: float | None = None,
    tolerance: float = TOLERANCE_SECONDS,
) -> Mapping[str, object] | None:
    """The delivery's JSON object when it is PixVerse's (signed with `secret`, fresh within
    `tolerance` seconds), else None."""
    if not secret:
        return None
    lowered = {key.lower(): value for key, value in headers.items()}
    stamp, nonce = lowered.get(TIMESTAMP, ""), lowered.get(NONCE, "")
    signature = lowered.get(SIGNATURE, "")
    if not stamp.isdigit() or not nonce or not signature:
        return None
    if abs((time.time() if now is None else now) - int(stamp)) > tolerance:
        return None
    try:
        payload = json.loads(body)
    except (ValueError, UnicodeDecodeError):
        return None
    if not isinstance(payload, dict):
        return None
    expected = sign(secret, stamp, nonce, payload)
    if not hmac.compare_digest(expected.encode(), signature.encode()):
        return None
    return payload


def job_of(
    secret: str, headers: Mapping[str, str], body: bytes, *, now: float | None = None
) -> str | None:
    """The video id a verified delivery names (PixVerse's job id), else None."""
    payload = verify_webhook(secret, headers, body, now=now)
    found = payload.get("id") if payload is not None else None
    if isinstance(found, bool) or not isinstance(found, str | int):
        return None
    text = str(found)
    return text if text.isdigit() else None


def _text(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return value
    return json.dumps(value, separators=(",", ":"))


__all__ = ["ACK", "SECRET_ENV", "job_of", "sign", "signing_payload", "verify_webhook"]
