"""The rate-limit policy: requests per minute per key, and unfinished generations at once
per key. Over a limit -> `TooManyRequests` (our 429 `rate_limit_error`, not a provider's
`RateLimited`), which carries its `Retry-After`.

The decision for a request is counted once and kept in the request's state (an ASGI scope's
`state` dict); `api.limits` turns it into response headers and the 429.

The counters are shared by every process: in the database by default, in Redis when
`VIDROUTER_REDIS_URL` is set (`store.counters`, `store.redis_counters`). If the counters
cannot be reached the request is let through (logged): limits must not take the API down.
"""

from __future__ import annotations

import logging
import math
import time
from collections.abc import MutableMapping
from dataclasses import dataclass
from typing import Any

from vidrouter.domain.clock import Clock, utcnow
from vidrouter.domain.errors import RequestError
from vidrouter.store.counters import (
    BatchedRateCounters,
    CountersUnavailable,
    RateCounters,
    StoreRateCounters,
    UnfinishedGenerations,
)
from vidrouter.store.database import Database
from vidrouter.store.keys import ApiKey

log = logging.getLogger(__name__)

WINDOW_SECONDS = 60
POLICY = "default"
STATE_KEY = "vidrouter.rate_limit"


@dataclass(frozen=True)
class LimitPolicy:
    """The service's defaults; a key's own `requests_per_minute` / `max_concurrent` win."""

    requests_per_minute: int = 600
    max_concurrent: int = 50
    # What Retry-After says when a key has too many unfinished generations: when one will
    # finish is not known, so this is a polite polling interval.
    concurrency_retry_after: int = 10


@dataclass(frozen=True)
class RateDecision:
    allowed: bool
    limit: int  # requests per window
    remaining: int
    reset: int  # seconds until the window ends, 1..WINDOW_SECONDS
    known: bool = True  # False: the counters were unreachable and the request let through

    @property
    def retry_after(self) -> int:
        return self.reset

    def headers(self) -> list[tuple[str, str]]:
        policy = ("RateLimit-Policy", f'"{POLICY}";q={self.limit};w={WINDOW_SECONDS}')
        if not self.known:
            return [policy]
        return [
            policy,
            ("RateLimit", f'"{POLICY}";r={self.remaining};t={self.reset}'),
            ("RateLimit-Limit", str(self.limit)),
            ("RateLimit-Remaining", str(self.remaining)),
            ("RateLimit-Reset", str(self.reset)),
        ]

    def raw_headers(self) -> list[tuple[bytes, bytes]]:
        return [(k.lower().encode(), v.encode()) for k, v in self.headers()]


class TooManyRequests(RequestError):
    """Our own 429: a key over its limits (a provider's 429 is `providers.base.RateLimited`)."""

    status_code = 429

    def __init__(self, message: str, *, code: str, retry_after: int) -> None:
        super().__init__(message, code=code)
        self.retry_after = retry_after

    @classmethod
    def for_rate(cls, decision: RateDecision) -> TooManyRequests:
        return cls(
            f"too many requests: this API key may make {decision.limit} requests per minute; "
            f"retry in {decision.retry_after} s",
            code="rate_limit_exceeded",
            retry_after=decision.retry_after,
        )


class Limiter:
    def __init__(
        self,
        counters: RateCounters,
        unfinished: UnfinishedGenerations,
        policy: LimitPolicy,
        *,
        clock: Clock = utcnow,
    ) -> None:
        self.policy = policy
        self._counters = counters
        self._unfinished = unfinished
        self._clock = clock
        self._warned_at = -math.inf

    @classmethod
    def create(
        cls,
        db: Database,
        policy: LimitPolicy,
        *,
        redis_url: str | None = None,
        clock: Clock = utcnow,
        sync_seconds: float = 0.0,
    ) -> Limiter:
        """Counters in Redis when `redis_url` is set, else in the database; with
        `sync_seconds`, counted in memory and shared that often (see BatchedRateCounters)."""
        counters = rate_counters(db, redis_url)
        if sync_seconds > 0:
            counters = BatchedRateCounters(counters, sync_seconds)
        return cls(counters, UnfinishedGenerations(db), policy, clock=clock)

    async def hit(self, scope: MutableMapping[str, Any], key: ApiKey) -> RateDecision:
        """Count this request against the key's per-minute budget, once per request (the
        decision is kept in the scope's state); never raises."""
        state: dict[str, Any] = scope.setdefault("state", {})
        decision: RateDecision | None = state.get(STATE_KEY)
        if decision is None:
            decision = await self.count(key)
            state[STATE_KEY] = decision
        return decision

    async def count(self, key: ApiKey) -> RateDecision:
        """Count one request of `key` now (no memory of the request: see `hit`)."""
        limit = key.requests_per_minute or self.policy.requests_per_minute
        now = self._clock().timestamp()
        start = int(now // WINDOW_SECONDS) * WINDOW_SECONDS
        try:
            hit = await self._counters.hit(
                f"rpm:{key.id}", window_start=start, window_seconds=WINDOW_SECONDS
            )
        except CountersUnavailable:
            self._warn()
            return RateDecision(True, limit, limit, WINDOW_SECONDS, known=False)
        reset = min(WINDOW_SECONDS, max(1, math.ceil(hit.window_start + WINDOW_SECONDS - now)))
        return RateDecision(hit.count <= limit, limit, max(0, limit - hit.count), reset)

    def concurrency_limit(self, key: ApiKey) -> int:
        return key.max_concurrent or self.policy.max_concurrent

    async def unfinished(self, key: ApiKey) -> int:
        """The key's unfinished generations now."""
        return await self._unfinished.count(key.account_id, key.id)

    async def check_concurrency(self, key: ApiKey) -> None:
        """Raise TooManyRequests when the key already has its most unfinished generations.
        Called before a create; two creates racing for the last slot may both pass."""
        limit = key.max_concurrent or self.policy.max_concurrent
        unfinished = await self._unfinished.count(key.account_id, key.id)
        if unfinished >= limit:
            raise TooManyRequests(
                f"this API key has {unfinished} unfinished generations, the most it may have "
                f"at once is {limit}; retry when one has finished",
                code="concurrency_limit_exceeded",
                retry_after=self.policy.concurrency_retry_after,
            )

    async def aclose(self) -> None:
        await self._counters.aclose()

    def _warn(self) -> None:
        now = time.monotonic()
        if now - self._warned_at >= WINDOW_SECONDS:  # once a minute, not once a request
            self._warned_at = now
            log.warning("rate_counters_unavailable", exc_info=True)


def enforce(decision: RateDecision) -> None:
    """Raise TooManyRequests when the decision refuses the request."""
    if not decision.allowed:
        raise TooManyRequests.for_rate(decision)


def rate_counters(db: Database, redis_url: str | None) -> RateCounters:
    if not redis_url:
        return StoreRateCounters(db)
    # Imported only when configured: the redis package is needed only then.
    from vidrouter.store.redis_counters import RedisRateCounters

    return RedisRateCounters.from_url(redis_url)
