"""Inbound provider callbacks: per-generation URLs carrying an unguessable token.

A callback is only ever a hint to poll now: it carries no authority over a generation's
state, which changes only on what the provider's own API answers to our poll. A forged or
replayed callback can therefore at most cause an early poll.
"""

from __future__ import annotations

import hashlib
import hmac
from urllib.parse import urlsplit

from vidrouter.domain.addresses import forbidden_host_reason

CALLBACK_PATH = "/v1/provider-callbacks"


class CallbackTokens:
    def __init__(self, secret: str, public_url: str, enabled: bool) -> None:
        self._secret = secret.encode("utf-8")
        self._public_url = public_url.rstrip("/")
        self.enabled = enabled

    def token(self, generation_id: str) -> str:
        mac = hmac.new(self._secret, generation_id.encode("utf-8"), hashlib.sha256)
        return mac.hexdigest()[:40]

    def url_for(self, generation_id: str) -> str | None:
        if not self.enabled:
            return None
        return f"{self._public_url}{CALLBACK_PATH}/{generation_id}/{self.token(generation_id)}"

    def verify(self, generation_id: str, token: str) -> bool:
        return hmac.compare_digest(self.token(generation_id).encode(), token.encode())


def callbacks_enabled(mode: str, public_url: str) -> bool:
    """ "auto" turns them on only where providers could reach us (not a loopback URL)."""
    if mode != "auto":
        return mode == "on"
    host = urlsplit(public_url).hostname or ""
    return forbidden_host_reason(host) is None
