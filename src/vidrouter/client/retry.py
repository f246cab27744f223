"""When a failed request is tried again, and after how long.

Connection errors, 429 and 5xx are retried with exponential backoff and full jitter; a
`Retry-After` (seconds or an HTTP date) from the server wins. A create is safe to retry only
because it carries an `Idempotency-Key`: the server answers a repeat with the original
generation, so a retry never makes a second paid video.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime

import httpx

RETRY_STATUSES = frozenset({429, 500, 502, 503, 504})


@dataclass(frozen=True)
class RetryPolicy:
    max_retries: int = 3
    backoff_base: float = 0.5
    backoff_cap: float = 8.0
    retry_after_cap: float = 60.0

    def delay(self, attempt: int, retry_after: float | None) -> float:
        """Seconds to wait before retry number `attempt + 1`."""
        if retry_after is not None:
            return max(0.0, min(retry_after, self.retry_after_cap))
        return random.uniform(0.0, min(self.backoff_cap, self.backoff_base * 2**attempt))


def retry_after(response: httpx.Response) -> float | None:
    value = response.headers.get("retry-after")
    if not value:
        return None
    try:
        return float(value)
    except ValueError:
        pass
    try:
        when = parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return (when - datetime.now(UTC)).total_seconds()


def request_was_sent(exc: httpx.TransportError) -> bool:
    """False when the request certainly never reached the server (the connection was never
    made), so even a non-idempotent request may be retried."""
    return not isinstance(exc, httpx.ConnectError | httpx.ConnectTimeout)
