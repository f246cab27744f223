"""The ASGI application factory."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from fastapi import FastAPI
from fastapi.middleware.cors import CORSMiddleware
from starlette.types import Receive, Scope, Send

from vidrouter import __version__
from vidrouter.api import errors, limits, openapi
from vidrouter.api.fastpath import GenerationReadFastPath
from vidrouter.api.middleware import BodyLimitMiddleware, RequestIdMiddleware, request_id
from vidrouter.api.routes import callbacks, content, generations, health, models, usage, videos
from vidrouter.observability.endpoint import metrics_router
from vidrouter.observability.http import HttpMetrics, mark_route
from vidrouter.service import Service
from vidrouter.settings import Settings


class VidrouterApp(FastAPI):
    """The FastAPI app, with the poll fast path tried before anything else (inside the
    HTTP metrics, which count both)."""

    fast_path: GenerationReadFastPath | None = None
    http_metrics: HttpMetrics | None = None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if self.http_metrics is not None:
            await self.http_metrics(scope, receive, send, self._serve)
        else:
            await self._serve(scope, receive, send)

    async def _serve(self, scope: Scope, receive: Receive, send: Send) -> None:
        if self.fast_path is not None and await self.fast_path.serve(scope, send):
            mark_route(scope, FAST_PATH_ROUTE)
            return
        await super().__call__(scope, receive, send)


FAST_PATH_ROUTE = "/v1/generations/{generation_id}"


def create_app(
    settings: Settings, *, service: Service | None = None, run_workers: bool = True
) -> FastAPI:
    """The app. It opens a `Service` (database, migrations, workers) when it starts, unless
    one is handed in already open."""
    own = service is None
    svc = service if service is not None else Service(settings)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        if own:
            await svc.open()
            if run_workers:
                svc.start_workers()
        app.state.service = svc
        try:
            yield
        finally:
            if own:
                await svc.close()

    app = VidrouterApp(
        title="vidrouter",
        version=__version__,
        description="One HTTP API in front of many AI video generation models.",
        lifespan=lifespan,
    )
    app.state.service = svc
    app.fast_path = GenerationReadFastPath(svc)
    app.http_metrics = svc.observer.http(request_id)
    errors.install(app)
    app.add_exception_handler(limits.RateLimited, limits.rate_limited_handler)
    openapi.install(app)
    app.include_router(models.router)
    app.include_router(generations.router)
    app.include_router(videos.router)
    app.include_router(usage.router)
    app.include_router(content.router)
    app.include_router(callbacks.router)
    app.include_router(health.router)
    if settings.metrics:
        app.include_router(metrics_router(svc.observer))
    app.add_middleware(limits.RateLimitHeaders)
    app.add_middleware(BodyLimitMiddleware, max_bytes=settings.max_body_bytes)
    if settings.cors_origins:
        app.add_middleware(
            CORSMiddleware,
            allow_origins=list(settings.cors_origins),
            allow_methods=["GET", "POST", "DELETE", "HEAD", "OPTIONS"],
            allow_headers=["Authorization", "Content-Type", "Idempotency-Key", "X-Request-Id"],
            expose_headers=["X-Request-Id", "Location", "Retry-After", *limits.HEADER_NAMES],
        )
    app.add_middleware(RequestIdMiddleware)
    return app
