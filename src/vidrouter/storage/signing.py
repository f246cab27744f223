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
        if not expires or not signature or not (expires.isascii() and expires.isdigit()):
            return False
        if int(expires) < now.timestamp():
            return False
        return hmac.compare_digest(self._mac(key, int(expires)).encode(), signature.encode())
