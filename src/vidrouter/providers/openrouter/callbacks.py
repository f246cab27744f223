"""OpenRouter's signed `callback_url` deliveries: `X-OpenRouter-Signature: t=...,v1=...`."""

from __future__ import annotations

import hashlib
import hmac
import time
from collections.abc import Mapping

SIGNATURE_HEADER = "x-openrouter-signature"
CALLBACK_TOLERANCE_SECONDS = 300.0


def verify_callback(
    secret: str,
    headers: Mapping[str, str],
    body: bytes,
    *,
    now: float | None = None,
    tolerance: float = CALLBACK_TOLERANCE_SECONDS,
) -> bool:
    """Whether a `callback_url` delivery is OpenRouter's: `X-OpenRouter-Signature:
    t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>," + raw body)>`, fresh within
    `tolerance` seconds (the workspace's webhook signing secret)."""
    if not secret:
        return False
    header = next((v for k, v in headers.items() if k.lower() == SIGNATURE_HEADER), None)
    if not header:
        return False
    stamp, signatures = None, []
    for part in header.split(","):
        key, _, value = part.strip().partition("=")
        if key == "t":
            stamp = value
        elif key == "v1":
            signatures.append(value)
    if stamp is None or not stamp.isdigit() or not signatures:
        return False
    if abs((time.time() if now is None else now) - int(stamp)) > tolerance:
        return False
    expected = sign_callback(secret, stamp, body)
    return any(hmac.compare_digest(expected, s) for s in signatures)


def sign_callback(secret: str, timestamp: str, body: bytes) -> str:
    return hmac.new(secret.encode(), timestamp.encode() + b"," + body, hashlib.sha256).hexdigest()
