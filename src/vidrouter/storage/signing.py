"""Signed, expiring content URLs: an HMAC capability, fetchable without an API key.

Expiry times are rounded up to the hour, so that a client reading the same generation many
times within an hour gets the same URL (and browsers can cache the video).
"""

from __future__ import annotations

import hashlib
import hmac
import math
from datetime import datetime
from urllib.parse import quote

CONTENT_PREFIX = "/content/"
_ROUND = 3600
# `expires` is unix seconds: 12 digits reach the year 33658. A longer value, or one with a
# leading zero, is not a URL we signed; refusing it before int() keeps the check cheap and
# gives each URL one spelling.
MAX_EXPIRES_DIGITS = 12
MAX_SIGNATURE_CHARS = 128


class UrlSigner:
    def __init__(self, secret: str, public_url: str, ttl_seconds: int) -> None:
        self._secret = secret.encode("utf-8")
        self._public_url = public_url.rstrip("/")
        self._ttl = ttl_seconds

    def _mac(self, key: str, expires: int) -> str:
        message = f"{key}\n{expires}".encode()
        return hmac.new(self._secret, message, hashlib.sha256).hexdigest()[:43]

    def expires_for(self, now: datetime) -> int:
        """The expiry a URL signed now carries (the same for a whole hour)."""
        return int(math.ceil((now.timestamp() + self._ttl) / _ROUND) * _ROUND)

    def sign(self, key: str, now: datetime) -> str:
        expires = self.expires_for(now)
        return (
            f"{self._public_url}{CONTENT_PREFIX}{quote(key)}"
            f"?expires={expires}&signature={self._mac(key, expires)}"
        )

    def verify(self, key: str, expires: str | None, signature: str | None, now: datetime) -> bool:
        if not expires or not signature or not canonical_expires(expires):
            return False
        if len(signature) > MAX_SIGNATURE_CHARS or not signature.isascii():
            return False
        when = int(expires)
        if when < now.timestamp():
            return False
        return hmac.compare_digest(self._mac(key, when).encode(), signature.encode())


def canonical_expires(expires: str) -> bool:
    """Unix seconds as we write them: ASCII digits, no leading zero, at most 12 of them."""
    return (
        0 < len(expires) <= MAX_EXPIRES_DIGITS
        and expires.isascii()
        and expires.isdigit()
        and expires[0] != "0"
    )
