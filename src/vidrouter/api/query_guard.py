"""Query parameters checked before any route sees them: a NUL in one (`?model=a%00b`) would
reach a database that refuses it (PostgreSQL) and end as a 500.

Percent-decoding replaces invalid UTF-8 (and so encoded surrogates) with U+FFFD, so a NUL
is the one thing the decoded text can hold that the databases refuse. Pure ASGI: a request
without `%00` in its query string costs one substring search.
"""

from __future__ import annotations

from urllib.parse import parse_qsl

from starlette.types import ASGIApp, Receive, Scope, Send

from vidrouter.api.errors import send_error
from vidrouter.domain import text


class QueryGuardMiddleware:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            bad = refused_parameter(scope.get("query_string", b""))
            if bad is not None:
                await _reject(send, bad)
                return
        await self.app(scope, receive, send)


def refused_parameter(query: bytes) -> str | None:
    """The (displayable) name of the first query parameter whose name or value the
    databases refuse, or None when there is none."""
    if b"%00" not in query and b"\x00" not in query:
        return None
    pairs = parse_qsl(query.decode("latin-1"), keep_blank_values=True, errors="replace")
    for name, value in pairs:
        if text.unstorable(name) is not None or text.unstorable(value) is not None:
            return text.displayable(name) or "query"
    return "query"  # a NUL where no parameter parses (e.g. `?%00`)


async def _reject(send: Send, param: str) -> None:
    message = f"query parameter {param!r} contains a NUL character"
    await send_error(send, 400, "parameter_invalid", message, param)
