"""Per-key limits at the HTTP boundary: the 429 answer and the RateLimit response fields.
The policy itself (what is counted, when a key is over) is `usecases.rate_limits`.

Every /v1 response of a known key also says where the key stands, in the fields of
draft-ietf-httpapi-ratelimit-headers (`RateLimit-Policy: "default";q=600;w=60` and
`RateLimit: "default";r=599;t=42`) and in the older `RateLimit-Limit`, `RateLimit-Remaining`,
`RateLimit-Reset` trio that many clients read.

How a request flows: the authentication dependency (and the GET fast path, before it
answers) calls `Limiter.hit(scope, key)`. It counts the request once, whoever asks first,
and keeps the decision in the request's scope; `RateLimitHeaders` writes the headers from it
into whatever response goes out. When the fast path finds the key over its limit it falls
through, and the routed endpoint raises `TooManyRequests` from the same decision without
counting again.
"""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from vidrouter.api.errors import error_response
from vidrouter.usecases.rate_limits import STATE_KEY, RateDecision, TooManyRequests

# Every header a limited response may carry (for CORS `expose_headers`).
HEADER_NAMES = (
    "RateLimit-Policy",
    "RateLimit",
    "RateLimit-Limit",
    "RateLimit-Remaining",
    "RateLimit-Reset",
)


async def too_many_requests_handler(_: Request, exc: Exception) -> JSONResponse:
    """The 429 body, with Retry-After; `RateLimitHeaders` adds the RateLimit fields."""
    assert isinstance(exc, TooManyRequests)
    return error_response(429, exc.code, exc.message, headers={"Retry-After": str(exc.retry_after)})


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
