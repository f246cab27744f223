"""Per-key limits: requests per minute on every /v1 endpoint, and unfinished generations at
once on the creates. Over a limit -> 429 `rate_limit_error` with `Retry-After`.

Every /v1 response of a known key also says where the key stands, in the fields of
draft-ietf-httpapi-ratelimit-headers (`RateLimit-Policy: "default";q=600;w=60` and
`RateLimit: "default";r=599;t=42`) and in the older `RateLimit-Limit`, `RateLimit-Remaining`,
`RateLimit-Reset` trio that many clients read.

How a request flows: the authentication dependency (and the GET fast path, before it
answers) calls `Limiter.hit(scope, key)`. It counts the request once, whoever asks first,
and keeps the decision in the request's scope; `RateLimitHeaders` writes the headers from it
into whatever response goes out. When the fast path finds the key over its limit it falls
through, and the routed endpoint raises `RateLimited` from the same decision without
counting again.

The counters are shared by every process: in the database by default, in Redis when
`VIDROUTER_REDIS_URL` is set (`store.counters`, `store.redis_counters`). If the counters
cannot be reached the request is let through (logged): limits must not take the API down.
"""

from __future__ import annotations

import logging
import math
import time
from dataclasses import dataclass
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from vidrouter.api.errors import error_response
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
# Every header a limited response may carry (for CORS `expose_headers`).
HEADER_NAMES = (
    "RateLimit-Policy",
    "RateLimit",
    "RateLimit-Limit",
    "RateLimit-Remaining",
    "RateLimit-Reset",
)


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


class RateLimited(RequestError):
    status_code = 429
    error_type = "rate_limit_error"

    def __init__(self, message: str, *, code: str, retry_after: int) -> None:
        super().__init__(message, code=code)
        self.retry_after = retry_after

    @classmethod
    def for_rate(cls, decision: RateDecision) -> RateLimited:
        return cls(
            f"too many requests: this API key may make {decision.limit} requests per minute; "
            f"retry in {decision.retry_after} s",
            code="rate_limit_exceeded",
            retry_after=decision.retry_after,
        )


async def rate_limited_handler(_: Request, exc: Exception) -> JSONResponse:
    """The 429 body, with Retry-After; `RateLimitHeaders` adds the RateLimit fields."""
    assert isinstance(exc, RateLimited)
    return error_response(429, exc.code, exc.message, headers={"Retry-After": str(exc.retry_after)})


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

    async def hit(self, scope: Scope, key: ApiKey) -> RateDecision:
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

    async def check_concurrency(self, key: ApiKey) -> None:
        """Raise RateLimited when the key already has its most unfinished generations.
        Called before a create; two creates racing for the last slot may both pass."""
        limit = key.max_concurrent or self.policy.max_concurrent
        unfinished = await self._unfinished.count(key.account_id, key.id)
        if unfinished >= limit:
            raise RateLimited(
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
    """Raise RateLimited when the decision refuses the request."""
    if not decision.allowed:
        raise RateLimited.for_rate(decision)


def rate_counters(db: Database, redis_url: str | None) -> RateCounters:
    if not redis_url:
        return StoreRateCounters(db)
    # Imported only when configured: the redis package is needed only then.
    from vidrouter.store.redis_counters import RedisRateCounters

    return RedisRateCounters.from_url(redis_url)


class RateLimitHeaders:
    """Pure ASGI middleware: every /v1 response of a counted request carries the RateLimit
    fields (also the fast path's, and the 429s'). Add it outside the fast path."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or not scope["path"].startswith("/v1/"):
            await self.app(scope, receive, send)
            return

        async def send_with_limits(message: Message) -> None:
            if message["type"] == "http.response.start":
                decision = scope.get("state", {}).get(STATE_KEY)
                if isinstance(decision, RateDecision):
                    message["headers"] = [*message.get("headers", []), *decision.raw_headers()]
            await send(message)

        await self.app(scope, receive, send_with_limits)
