"""Serves the console's static files under a strict Content-Security-Policy.

The page is plain HTML, CSS and JavaScript shipped in the package (no build step, no CDN).
It holds no server-side state and no privilege: every request it makes goes to the public
API with the key the user pasted, so it can do nothing the key could not do with curl.
"""

from __future__ import annotations

from importlib import resources
from urllib.parse import urlsplit

from fastapi import APIRouter
from fastapi.responses import RedirectResponse, Response

from vidrouter.domain.errors import NotFound

_TYPES = {".html": "text/html; charset=utf-8", ".js": "text/javascript; charset=utf-8",
          ".css": "text/css; charset=utf-8", ".svg": "image/svg+xml"}  # fmt: skip


def _load() -> dict[str, tuple[bytes, str]]:
    """Only the files shipped in the package, by exact name: no request path reaches the disk."""
    files: dict[str, tuple[bytes, str]] = {}
    for entry in (resources.files("vidrouter.console") / "static").iterdir():
        suffix = "." + entry.name.rsplit(".", 1)[-1]
        if suffix in _TYPES:
            files[entry.name] = (entry.read_bytes(), _TYPES[suffix])
    return files


_FILES = _load()


def policy(public_url: str) -> str:
    """`default-src 'self'`, nothing inline, and videos and their posters also from the
    content host (the public URL, which a proxy may put on another origin than the page)."""
    public = urlsplit(public_url)
    content_origin = f"{public.scheme}://{public.netloc}"
    return (
        "default-src 'self'; script-src 'self'; style-src 'self'; "
        f"img-src 'self' data: {content_origin}; "
        f"media-src 'self' {content_origin}; connect-src 'self'; object-src 'none'; "
        "base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
    )


def console_router(public_url: str) -> APIRouter:
    """The console's routes, for an app whose content host is at `public_url`."""
    router = APIRouter(include_in_schema=False)
    headers = {
        "Content-Security-Policy": policy(public_url),
        "X-Content-Type-Options": "nosniff",
        "Referrer-Policy": "no-referrer",
        "Cache-Control": "no-cache",
    }

    def serve(name: str) -> Response:
        body, media_type = _FILES[name]
        return Response(body, media_type=media_type, headers=headers)

    @router.api_route("/console", methods=["GET", "HEAD"])
    async def console_page() -> Response:
        return serve("index.html")

    @router.get("/console/")
    async def console_slash() -> RedirectResponse:
        return RedirectResponse("/console", status_code=308)

    @router.api_route("/console/static/{name}", methods=["GET", "HEAD"])
    async def console_file(name: str) -> Response:
        if name not in _FILES:
            raise NotFound(f"no console file {name!r}", code="route_not_found")
        return serve(name)

    return router
