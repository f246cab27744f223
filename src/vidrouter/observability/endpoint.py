"""`GET /metrics`: Prometheus text format, no key (like /healthz); `VIDROUTER_METRICS=off`
leaves it out. Not in the OpenAPI document: it is for scrapers, not API clients."""

from __future__ import annotations

from fastapi import APIRouter, Request
from fastapi.responses import Response

from vidrouter.observability.observer import Observer

router = APIRouter(include_in_schema=False)

# The classic text format: every Prometheus version reads it, and no name here needs more.
CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"


@router.get("/metrics")
async def metrics(request: Request) -> Response:
    observer: Observer = request.app.state.service.observer
    return Response(
        await observer.render(),
        media_type=CONTENT_TYPE,
        headers={"Cache-Control": "no-store"},
    )
