"""`GET /metrics`: Prometheus text format, no key (like /healthz); `VIDROUTER_METRICS=off`
leaves it out. Not in the OpenAPI document: it is for scrapers, not API clients."""

from __future__ import annotations

from fastapi import APIRouter
from fastapi.responses import Response

from vidrouter.observability.observer import Observer

# The classic text format: every Prometheus version reads it, and no name here needs more.
CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"


def metrics_router(observer: Observer) -> APIRouter:
    router = APIRouter(include_in_schema=False)

    @router.get("/metrics")
    async def metrics() -> Response:
        return Response(
            await observer.render(),
            media_type=CONTENT_TYPE,
            headers={"Cache-Control": "no-store"},
        )

    return router
