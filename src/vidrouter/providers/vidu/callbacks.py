"""Vidu's signed `callback_url` deliveries (platform.vidu.com/docs/callback-signature).

Vidu POSTs the task (the body of `GET /ent/v2/tasks/{id}/creations`) on each state change,
signed with HMAC-SHA256 keyed by the API token that created the task:

    X-HMAC-SIGNATURE = base64(HMAC-SHA256(token, METHOD \\n path \\n query \\n "vidu" \\n
                       Date \\n "<Name>:<value>\\n" for each header named in
                       X-HMAC-SIGNED-HEADERS, in order))

with `X-HMAC-ALGORITHM: hmac-sha256`, `X-HMAC-ACCESS-KEY: vidu`, a `Date` in HTTP format and
an `x-request-nonce`; `path` and `query` are our callback URL's. The body is not signed, so a
delivery is only ever a hint to poll the task now (what our callback route makes of it);
this check tells Vidu's deliveries from anyone else's and refuses stale ones.
"""

from __future__ import annotations

import base64
import email.utils
import hashlib
import hmac
import time
from collections.abc import Mapping
from urllib.parse import urlsplit

ACCESS_KEY = "vidu"
ALGORITHM = "hmac-sha256"
TOLERANCE_SECONDS = 300.0


def signing_string(method: str, url: str, date: str, signed: list[tuple[str, str]]) -> str:
    parts = urlsplit(url)
    lines = [method.upper(), parts.path or "/", parts.query, ACCESS_KEY, date]
    return "\n".join(lines) + "\n" + "".join(f"{name}:{value}\n" for name, value in signed)


def signature(secret: str, text: str) -> str:
    digest = hmac.new(secret.encode(), text.encode(), hashlib.sha256).digest()
    return base64.b64encode(digest).decode("ascii")


def verify_callback(
    secret: str,
    method: str,
    url: str,
    headers: Mapping[str, str],
    *,
    now: float | None = None,
    tolerance: float = TOLERANCE_SECONDS,
) -> bool:
    """Whether a delivery to `url` is Vidu's, signed with `secret` (the task's API token),
    and its `Date` within `tolerance` seconds of `now`."""
    lowered = {key.lower(): value for key, value in headers.items()}
    given = lowered.get("x-hmac-signature")
    date = lowered.get("date")
    if not secret or not given or not date:
        return False
    if lowered.get("x-hmac-algorithm", "").lower() != ALGORITHM:
        return False
    if lowered.get("x-hmac-access-key") != ACCESS_KEY:
        return False
    try:
        sent = email.utils.parsedate_to_datetime(date).timestamp()
    except (TypeError, ValueError):
        return False
    if abs((time.time() if now is None else now) - sent) > tolerance:
        return False
    names = [n.strip() for n in lowered.get("x-hmac-signed-headers", "").split(";") if n.strip()]
    if any(name.lower() not in lowered for name in names):
        return False
    signed = [(name, lowered[name.lower()]) for name in names]
    expected = signature(secret, signing_string(method, url, date, signed))
    return hmac.compare_digest(expected.encode(), given.encode())
