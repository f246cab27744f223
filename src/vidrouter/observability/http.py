"""HTTP metrics and the request id of log lines, as the outermost layer of the app (so the
poll fast path, which answers before the framework, is counted too).

Requests are labelled by the template of the route that answered
(`/v1/generations/{generation_id}`), never by the raw path: a client cannot grow the number
of series. Unknown paths are `unmatched`; unknown methods `OTHER`.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from typing import Any

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from vidrouter.observability.logs import request_id_var
from vidrouter.observability.metrics import Metrics

ROUTE_KEY = "vidrouter.route_template"
UNMATCHED = "unmatched"
_METHODS = frozenset({"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"})

RequestIdOf = Callable[[Scope], bytes]


def mark_route(scope: Scope, template: str) -> None:
    """For answers given outside the router (the fast path): the template to count under."""
    scope[ROUTE_KEY] = template


def route_template(scope: Scope) -> str:
    marked = scope.get(ROUTE_KEY)
    if isinstance(marked, str):
        return marked
    route = scope.get("route")
    path = getattr(route, "path", None)
    return path if isinstance(path, str) and path else UNMATCHED


class HttpMetrics:
    """`await http_metrics(scope, receive, send, app)`: runs `app` on the request, counted."""

    def __init__(self, metrics: Metrics, request_id: RequestIdOf) -> None:
        self._metrics = metrics
        self._request_id = request_id
        self._children: dict[tuple[str, str, str], tuple[Any, Any]] = {}

    async def __call__(
        self,
        scope: Scope,
        receive: Receive,
        send: Send,
        app: Callable[[Scope, Receive, Send], Awaitable[None]] | ASGIApp,
    ) -> None:
        if scope["type"] != "http":
            await app(scope, receive, send)
            return
        started = time.perf_counter()
        token = request_id_var.set(self._request_id(scope).decode())
        status = 500  # an exception that escapes before a response was started

        async def send_observed(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = int(message["status"])
            await send(message)

        try:
            await app(scope, receive, send_observed)
        finally:
            request_id_var.reset(token)
            self._observe(scope, status, time.perf_counter() - started)

    def _observe(self, scope: Scope, status: int, seconds: float) -> None:
        method = scope["method"] if scope["method"] in _METHODS else "OTHER"
        key = (method, route_template(scope), str(status))
        children = self._children.get(key)
        if children is None:
            m = self._metrics
            children = (
                m.http_requests.labels(*key),
                m.http_seconds.labels(method, key[1]),
            )
            self._children[key] = children
        children[0].inc()
        children[1].observe(seconds)
