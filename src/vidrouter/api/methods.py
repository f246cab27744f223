"""Which methods a path takes, for the answer to a method it does not take.

A `405` names them in `Allow` (RFC 9110 requires it): all of them, gathered from every route
of the path (Starlette's own header names only the first route it tried, and GET and DELETE
of one path are two routes here).

OpenAI's Videos API paths we do not implement fall inside our `/v1/videos/{video_id}`
pattern, so the router alone would answer them 405; those listed in `NOT_IMPLEMENTED` are
unknown here and answer 404, as docs/openai-compatibility.md promises (none today: remix,
edits, extensions and characters are served).
"""

from __future__ import annotations

from starlette.requests import Request
from starlette.routing import Match

_METHODS = ("DELETE", "GET", "HEAD", "PATCH", "POST", "PUT")
NOT_IMPLEMENTED: frozenset[str] = frozenset()


def not_implemented(request: Request) -> bool:
    return request.url.path.rstrip("/") in NOT_IMPLEMENTED


def allowed(request: Request) -> list[str]:
    """The methods some route fully matches this path with (each asked of the router the
    way a real request would be)."""
    found = []
    for method in _METHODS:
        probe = {
            "type": "http",
            "method": method,
            "path": request.scope["path"],
            "root_path": request.scope.get("root_path", ""),
            "headers": [],
            "query_string": b"",
        }
        if any(route.matches(probe)[0] is Match.FULL for route in request.app.router.routes):
            found.append(method)
    return found
